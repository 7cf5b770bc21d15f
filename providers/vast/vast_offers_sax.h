// Vast's offer search answer read straight from the JSON parser's events into VastOffer, without
// a DOM (vast_offers_sax.cpp); parse_offers (vast_json.h) wraps it with the error. Internal to the
// Vast driver.
#pragma once

#include <string>
#include <vector>

#include "vast/vast_json.h"

namespace burst::vast {

// Appends each offer of {"offers": [...]} to `out`; false when the body is not that documented
// shape (bad JSON, no "offers" array, an offer without an integer id or a gpu_name).
bool read_offers(const std::string& body, std::vector<VastOffer>* out);

}  // namespace burst::vast
