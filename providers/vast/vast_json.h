// Vast.ai JSON in and out: request bodies, the GPU name table, and strict-but-tolerant parsing of
// the responses (nullable fields read as absent; ids are integers; HostPort is a string). Internal
// to the driver. Shapes: shared/provider-apis/vast/openapi.yaml, digested in REFERENCE.md §4.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "burst/provider.h"

namespace burst::vast {

using nlohmann::json;

// {"success":false,"error":"<code>","msg":"<text>"}, {"detail":...}, {"message":...} or plain
// text (429s): the provider's own words.
std::string error_message(const std::string& body);
// Vast answers a vanished or taken offer with 404/410 `no_such_ask` (REFERENCE §4.3, §5).
bool is_no_capacity(int status, const std::string& body);

// One search result, as the driver needs it.
struct VastOffer {
  long id = 0;  // the ask id a create rents
  long machine_id = 0;
  std::string gpu_name;  // Vast's, e.g. "RTX 4090"
  int num_gpus = 0;
  double gpu_ram_mb = 0;
  double dph_total = 0;
  double dph_base = 0;      // the GPU part of dph_total (0: not sent); the rest is storage
  double min_bid = 0;       // the lowest interruptible bid the host takes, $/h per machine; 0: none
  double storage_cost = 0;  // $/GB/month of disk on this machine (REFERENCE §4.2)
  double disk_bw = 0;       // the host disk's read rate, MB/s (REFERENCE §4.2 offer fields)
  double inet_down = 0;     // the host's download rate, Mb/s (REFERENCE §4.2; see to_offer)
  double inet_down_cost = 0;  // $/GB the host bills for downloads (REFERENCE §4.2)
  double inet_up_cost = 0;    // $/GB the host bills for uploads (REFERENCE §4.2)
  std::string geolocation;
  bool rentable = true, rented = false;
};
// {"offers":[...]} strictly: anything else is an error, never "no offers".
Result<std::vector<VastOffer>> parse_offers(const std::string& body);
Offer to_offer(const VastOffer& o);

// Interruptible instances (REFERENCE §4.2 `type: "bid"`, §4.3 `price`: "Bid price per machine (in
// $/hour). Only for interruptible instances"). burst bids the offer's min_bid times this margin:
// Vast runs the highest bid on a machine and pauses the others ("clients set a bid price ... the
// current highest bid determines the instance that runs; any others are paused", vast.ai
// Rental-Types article), so a bid at the floor (what dstack sends) loses to any bid at all,
// while 10% above it still keeps most of the discount (Vast: interruptible "saves 50-80%",
// docs.vast.ai FAQ rental-types). Never above the on-demand GPU price (dph_base): then on-demand
// is the better buy. 0 when the offer has no min_bid.
inline constexpr double kVastBidMargin = 1.10;
double bid_for(const VastOffer& o);
// The offer's spot $/h for the planner: the bid plus the storage part of dph_total.
double spot_usd_per_hour(const VastOffer& o);
// Whether Vast took the instance back: an interruptible instance outbid is stopped by the host,
// and dstack reads cur_state == intended_status == next_state == "stopped" as interrupted
// (REFERENCE §4.4.1; burst never stops an instance itself, it destroys it).
bool instance_preempted(const json& j);

// Offer.region for a Vast offer: "<geolocation> (machine <id>)"; the machine is where a volume
// must live. machine_of() reads it back (0 when the region names no machine).
std::string region_for(const std::string& geolocation, long machine_id);
long machine_of(const std::string& region);
// Volume::note for a volume just created on `machine`: it starts empty (a cold cache), and any
// volume of the same name on other machines (`elsewhere`) is not the one this run uses.
std::string new_volume_note(long machine, const std::vector<long>& elsewhere);

struct VastVolume {
  long id = 0;
  long machine_id = 0;
  std::string name;
  double size_gb = 0;
  std::string geolocation;
};
// {"volumes":[...]} strictly.
Result<std::vector<VastVolume>> parse_volumes(const std::string& body);
// Vast volume names are letters, digits and '_' (at most 64), so burst's names are encoded
// reversibly: '_' -> "__", '-' -> "_d", any other byte -> "_x" + two hex digits.
// "tts-cache" <-> "tts_dcache".
std::string encode_volume_name(const std::string& name);
// rentVolume's answer {"success":true,"volume_name":"V.<id>"} -> id; 0 when it is not that.
long volume_id_from_name(const std::string& body);
std::string decode_volume_name(const std::string& vast_name);

// An Instance (GET /api/v0/instances/{id}/ "instances" object, or a v1 list item). Its
// status_msg becomes Pod::status_note (printable ASCII, at most 200 characters).
Result<Pod> parse_instance(const json& j);
// actual_status as a PodState; a start error (below) is kStopping: the instance will not run.
PodState instance_state(const json& j);
// Whether the instance reports that its container could not start: actual_status still
// "created" (or not yet set, or "loading") while status_msg carries the container runtime's error.
// dstack fails the instance when actual_status == "created" and status_msg contains
// ": OCI runtime create failed:" (REFERENCE §4.4.1); burst reads the same words.
bool start_error(const json& j);
// One page of GET /api/v1/instances/: the instances and next_token ("" at the end), strictly.
struct InstancePage {
  std::vector<Pod> pods;
  std::string next_token;
};
Result<InstancePage> parse_instance_page(const std::string& body);

// Account SSH keys (GET /api/v0/ssh/): the public keys registered, strictly.
Result<std::vector<std::string>> parse_ssh_keys(const std::string& body);

// Vast's GPU name (and per-GPU RAM, which tells A100 40 GB from 80 GB) -> burst's catalog name.
// Names not in the table become upper-case underscored ("RTX 4070S Ti" -> "RTX_4070S_TI").
std::string catalog_name(const std::string& vast_gpu_name, double gpu_ram_mb = 0);
// Every Vast name that maps to the catalog name (for a search's gpu_name "in"); empty when none.
std::vector<std::string> vast_names_for(const std::string& catalog_name);

}  // namespace burst::vast
