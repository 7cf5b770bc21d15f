// The exact JSON the Vast driver sends, pinned, and every field checked against Vast's spec
// (createInstance / searchOffers / rentVolume / createSshKey in shared/provider-apis/vast/
// openapi.yaml, REFERENCE.md §4.2, §4.3, §4.7, §4.8); plus the GPU name table and strict parsing.
#include <gtest/gtest.h>

#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

#include "vast/vast_json.h"
#include "vast/vast_provider.h"

namespace burst {
namespace {

using nlohmann::json;

PodRequest vast_gpu_request() {
  PodRequest r;
  r.name = "burst-j42-gpu";
  r.job_id = "j42";
  r.gpu_type = "RTX_4090";
  r.gpu_count = 2;
  r.image = "python:3.11-slim";
  r.volume_id = "31415926";
  r.mount_path = "/workspace";
  r.ssh_public_key = "ssh-ed25519 AAAAkey burst";
  r.env = {{"TTS_STEPS", "8"}};
  r.ports = {22, 8888};
  return r;
}

// createInstance's body fields and JSON types (spec, plus env as an object per Vast's docs).
void expect_valid_create(const json& b) {
  const std::map<std::string, json::value_t> props = {{"image", json::value_t::string},
                                                      {"label", json::value_t::string},
                                                      {"disk", json::value_t::number_integer},
                                                      {"runtype", json::value_t::string},
                                                      {"env", json::value_t::object},
                                                      {"onstart", json::value_t::string},
                                                      {"cancel_unavail", json::value_t::boolean},
                                                      {"volume_info", json::value_t::object}};
  ASSERT_TRUE(b.is_object());
  ASSERT_TRUE(b.contains("image"));
  for (const auto& [k, v] : b.items()) {
    auto it = props.find(k);
    ASSERT_NE(it, props.end()) << "not a createInstance field burst sends: " << k;
    if (it->second == json::value_t::number_integer)
      EXPECT_TRUE(v.is_number_integer()) << k;  // parsed as unsigned when positive
    else
      EXPECT_EQ(v.type(), it->second) << k;
  }
  const std::set<std::string> runtypes = {
      "ssh", "jupyter", "args", "ssh_proxy", "ssh_direct", "jupyter_proxy", "jupyter_direct"};
  EXPECT_TRUE(runtypes.count(b["runtype"].get<std::string>()));
  for (const auto& [k, v] : b["env"].items()) EXPECT_TRUE(v.is_string()) << k;
  if (b.contains("volume_info")) {
    for (const auto& [k, v] : b["volume_info"].items())
      EXPECT_TRUE(k == "create_new" || k == "volume_id" || k == "size" || k == "mount_path") << k;
    EXPECT_TRUE(b["volume_info"]["volume_id"].is_number_integer());
    EXPECT_TRUE(b["volume_info"]["create_new"].is_boolean());
  }
}

TEST(VastBody, CreateInstanceIsPinned) {
  const std::string body = vast_create_instance_body(vast_gpu_request(), 31415926, 32);
  EXPECT_EQ(
      body,
      R"({"cancel_unavail":true,"disk":32,"env":{"-p 8888:8888":"1","TTS_STEPS":"8"},)"
      R"("image":"python:3.11-slim","label":"burst-j42-gpu","onstart":"touch ~/.no_auto_tmux; )"
      R"(env >> /etc/environment","runtype":"ssh_direct","volume_info":{"create_new":false,)"
      R"("mount_path":"/workspace","volume_id":31415926}})");
  expect_valid_create(json::parse(body));
  EXPECT_EQ(body.find("AAAAkey"), std::string::npos) << "the SSH key goes to the account, not env";
}

TEST(VastBody, CreateWithoutVolumeLeavesVolumeInfoOut) {
  PodRequest r = vast_gpu_request();
  r.volume_id.clear();
  r.ports = {};
  json b = json::parse(vast_create_instance_body(r, 0, 32));
  EXPECT_FALSE(b.contains("volume_info"));
  EXPECT_EQ(b["env"], json({{"TTS_STEPS", "8"}}));
  expect_valid_create(b);
}

TEST(VastBody, SearchOffersIsPinned) {
  EXPECT_EQ(vast_search_offers_body({"RTX 4090"}, 2, 41201, 32, 5000),
            R"({"allocated_storage":32,"direct_port_count":{"gte":1.0},"disk_space":{"gte":32},)"
            R"("external":{"eq":false},)"
            R"("gpu_name":{"in":["RTX 4090"]},"inet_down":{"gte":100.0},"limit":5000,)"
            R"("machine_id":{"eq":41201},"num_gpus":{"eq":2},"order":[["dph_total","asc"]],)"
            R"("reliability":{"gte":0.95},"rentable":{"eq":true},"rented":{"eq":false},)"
            R"("type":"ondemand","verified":{"eq":true}})");
  // Every offer: no gpu/machine filter, at least one GPU.
  json all = json::parse(vast_search_offers_body({}, 0, 0, 32, 5000));
  EXPECT_FALSE(all.contains("gpu_name"));
  EXPECT_FALSE(all.contains("machine_id"));
  EXPECT_EQ(all["num_gpus"], json({{"gte", 1}}));
  const std::set<std::string> ops = {"eq", "neq", "gt", "lt", "gte", "lte", "in", "notin"};
  for (const auto& [k, v] : all.items()) {
    if (k == "order" || k == "type" || k == "limit" || k == "allocated_storage") continue;
    ASSERT_TRUE(v.is_object()) << k;
    for (const auto& [op, x] : v.items()) EXPECT_TRUE(ops.count(op)) << k << "." << op;
  }
  EXPECT_TRUE(all["type"] == "ondemand" || all["type"] == "bid" || all["type"] == "reserved");
  EXPECT_LE(all["order"].size(), 2u);  // maxItems 2
}

TEST(VastBody, VolumeAndSshKeyBodiesArePinned) {
  EXPECT_EQ(vast_search_volumes_body(41201, 50),
            R"({"disk_space":{"gte":50},"limit":8,"machine_id":{"eq":41201},"order":[[)"
            R"("storage_cost","asc"]],"verified":{"eq":true}})");
  EXPECT_EQ(vast_create_volume_body(412019, 50, "tts_dcache"),
            R"({"id":412019,"name":"tts_dcache","size":50})");
  EXPECT_EQ(vast_add_ssh_key_body("ssh-ed25519 AAAAkey burst"),
            R"({"ssh_key":"ssh-ed25519 AAAAkey burst"})");
}

TEST(VastJson, MapsGpuNamesToCatalogNamesInOneTable) {
  EXPECT_EQ(vast_gpu_to_catalog("RTX 4090"), "RTX_4090");
  EXPECT_EQ(vast_gpu_to_catalog("RTX 4080S"), "RTX_4080_SUPER");
  EXPECT_EQ(vast_gpu_to_catalog("RTX 6000Ada"), "RTX_6000_ADA");
  EXPECT_EQ(vast_gpu_to_catalog("Tesla V100"), "V100");
  EXPECT_EQ(vast_gpu_to_catalog("H100 SXM"), "H100_SXM");
  EXPECT_EQ(vast_gpu_to_catalog("A100 SXM4", 81920), "A100_80GB");
  EXPECT_EQ(vast_gpu_to_catalog("A100 SXM4", 40960), "A100_40GB");
  EXPECT_EQ(vast_gpu_to_catalog("RTX 4070S Ti"), "RTX_4070S_TI");  // not in the table
  EXPECT_EQ(vast::vast_names_for("H200"), (std::vector<std::string>{"H200", "H200 SXM"}));
  EXPECT_TRUE(vast::vast_names_for("NOT_A_GPU").empty());
}

TEST(VastJson, VolumeNamesRoundTripThroughVastsAlphabet) {
  for (std::string name : {"tts-cache", "a_b", "weird.name/x", "plain"}) {
    const std::string v = vast::encode_volume_name(name);
    for (char c : v) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '_') << v;
    EXPECT_EQ(vast::decode_volume_name(v), name);
  }
  EXPECT_EQ(vast::encode_volume_name("tts-cache"), "tts_dcache");
}

// rentVolume answers {"success":true,"volume_name":"V.<id>"} (Vast OpenAPI): the id is how the
// volume is found again, since the list has no name.
TEST(VastJson, RentVolumeAnswerGivesTheVolumeId) {
  EXPECT_EQ(vast::volume_id_from_name(R"({"success":true,"volume_name":"V.20118481"})"), 20118481);
  EXPECT_EQ(vast::volume_id_from_name(R"({"success":true})"), 0);
  EXPECT_EQ(vast::volume_id_from_name(R"({"volume_name":"V."})"), 0);
  EXPECT_EQ(vast::volume_id_from_name(R"({"volume_name":"V.12x"})"), 0);
  EXPECT_EQ(vast::volume_id_from_name("not json"), 0);
}

TEST(VastJson, RegionNamesTheMachine) {
  EXPECT_EQ(vast::region_for("Washington, US", 41201), "Washington, US (machine 41201)");
  EXPECT_EQ(vast::machine_of("Washington, US (machine 41201)"), 41201);
  EXPECT_EQ(vast::machine_of("Germany, DE, EU"), 0);  // the offline table's regions
}

TEST(VastJson, ReadsDirectSshFirstThenTheProxy) {
  // The spec's Instance fields, trimmed; HostPort is a string, public_ipaddr has a stray newline.
  json inst = json::parse(R"({"id":7835610,"label":"burst-j-gpu","actual_status":"running",
    "intended_status":"running","cur_state":"running","gpu_name":"RTX 4090","gpu_ram":24564,
    "dph_total":0.41,"public_ipaddr":"63.135.50.11\n","ssh_host":"ssh2281.vast.ai",
    "ssh_port":10882,"ports":{"22/tcp":[{"HostIp":"0.0.0.0","HostPort":"20000"}]}})");
  auto p = vast::parse_instance(inst);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->id, "7835610");
  EXPECT_EQ(p->name, "burst-j-gpu");
  EXPECT_EQ(p->state, PodState::kRunning);
  EXPECT_EQ(p->ssh.host, "63.135.50.11");
  EXPECT_EQ(p->ssh.port, 20000);
  EXPECT_EQ(p->ssh.user, "root");
  EXPECT_EQ(p->gpu_type, "RTX_4090");

  inst["ports"] = nullptr;  // proxy runtypes: no 22/tcp mapping
  p = vast::parse_instance(inst);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->ssh.host, "ssh2281.vast.ai");
  EXPECT_EQ(p->ssh.port, 10882);

  inst["actual_status"] = nullptr;  // provisioning
  p = vast::parse_instance(inst);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->state, PodState::kPending);
  EXPECT_EQ(p->ssh.port, 0);
  inst["actual_status"] = "exited";
  EXPECT_EQ(vast::parse_instance(inst)->state, PodState::kStopping);
  inst["cur_state"] = "unloaded";
  EXPECT_EQ(vast::parse_instance(inst)->state, PodState::kGone);
}

TEST(VastJson, AListThatDoesNotParseIsAnErrorNeverNoInstances) {
  for (const char* body : {R"({"success":true,"instances":[{"id":7,"label":"burst-)", "[]",
                           R"({"instances":null})", R"({"instances":[{"id":"7"}]})",
                           R"({"instances":[],"next_token":5})", "API requests too frequent"}) {
    auto r = vast::parse_instance_page(body);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
    EXPECT_NE(r.error().message.find("not treating it as empty"), std::string::npos);
  }
  auto ok = vast::parse_instance_page(R"({"success":true,"instances":[],"next_token":null})");
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->pods.empty());
  EXPECT_TRUE(ok->next_token.empty());
  EXPECT_FALSE(vast::parse_offers(R"({"offers":{"id":1}})").ok());  // the spec example's shape
}

TEST(VastJson, TheOffersDiskRateReachesTheOffer) {
  // disk_bw is the host disk's read rate in MB/s (REFERENCE §4.2); the planner reads the weights
  // from that disk at it (burst/weight_load.h). Absent or not positive: 0, the prior.
  auto r = vast::parse_offers(R"({"offers":[{"id":1,"gpu_name":"RTX 4090","disk_bw":3941.5},
      {"id":2,"gpu_name":"RTX 4090"},{"id":3,"gpu_name":"RTX 4090","disk_bw":-1}]})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 3u);
  EXPECT_DOUBLE_EQ((*r)[0].disk_bw, 3941.5);
  EXPECT_DOUBLE_EQ(vast::to_offer((*r)[0]).disk_read_bps, 3941.5e6);
  EXPECT_EQ(vast::to_offer((*r)[1]).disk_read_bps, 0);
  EXPECT_EQ(vast::to_offer((*r)[2]).disk_read_bps, 0);
}

TEST(VastJson, TheOffersDownloadLinkReachesTheOfferInMegabitsPerSecond) {
  // inet_down is the host's measured download rate; the spec says MB/s, the CLI Mb/s (REFERENCE
  // §4.2, "Unit conflicts"). Read as Mb/s, the slower, so no download is planned too fast.
  // Absent or not positive: 0, no link bound.
  auto r = vast::parse_offers(R"({"offers":[{"id":1,"gpu_name":"RTX 4090","inet_down":812.4},
      {"id":2,"gpu_name":"RTX 4090"},{"id":3,"gpu_name":"RTX 4090","inet_down":-5}]})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 3u);
  EXPECT_DOUBLE_EQ((*r)[0].inet_down, 812.4);
  EXPECT_DOUBLE_EQ(vast::to_offer((*r)[0]).download_bps, 812.4e6 / 8);
  EXPECT_EQ(vast::to_offer((*r)[1]).download_bps, 0);
  EXPECT_EQ(vast::to_offer((*r)[2]).download_bps, 0);
}

TEST(VastJson, TheOffersBandwidthChargesReachTheOffer) {
  // inet_down_cost and inet_up_cost are $/GB, billed beside dph_total (REFERENCE §4.2). Absent or
  // negative: 0, nothing billed.
  auto r = vast::parse_offers(R"({"offers":[
      {"id":1,"gpu_name":"RTX 4090","inet_down_cost":0.0195,"inet_up_cost":0.003},
      {"id":2,"gpu_name":"RTX 4090"},
      {"id":3,"gpu_name":"RTX 4090","inet_down_cost":-1,"inet_up_cost":-0.5}]})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 3u);
  EXPECT_DOUBLE_EQ(vast::to_offer((*r)[0]).download_usd_per_gb, 0.0195);
  EXPECT_DOUBLE_EQ(vast::to_offer((*r)[0]).upload_usd_per_gb, 0.003);
  EXPECT_EQ(vast::to_offer((*r)[1]).download_usd_per_gb, 0);
  EXPECT_EQ(vast::to_offer((*r)[1]).upload_usd_per_gb, 0);
  EXPECT_EQ(vast::to_offer((*r)[2]).download_usd_per_gb, 0);
  EXPECT_EQ(vast::to_offer((*r)[2]).upload_usd_per_gb, 0);
}

TEST(VastJson, OffersAreReadFieldByFieldAndStrictly) {
  auto ok = vast::parse_offers(R"({"success": true, "offers": [
      {"id": 4120110, "machine_id": 41201, "gpu_name": "RTX 4090", "num_gpus": 2,
       "gpu_ram": 24564, "dph_total": 0.7166, "geolocation": "Washington, US",
       "rentable": true, "rented": false, "search": {"id": 9, "gpuCostPerHour": 0.7},
       "extra_env": [["-p 22:22", "1"]], "min_bid": 0.42},
      {"id": 5, "gpu_name": "H100 SXM", "num_gpus": "8", "dph_total": "16.4", "rentable": null,
       "rented": true}]})");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  ASSERT_EQ(ok->size(), 2u);
  const auto& a = (*ok)[0];
  EXPECT_EQ(a.id, 4120110);
  EXPECT_EQ(a.machine_id, 41201);
  EXPECT_EQ(a.gpu_name, "RTX 4090");
  EXPECT_EQ(a.num_gpus, 2);
  EXPECT_DOUBLE_EQ(a.gpu_ram_mb, 24564);
  EXPECT_DOUBLE_EQ(a.dph_total, 0.7166);
  EXPECT_EQ(a.geolocation, "Washington, US");
  EXPECT_TRUE(a.rentable);
  EXPECT_FALSE(a.rented);
  const auto& b = (*ok)[1];
  EXPECT_EQ(b.id, 5) << "the nested search.id is not the offer's";
  EXPECT_EQ(b.num_gpus, 8) << "numbers sent as strings are read";
  EXPECT_DOUBLE_EQ(b.dph_total, 16.4);
  EXPECT_FALSE(b.rentable) << "only true is rentable";
  EXPECT_TRUE(b.rented);
  EXPECT_TRUE(vast::parse_offers(R"({"offers":[]})")->empty());

  for (const char* body :
       {R"({"offers":{"id":1}})", R"({"offers":[{"id":1,"gpu_name":"A40"},7]})",
        R"({"offers":[{"gpu_name":"A40"}]})", R"({"offers":[{"id":"1","gpu_name":"A40"}]})",
        R"({"offers":[{"id":1.5,"gpu_name":"A40"}]})", R"({"offers":[{"id":1}]})",
        R"({"offers":[{"id":1,"gpu_name":"A40"})", R"([{"id":1,"gpu_name":"A40"}])",
        R"({"msg":"no offers"})", "API requests too frequent"}) {
    auto r = vast::parse_offers(body);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_NE(r.error().message.find("not treating it as empty"), std::string::npos) << body;
  }
}

TEST(VastJson, ErrorsKeepVastsWordsAndCapacityIsNoSuchAsk) {
  const std::string gone =
      R"({"success":false,"error":"no_such_ask","msg":"error 410/3907: no_such_ask Instance type 1234567 is no longer available.","ask_id":1234567})";
  EXPECT_TRUE(vast::is_no_capacity(410, gone));
  EXPECT_EQ(vast::error_message(gone),
            "error 410/3907: no_such_ask Instance type 1234567 is no longer available.");
  EXPECT_FALSE(vast::is_no_capacity(
      400, R"({"success":false,"error":"invalid_args","msg":"Invalid args"})"));
  EXPECT_EQ(vast::error_message(R"({"detail":"API requests too frequent endpoint threshold=4.5"})"),
            "API requests too frequent endpoint threshold=4.5");
  EXPECT_EQ(vast::error_message("API requests too frequent"), "API requests too frequent");
  EXPECT_EQ(
      vast::error_message(R"({"success":false,"error":"auth_error","msg":"Invalid user key"})"),
      "auth_error: Invalid user key");
}

// Interruptible instances (REFERENCE §4.2 type "bid", §4.3 price; docs/providers.md "Spot pods").
TEST(VastBody, ASpotCreateBidsTheMinimumBidTimesTheMarginAndSearchesBids) {
  json b = json::parse(vast_create_instance_body(vast_gpu_request(), 31415926, 40, 0.396));
  EXPECT_DOUBLE_EQ(b["price"].get<double>(), 0.396);  // $/h per machine, 0.001 .. 128
  EXPECT_FALSE(json::parse(vast_create_instance_body(vast_gpu_request(), 0, 40)).contains("price"));
  EXPECT_EQ(json::parse(vast_search_offers_body({"RTX 4090"}, 1, 0, 40, 64, {}, true))["type"],
            "bid");
  EXPECT_EQ(json::parse(vast_search_offers_body({"RTX 4090"}, 1, 0, 40, 64))["type"], "ondemand");

  auto r = vast::parse_offers(R"({"offers":[
      {"id":1,"gpu_name":"RTX 4090","num_gpus":1,"dph_base":0.62,"dph_total":0.64,"min_bid":0.36},
      {"id":2,"gpu_name":"RTX 4090","num_gpus":1,"dph_base":0.40,"dph_total":0.42,"min_bid":0.39},
      {"id":3,"gpu_name":"RTX 4090","num_gpus":1,"dph_total":0.5}]})");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_DOUBLE_EQ(vast::kVastBidMargin, 1.10);
  EXPECT_NEAR(vast::bid_for((*r)[0]), 0.396, 1e-12);  // min_bid x 1.10
  EXPECT_NEAR(vast::bid_for((*r)[1]), 0.40, 1e-12);   // never above the on-demand GPU price
  EXPECT_EQ(vast::bid_for((*r)[2]), 0);               // the host takes no bids
  const Offer spot = vast::to_offer((*r)[0]);
  ASSERT_TRUE(spot.spot_usd_per_hour.has_value());
  EXPECT_NEAR(*spot.spot_usd_per_hour, 0.396 + 0.02, 1e-12);  // the bid plus the storage part
  EXPECT_DOUBLE_EQ(spot.usd_per_hour, 0.64);
  EXPECT_FALSE(vast::to_offer((*r)[2]).spot_usd_per_hour.has_value());
}

TEST(VastJson, AnOutbidInstanceIsPreemptedAndAStoppedStartIsNot) {
  // dstack reads cur_state == intended_status == next_state == "stopped" as interrupted
  // (REFERENCE §4.4.1).
  auto outbid = vast::parse_instance(json::parse(R"({"id":7,"label":"burst-j-gpu0",
      "actual_status":"stopped","cur_state":"stopped","intended_status":"stopped",
      "next_state":"stopped","status_msg":"stopped: outbid","is_bid":true})"));
  ASSERT_TRUE(outbid.ok()) << outbid.error().message;
  EXPECT_TRUE(outbid->preempted);
  EXPECT_EQ(outbid->state, PodState::kStopping);
  EXPECT_EQ(outbid->status_note, "stopped: outbid");
  auto exited = vast::parse_instance(json::parse(R"({"id":8,"actual_status":"exited",
      "cur_state":"running","intended_status":"running","next_state":"running"})"));
  ASSERT_TRUE(exited.ok());
  EXPECT_FALSE(exited->preempted) << "a container that exited is a crash, not a preemption";
  auto running = vast::parse_instance(json::parse(R"({"id":9,"actual_status":"running",
      "cur_state":"running","intended_status":"running","next_state":"running"})"));
  ASSERT_TRUE(running.ok());
  EXPECT_FALSE(running->preempted);
}

}  // namespace
}  // namespace burst
