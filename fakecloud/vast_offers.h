// The Vast emulator's offer search and what its instance routes share with it
// (vast_offers.cpp; the routes: vast_api.cpp). Internal to fakecloud/.
#pragma once

#include <httplib.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api_module.h"
#include "body_cache.h"
#include "cloud_state.h"

namespace burst::fakecloud::vast {

inline constexpr const char* kProvider = "vast";
inline constexpr double kStorageCost = 0.15;  // $/GB/month, the emulator's own number

// Offer quality as the search reports it (REFERENCE §4.2: reliability 0-1, direct_port_count,
// inet_down, cuda_max_good "Maximum supported CUDA version"). Machine 41203 is the marketplace's
// cheap and poor host: unreliable, no direct ports (ssh_direct publishes no port mapping there,
// only the proxy; dstack filters direct_port_count >= 1 for direct SSH), a slow link, and a
// driver whose CUDA is older than a CUDA 12 image needs, so such an image's container does not
// start (the NVIDIA runtime's "unsatisfied condition: cuda>=..." error in status_msg).
struct Machine {
  long id;
  const char* gpu_name;
  int gpus;
  int gpu_ram_mb;
  double usd_per_gpu;  // dph_base per GPU
  const char* geolocation;
  double reliability = 0.995;
  int direct_ports = 16;
  double inet_down = 850;
  double cuda = 12.8;
};

// A machine of the emulator's marketplace; null for an id it does not have.
const Machine* machine_by_id(long id);

// The CUDA version an image's tag names ("...-cuda12.1-...", "cu121", "cuda-12.4"); 0 when none.
double image_cuda(const std::string& image);

// Vast's error shape: {"success":false,"error":<code>,"msg":<text>}; 429 is {"detail":...}.
std::string error_body(int status, const std::string& detail);
// searchOffers answers a missing or refused key with 404; every other path with 401 (0 here).
int refused_key_status(const std::string& method, const std::string& path);
// Answers `status` with Vast's error body, plus the fields of `extra`.
void fail(httplib::Response& res, int status, const std::string& code, const std::string& msg,
          nlohmann::json extra = nlohmann::json::object());

// One offer, as a DOM for the query's filters and as its serialized text for the answer.
struct OfferRow {
  nlohmann::json obj;
  std::string text;
};
using OfferTable = std::vector<OfferRow>;

// A machine's GPUs rented by the account's live instances (machine id -> GPUs in use).
using GpusInUse = std::map<long, int>;

// Every offer at `allocated_storage` GB, on-demand or (`bid`) interruptible, with the account's
// live instances using up their machines' GPUs.
OfferTable offer_table(CloudState& state, double allocated_storage, bool bid);

// One {op: value} condition against an offer's field.
bool matches(const nlohmann::json& have, const nlohmann::json& cond);

// POST /api/v0/bundles/: the query's filters, order and limit over the (cached) offer table.
void search_offers(CloudState& state, BuiltOnce<OfferTable>& cache, const httplib::Request& req,
                   httplib::Response& res);

}  // namespace burst::fakecloud::vast
