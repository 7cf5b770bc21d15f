// Interruptible instances: the bid burst sends, the spot price it plans with, and an outbid
// instance recognised (vast_json.h; docs/providers.md, "Spot pods").
#include <algorithm>
#include <string>

#include "vast/vast_json.h"

namespace burst::vast {
namespace {

// A string field without the stray whitespace Vast may send (REFERENCE §4.4); "" when absent.
std::string text(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  const std::string& s = it->get_ref<const std::string&>();
  const size_t a = s.find_first_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

}  // namespace

double bid_for(const VastOffer& o) {
  if (o.min_bid <= 0) return 0;
  double bid = o.min_bid * kVastBidMargin;
  if (o.dph_base > 0) bid = std::min(bid, o.dph_base);
  return std::max(bid, o.min_bid);
}

double spot_usd_per_hour(const VastOffer& o) {
  const double bid = bid_for(o);
  if (bid <= 0) return 0;
  const double storage = o.dph_base > 0 ? std::max(0.0, o.dph_total - o.dph_base) : 0;
  return bid + storage;
}

bool instance_preempted(const json& j) {
  return text(j, "cur_state") == "stopped" && text(j, "intended_status") == "stopped" &&
         text(j, "next_state") == "stopped";
}

}  // namespace burst::vast
