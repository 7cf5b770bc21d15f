// Reads an offers file (`burst plan --offers FILE`): a JSON array of flat objects
// {provider, gpu_type, gpu_count?, usd_per_hour, spot_usd_per_hour?, region?, available?}.
// null is the same as absent; other keys are ignored. Any other shape is kInvalid, the message
// naming `name`, the offer's index and the field, or the byte where the JSON breaks. The JSON
// adapter: parsed with nlohmann's SAX interface, so no document tree is built.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "burst/provider.h"
#include "burst/result.h"

namespace burst {

Result<std::vector<Offer>> parse_offers_json(std::string_view text, const std::string& name);

}  // namespace burst
