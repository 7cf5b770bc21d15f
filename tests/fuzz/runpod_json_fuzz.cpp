// Fuzzes the RunPod driver's response parsing (providers/runpod/runpod_json.cpp, and the GraphQL
// answers of runpod_graphql.cpp) with arbitrary
// bodies: every parser that takes a body, and those that take a parsed value. Contract: a body
// that is not the documented shape is an error value, never an exception, a crash or UB.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "runpod/runpod_graphql.h"
#include "runpod/runpod_json.h"

using namespace burst::runpod;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  (void)problem_message(body);
  (void)is_no_capacity(400, body);
  auto pods = parse_pod_list(body);
  if (!pods.ok()) FUZZ_CHECK(!pods.error().message.empty());
  auto volumes = parse_volume_list(body);
  if (!volumes.ok()) FUZZ_CHECK(!volumes.error().message.empty());
  json j = json::parse(body, nullptr, false);
  if (!j.is_discarded()) {
    (void)parse_pod(j);
    (void)parse_volume(j);
  }
  // GraphQL (spot pods): minimum bids and podRentInterruptable's answer.
  auto bids = parse_min_bids(body);
  if (bids.ok())
    for (const auto& [id, bid] : *bids) FUZZ_CHECK(bid > 0 && bid_per_gpu(bid, 0) >= bid);
  else
    FUZZ_CHECK(!bids.error().message.empty());
  auto rented = parse_rent_answer(body);
  if (rented.ok())
    FUZZ_CHECK(!rented->empty());
  else
    FUZZ_CHECK(!rented.error().message.empty());
  FUZZ_CHECK(graphql_errors(body).size() <= 303);
  (void)pod_state(body);
  (void)runpod_id_for(catalog_name(body));
  return 0;
}
