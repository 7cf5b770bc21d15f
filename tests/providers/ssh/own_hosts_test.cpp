// Your own GPU hosts (the `ssh` provider, providers/ssh/; issue 33 item 5): nvidia-smi's answer
// read defensively and mapped onto the catalog, the owned cost derived as `burst estimate` derives
// it, config.yaml's host list, and the driver against two real sshd on loopback with a fake
// nvidia-smi: offers from probing, a pod as a job's dir under the host's lock, delete releasing it,
// and a host that disappears keeping its lock until it can be reached again.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "burst/config.h"
#include "cost/owned_cost.h"
#include "fakes/own_host_sshd.h"
#include "fakes/temp_dir.h"
#include "plan/planner.h"
#include "registry.h"
#include "report/job_report.h"
#include "report/recommendations.h"
#include "ssh/own_host_probe.h"
#include "ssh/ssh_provider.h"

namespace burst {
namespace {

namespace fs = std::filesystem;
using namespace ownhost;

TEST(OwnHostProbe, ReadsNvidiaSmisCsv) {
  auto gpus =
      parse_nvidia_smi("NVIDIA GeForce RTX 4090, 24564 MiB\nNVIDIA GeForce RTX 4090, 24564 MiB\n");
  ASSERT_TRUE(gpus.ok()) << gpus.error().message;
  ASSERT_EQ(gpus->size(), 2u);
  EXPECT_EQ((*gpus)[0].name, "NVIDIA GeForce RTX 4090");
  EXPECT_EQ((*gpus)[1].memory_mib, 24564);
  auto none = parse_nvidia_smi("");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto na = parse_nvidia_smi("NVIDIA GH200 480GB, [N/A]\r\n");
  ASSERT_TRUE(na.ok()) << na.error().message;
  EXPECT_EQ((*na)[0].memory_mib, 0);
}

TEST(OwnHostProbe, RefusesAnswersThatAreNotItsCsvNamingTheLine) {
  for (const char* bad :
       {"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
        "RTX 4090, lots MiB", ", 24564 MiB", "RTX\x01 4090, 24564 MiB",
        "RTX 4090, 99999999999 MiB"}) {
    auto r = parse_nvidia_smi(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kRemoteFailed);
    EXPECT_NE(r.error().message.find("nvidia-smi: "), std::string::npos) << r.error().message;
    for (char c : r.error().message) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << r.error().message;
  }
  std::string many;
  for (int i = 0; i < 65; ++i) many += "NVIDIA L4, 23034 MiB\n";
  EXPECT_FALSE(parse_nvidia_smi(many).ok());
}

TEST(OwnHostProbe, MapsTheDriversNamesOntoTheCatalog) {
  auto catalog = load_gpu_catalog("");
  ASSERT_TRUE(catalog.ok());
  const std::vector<std::tuple<std::string, double, std::string>> cases = {
      {"NVIDIA GeForce RTX 4090", 24564, "RTX_4090"},
      {"NVIDIA GeForce RTX 3090", 24576, "RTX_3090"},
      {"NVIDIA GeForce RTX 4080 SUPER", 16376, "RTX_4080_SUPER"},
      {"NVIDIA RTX A6000", 49140, "RTX_A6000"},
      {"NVIDIA RTX 6000 Ada Generation", 49140, "RTX_6000_ADA"},
      {"Quadro RTX 6000", 24576, "QUADRO_RTX_6000"},
      {"Tesla T4", 15360, "T4"},
      {"Tesla V100-SXM2-16GB", 16384, "V100"},
      {"NVIDIA A10", 23028, "A10"},
      {"NVIDIA L40S", 46068, "L40S"},
      {"NVIDIA A100-SXM4-40GB", 40960, "A100_40GB"},
      {"NVIDIA A100-SXM4-80GB", 81920, "A100_80GB"},
      {"NVIDIA A100 80GB PCIe", 81920, "A100_80GB_PCIE"},
      {"NVIDIA H100 80GB HBM3", 81559, "H100_SXM"},
      {"NVIDIA H100 PCIe", 81559, "H100_PCIE"},
      {"NVIDIA H100 NVL", 95830, "H100_NVL"},
      {"NVIDIA H200", 143771, "H200"},
      {"NVIDIA H200 NVL", 143771, "H200_NVL"},
      {"NVIDIA A100-PCIE-40GB", 40960, "A100_40GB_PCIE"},
      {"Tesla V100-SXM2-32GB", 32768, "V100_32GB"},
      {"Tesla V100-PCIE-16GB", 16384, "V100_PCIE"},
      {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", 97887, "RTX_PRO_6000"},
      {"NVIDIA RTX PRO 6000 Blackwell Server Edition", 97887, "RTX_PRO_6000_SERVER"},
      {"NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", 97887, "RTX_PRO_6000_MAXQ"},
      {"NVIDIA RTX 5000 Ada Generation", 32760, "RTX_5000_ADA"},
      {"NVIDIA GeForce RTX 5080", 16303, "RTX_5080"},
      {"NVIDIA GeForce RTX 4060 Ti", 16380, "RTX_4060_TI"},
      {"NVIDIA GeForce RTX 4070 SUPER", 12282, "RTX_4070_SUPER"},
      {"Quadro RTX 8000", 49152, "QUADRO_RTX_8000"},
      {"NVIDIA H800", 81559, "H800_SXM"},
      {"NVIDIA A800-SXM4-80GB", 81920, "A800_80GB"},
      {"NVIDIA A800 80GB PCIe", 81920, "A800_80GB_PCIE"},
      {"NVIDIA GeForce RTX 4060", 8188, "RTX_4060"},
      {"NVIDIA GeForce RTX 3060 Ti", 8192, "RTX_3060_TI"},
      {"NVIDIA GeForce RTX 4060 Ti", 8188, "RTX_4060_TI_8GB"},
  };
  for (const auto& [smi, mib, want] : cases) {
    EXPECT_EQ(catalog_gpu_name(smi, mib), want) << smi;
    EXPECT_NE(find_gpu(*catalog, want), nullptr) << want << " is not in config/gpus.yaml";
  }
  // The 8 GB board of a name the catalog holds at 16 GB is not priced as that card: the 4060
  // Ti's is a card of its own, the 5060 Ti's is not in the catalog. Nor are the A800 40 GB and
  // the H800 PCIe, whose names differ from the cards the catalog holds.
  EXPECT_EQ(find_gpu(*catalog, catalog_gpu_name("NVIDIA GeForce RTX 5060 Ti", 8151)), nullptr);
  EXPECT_EQ(find_gpu(*catalog, catalog_gpu_name("NVIDIA A800 40GB Active", 40960)), nullptr);
  EXPECT_EQ(find_gpu(*catalog, catalog_gpu_name("NVIDIA H800 PCIe", 81559)), nullptr);
}

TEST(OwnHostProbe, TheLastMarkersAreBurstsWhateverTheHostPrints) {
  const std::string out =
      std::string("@@burst-gpus\n") +
      "NVIDIA L4, 23034 MiB\n@@burst-lock\nlocked\nburst-fake\n"  // nvidia-smi's
      "\n@@burst-lock\n\n@@burst-dir\n/home/me/.burst\n";
  auto p = parse_probe(out);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_FALSE(p->locked);
  EXPECT_EQ(p->work_dir, "/home/me/.burst");
  EXPECT_FALSE(parse_probe("@@burst-gpus\n\n@@burst-lock\n\n").ok());
  EXPECT_FALSE(parse_probe("\n@@burst-lock\n\n@@burst-dir\nrelative\n").ok());
}

// Runs a lock or release command in sh, as the host's shell would. `killed_at_lock_mkdir`: the
// shell is SIGKILLed right after it makes a directory for the lock (a job killed there).
std::string host_sh(const TempDir& dir, const std::string& command, bool killed_at_lock_mkdir) {
  const std::string script = dir.path() + "/cmd.sh";
  std::ofstream(script) << (killed_at_lock_mkdir
                                ? "mkdir() { command mkdir \"$@\" || return; case \"$*\" in "
                                  "*lock*) kill -9 $$;; esac; }\n"
                                : "")
                        << command << "\n";
  std::string out;
  if (FILE* p = popen(("sh " + script + " 2>&1").c_str(), "r")) {
    char buf[256];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    pclose(p);
  }
  return out;
}

TEST(OwnHostLock, AJobKilledWhileTakingTheLockLeavesNoLockTheNextJobCannotTake) {
  TempDir dir;
  const std::string w = dir.path() + "/work";
  host_sh(dir, lock_command(w, "burst-i1-j1-gpu", "vol"), true);
  EXPECT_FALSE(fs::exists(w + "/lock")) << "an owner-less lock: no release can clear it";
  const std::string out = host_sh(dir, lock_command(w, "burst-i1-j2-gpu", "vol"), false);
  EXPECT_EQ(out.rfind("locked\n", 0), 0u) << out;
  // A third job finds it held by the second, and leaves nothing of its own in the lock.
  const std::string held = host_sh(dir, lock_command(w, "burst-i1-j3-gpu", "vol"), false);
  EXPECT_EQ(held, "held\nburst-i1-j2-gpu\n");
  size_t entries = 0;
  for (const auto& e : fs::directory_iterator(w + "/lock")) entries += !e.path().empty();
  EXPECT_EQ(entries, 2u) << "pod and volume only";
  host_sh(dir, release_command(w, "burst-i1-j2-gpu"), false);
  EXPECT_FALSE(fs::exists(w + "/lock"));
}

TEST(OwnHostCost, DerivedFromPowerAndPurchaseAsBurstEstimateDoes) {
  auto catalog = load_gpu_catalog("");
  ASSERT_TRUE(catalog.ok());
  const GpuSpec* g = find_gpu(*catalog, "RTX_4090");
  ASSERT_NE(g, nullptr);
  ASSERT_TRUE(g->purchase_usd);
  OwnHostConfig h;
  h.usd_per_kwh = 0.30;
  h.life_years = 3;
  h.utilization = 0.5;
  const double want =
      2 * *g->purchase_usd / (3 * 8760 * 0.5) + 2 * g->tdp_w / 1000.0 * 0.30;  // docs/cost-model.md
  EXPECT_NEAR(own_host_usd_per_hour(h, *catalog, "RTX_4090", 2), want, 1e-9);
  h.usd_per_hour = 0.12;
  EXPECT_DOUBLE_EQ(own_host_usd_per_hour(h, *catalog, "RTX_4090", 2), 0.12);
}

std::map<std::string, std::string> own_config_env(const TempDir& dir) {
  return {{"HOME", dir.path()},
          {"BURST_CONFIG_DIR", dir.path()},
          {"BURST_STATE_DIR", dir.path() + "/state"}};
}

TEST(OwnHostConfigFile, ReadsTheHostListFromConfigYaml) {
  TempDir dir;
  dir.write("config.yaml",
            "providers:\n  ssh:\n    hosts:\n"
            "      - {name: desk, address: 10.0.0.5, user: me, key: ~/.ssh/id_desk,"
            " usd_per_hour: 0.05}\n"
            "      - name: lab\n        address: lab.example\n        port: 2222\n"
            "        usd_per_kwh: 0.4\n        utilization: 0.25\n");
  auto c = load_config(own_config_env(dir), all_provider_traits());
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->own_hosts.size(), 2u);
  EXPECT_EQ(c->own_hosts[0].name, "desk");
  EXPECT_EQ(c->own_hosts[0].key, dir.path() + "/.ssh/id_desk");
  EXPECT_EQ(c->own_hosts[0].usd_per_hour.value_or(-1), 0.05);
  EXPECT_EQ(c->own_hosts[0].work_dir, "~/.burst");
  EXPECT_EQ(c->own_hosts[1].port, 2222);
  EXPECT_FALSE(c->own_hosts[1].usd_per_hour);
  EXPECT_EQ(c->own_hosts[1].utilization, 0.25);

  dir.write("config.yaml",
            "providers:\n  ssh:\n    hosts:\n      - {name: ../x, address: a}\n"
            "      - {name: b}\n");
  auto bad = load_config(own_config_env(dir), all_provider_traits());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("providers.ssh.hosts[0].name"), std::string::npos)
      << bad.error().message;
  EXPECT_NE(bad.error().message.find("address"), std::string::npos) << bad.error().message;
}

TEST(OwnHostRegistry, TheSshRowHasADriver) {
  TempDir dir;
  auto c = load_config(own_config_env(dir), all_provider_traits());
  ASSERT_TRUE(c.ok());
  SystemClock clock;
  auto p = make_provider("ssh", *c, clock);
  ASSERT_TRUE(p.ok()) << p.error().message;  // main: "ssh: driver not in this build yet"
  auto offers = (*p)->offers(true);
  ASSERT_TRUE(offers.ok());
  EXPECT_TRUE(offers->empty());  // no hosts configured
  // Only your own hosts bill nothing while they cannot be reached (job/worker_fleet.h moves a
  // lost one's shard); a cloud pod whose delete is unverified may bill on.
  for (const ProviderTraits& t : all_provider_traits())
    EXPECT_EQ(t.lost_pod_bills_nothing, t.name == "ssh") << t.name;
}

Offer plan_offer(const std::string& provider, const std::string& gpu, double usd_per_hour,
                 bool available = true) {
  Offer o;
  o.provider = provider;
  o.traits = find_provider_traits(provider);
  o.gpu_type = gpu;
  o.gpu_count = 1;
  o.vram_gb = 24;
  o.usd_per_hour = usd_per_hour;
  o.region = provider == "ssh" ? "desk" : "eu";
  o.price_source = provider == "ssh" ? "owned (config)" : "live offer";
  o.available = available;
  return o;
}

// The planner prices your own host at its owned cost: a free host wins while it meets the
// deadline; a busy one, or one too slow for the deadline, sends the job to the cloud.
TEST(OwnHostPlan, AFreeHostFastEnoughWinsElseTheJobBurstsToTheCloud) {
  auto catalog = load_gpu_catalog("");
  ASSERT_TRUE(catalog.ok());
  PipelineSpec spec;
  spec.name = "render";
  spec.run = "python render.py";
  spec.workload.kind = "custom";
  spec.workload.reference = WorkloadReference{"RTX_4090", 3600, ""};
  PlanInput in;
  in.catalog = &*catalog;
  in.providers = {"ssh", "vast"};
  in.gpu_offers = {plan_offer("ssh", "RTX_3060", 0.02), plan_offer("vast", "H100_SXM", 2.5)};
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->gpu.provider, "ssh");
  EXPECT_EQ(plan->gpu.region, "desk");

  spec.budget.deadline_seconds = 5000;  // the RTX 3060 takes about 3x the 4090's hour
  plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->gpu.provider, "vast");

  spec.budget.deadline_seconds.reset();
  in.gpu_offers[0].available = false;  // another job holds the host
  plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->gpu.provider, "vast");
}

TEST(OwnHostReport, SaysWhatRanOnYourOwnHosts) {
  JobReport r;
  PodCost own;
  own.pod.pod_id = "burst-j1-gpu@desk";
  own.pod.provider = "ssh";
  own.pod.price_source = "owned (config)";
  own.usd = 0.25;
  PodCost cloud;
  cloud.pod.pod_id = "42";
  cloud.pod.provider = "vast";
  cloud.pod.price_source = "live offer";
  cloud.usd = 1;
  r.pods = {own, cloud};
  const std::string text = report_markdown(r);
  EXPECT_NE(text.find("Ran on your own hosts: `burst-j1-gpu@desk`, $0.25 of owned cost"),
            std::string::npos)
      << text;
  const std::string j = report_json(r);
  EXPECT_NE(j.find("\"owned_host\": true"), std::string::npos) << j;
  r.pods = {cloud};
  EXPECT_EQ(report_markdown(r).find("own hosts"), std::string::npos);
}

// A finished job whose own host disappeared mid-job (job/worker_fleet.h): its pod was never
// confirmed released, and every rendering says so, naming it (and with it the host).
TEST(OwnHostReport, NamesAnOwnHostLostMidJobInEveryRendering) {
  JobReport r;
  r.job.finished_ms = 5000;
  PodCost lost;
  lost.pod.pod_id = "burst-j1-gpu@desk";
  lost.pod.price_source = "owned (config)";
  PodCost kept = lost;
  kept.pod.pod_id = "burst-j1-gpu1@lab";
  kept.confirmed_deleted = true;
  r.pods = {lost, kept};
  const std::string md = report_markdown(r);
  EXPECT_NE(md.find("Lost mid-job: `burst-j1-gpu@desk` (its host stopped answering; `burst reap` "
                    "releases it once it answers)."),
            std::string::npos)
      << md;
  for (const std::string& text : {report_summary(r), report_html(r)})
    EXPECT_NE(text.find("lost mid-job: burst-j1-gpu@desk (its host stopped answering"),
              std::string::npos)
        << text;
  EXPECT_EQ(lost_own_host_pods(r), "burst-j1-gpu@desk");
  // The recommendation does not say it may bill: nothing is rented; a cloud pod left goes first.
  auto reap_line = [](const JobReport& rep) {
    for (const Recommendation& x : recommend(rep))
      if (x.id == "deletion-unconfirmed") return x.text;
    return std::string();
  };
  EXPECT_NE(reap_line(r).find("burst-j1-gpu@desk on your own host was not released (its host did "
                              "not answer); it bills no one"),
            std::string::npos)
      << reap_line(r);
  PodCost cloud;
  cloud.pod.pod_id = "rp-77";
  cloud.pod.price_source = "offer";
  JobReport both = r;
  both.pods.push_back(cloud);
  EXPECT_NE(reap_line(both).find("rp-77 was not confirmed deleted and may still bill"),
            std::string::npos)
      << reap_line(both);
  r.job.finished_ms = 0;  // while the job runs, its pods are not lost
  EXPECT_EQ(report_markdown(r).find("Lost mid-job"), std::string::npos);
}

// Two own hosts: "desk" (one RTX 4090, owned cost from config) and "lab" (two A100 80GB, cost
// derived), each a real sshd on loopback.
class OwnHosts : public ::testing::Test {
 protected:
  void SetUp() override {
    if (find_sshd().empty()) GTEST_SKIP() << "SKIPPED: no sshd (scripts/setup installs it)";
    key_ = dir_.path() + "/id_ed25519";
    desk_ = std::make_unique<OwnHostSshd>(dir_.path() + "/desk", key_,
                                          "NVIDIA GeForce RTX 4090, 24564 MiB\n");
    lab_ = std::make_unique<OwnHostSshd>(
        dir_.path() + "/lab", key_,
        "NVIDIA A100-SXM4-80GB, 81920 MiB\nNVIDIA A100-SXM4-80GB, 81920 MiB\n");
    ASSERT_TRUE(desk_->start());
    ASSERT_TRUE(lab_->start());
    SshProviderOptions o;
    OwnHostConfig desk;
    desk.name = "desk";
    desk.address = "127.0.0.1";
    desk.port = desk_->port();
    desk.usd_per_hour = 0.05;
    OwnHostConfig lab = desk;
    lab.name = "lab";
    lab.port = lab_->port();
    lab.usd_per_hour.reset();
    lab.work_dir = lab_->dir() + "/work";  // an absolute work dir; desk's is ~/.burst
    o.hosts = {desk, lab};
    o.default_key = key_;
    o.default_user = "root";
    auto catalog = load_gpu_catalog("");
    ASSERT_TRUE(catalog.ok());
    o.catalog = *catalog;
    hosts_ = o.hosts;
    catalog_ = *catalog;
    provider_ = make_ssh_provider(o, make_libssh_connector(), clock_);
  }

  PodRequest request(const std::string& name, const std::string& volume_id) {
    PodRequest r;
    r.name = name;
    r.job_id = "j1";
    r.gpu_type = "RTX_4090";
    r.volume_id = volume_id;
    return r;
  }

  std::string desk_work() const { return desk_->home() + "/.burst"; }

  TempDir dir_;
  std::string key_;
  std::unique_ptr<OwnHostSshd> desk_, lab_;
  std::vector<OwnHostConfig> hosts_;
  std::vector<GpuSpec> catalog_;
  SystemClock clock_;
  std::unique_ptr<Provider> provider_;
};

TEST_F(OwnHosts, EachHostThatAnswersOffersItsGpusAtItsOwnedCost) {
  auto offers = provider_->offers(true);
  ASSERT_TRUE(offers.ok()) << offers.error().message;
  ASSERT_EQ(offers->size(), 2u);
  const Offer& desk = (*offers)[0];
  EXPECT_EQ(desk.provider, "ssh");
  EXPECT_EQ(desk.region, "desk");
  EXPECT_EQ(desk.gpu_type, "RTX_4090");
  EXPECT_EQ(desk.gpu_count, 1);
  EXPECT_DOUBLE_EQ(desk.usd_per_hour, 0.05);
  EXPECT_TRUE(desk.available);
  const Offer& lab = (*offers)[1];
  EXPECT_EQ(lab.gpu_type, "A100_80GB");
  EXPECT_EQ(lab.gpu_count, 2);
  EXPECT_NEAR(lab.usd_per_hour, own_host_usd_per_hour(hosts_[1], catalog_, "A100_80GB", 2), 1e-12);
  EXPECT_GT(lab.usd_per_hour, 0);
  EXPECT_EQ(lab.price_source, "owned (derived)");
  EXPECT_TRUE(provider_->offers(false)->empty());  // no CPU pods

  lab_->stop();  // a host that does not answer makes no offer
  offers = provider_->offers(true);
  ASSERT_TRUE(offers.ok());
  ASSERT_EQ(offers->size(), 1u);
  EXPECT_EQ((*offers)[0].region, "desk");
}

TEST_F(OwnHosts, APodHoldsTheHostsLockAndItsDeleteStopsItsProcessesAndReleasesIt) {
  auto volume = provider_->ensure_volume("burst-vol", 10, "desk");
  ASSERT_TRUE(volume.ok()) << volume.error().message;
  EXPECT_EQ(volume->id, "burst-vol@desk");
  auto pod = provider_->create_pod(request("burst-iabcdef0123-j1-gpu", volume->id));
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(pod->id, "burst-iabcdef0123-j1-gpu@desk");
  EXPECT_EQ(pod->state, PodState::kRunning);
  EXPECT_EQ(pod->ssh.port, desk_->port());
  EXPECT_EQ(pod->ssh.identity_file, key_);
  EXPECT_EQ(pod->work_dir, desk_work() + "/jobs/burst-iabcdef0123-j1-gpu");
  EXPECT_EQ(pod->volume_path, desk_work() + "/volumes/burst-vol");
  EXPECT_TRUE(fs::is_directory(pod->work_dir));
  std::ifstream holder(desk_work() + "/lock/pod");
  std::string held;
  std::getline(holder, held);
  EXPECT_EQ(held, "burst-iabcdef0123-j1-gpu");
  auto again = provider_->get_pod(pod->id);  // what the runner polls and reattaches to
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->state, PodState::kRunning);
  EXPECT_EQ(again->volume_path, pod->volume_path);
  EXPECT_EQ(again->work_dir, pod->work_dir);
  EXPECT_EQ(again->gpu_type, "RTX_4090");

  // The host is busy now: no offer from it, a second job's create is refused, the list names it.
  auto offers = provider_->offers(true);
  ASSERT_TRUE(offers.ok());
  EXPECT_FALSE((*offers)[0].available);
  EXPECT_TRUE((*offers)[1].available);
  auto second = provider_->create_pod(request("burst-iabcdef0123-j2-gpu", volume->id));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.error().code, ErrorCode::kNoCapacity);  // the runner tries its fallback
  EXPECT_NE(second.error().message.find("busy (held by burst-iabcdef0123-j1-gpu)"),
            std::string::npos)
      << second.error().message;
  auto listed = provider_->list_pods();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].id, pod->id);
  EXPECT_EQ((*listed)[0].gpu_type, "RTX_4090");

  // A step of the job: a session leader whose pid is in the pod's dir, as the runner starts it.
  std::ofstream(pod->volume_path + "/kept") << "outputs";
  const std::string pid_file = pod->work_dir + "/run.pid";
  ASSERT_EQ(std::system(("setsid sh -c 'echo $$ > " + pid_file + "; exec sleep 300' &").c_str()),
            0);
  int pid = 0;
  for (int i = 0; i < 100 && pid == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::ifstream(pid_file) >> pid;
  }
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(process_alive(pid));

  ASSERT_TRUE(provider_->delete_pod(pod->id).ok());
  for (int i = 0; i < 100 && process_alive(pid); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(process_alive(pid));
  EXPECT_FALSE(fs::exists(pod->work_dir));
  EXPECT_FALSE(fs::exists(desk_work() + "/lock"));
  EXPECT_TRUE(fs::exists(pod->volume_path + "/kept"));  // the volume stays
  auto gone = provider_->get_pod(pod->id);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, ErrorCode::kNotFound);
  EXPECT_TRUE(provider_->delete_pod(pod->id).ok());  // deleting a gone pod succeeds
  EXPECT_TRUE((*provider_->offers(true))[0].available);
  auto volumes = provider_->list_volumes();
  ASSERT_TRUE(volumes.ok());
  ASSERT_EQ(volumes->size(), 1u);
  EXPECT_EQ((*volumes)[0].id, "burst-vol@desk");
}

TEST_F(OwnHosts, AHostThatDisappearsKeepsItsLockUntilItCanBeReachedAgain) {
  auto volume = provider_->ensure_volume("v", 1, "lab");
  ASSERT_TRUE(volume.ok()) << volume.error().message;
  auto pod = provider_->create_pod(request("burst-j9-gpu", volume->id));
  ASSERT_TRUE(pod.ok()) << pod.error().message;
  EXPECT_EQ(pod->work_dir, lab_->dir() + "/work/jobs/burst-j9-gpu");
  lab_->stop();
  // Unreachable is not gone: the runner's delete fails, its record stays for `burst reap`.
  Status del = provider_->delete_pod(pod->id);
  EXPECT_FALSE(del.ok());
  auto unknown = provider_->get_pod(pod->id);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().code, ErrorCode::kNotFound) << unknown.error().message;
  EXPECT_TRUE(fs::exists(lab_->dir() + "/work/lock"));
  ASSERT_TRUE(lab_->start());
  ASSERT_TRUE(provider_->delete_pod(pod->id).ok());
  EXPECT_FALSE(fs::exists(lab_->dir() + "/work/lock"));
  EXPECT_FALSE(fs::exists(pod->work_dir));
  EXPECT_TRUE(fs::is_directory(lab_->dir() + "/work/volumes/v"));
}

}  // namespace
}  // namespace burst
