// Provider API errors counted process-wide, by provider and error kind, for burstd's /metrics
// (burst_provider_api_errors_total). api_call (src/http/api_call.h) notes every failed attempt,
// retried or not: every provider whose driver calls its cloud through ApiCaller is counted (the
// local provider has no API). Thread-safe; counts only grow.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "burst/result.h"

namespace burst {

void note_api_error(const std::string& provider, ErrorCode code);
// (provider, kind) -> count; kind is to_string(ErrorCode): "auth", "rate limited", ...
std::map<std::pair<std::string, std::string>, int64_t> api_error_counts();

}  // namespace burst
