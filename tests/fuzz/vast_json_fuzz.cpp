// Fuzzes the Vast driver's response parsing (providers/vast/vast_json.cpp and
// vast_offers_sax.cpp) with arbitrary bodies: offers (a SAX parser), volumes, instance pages, SSH
// keys, errors; plus the volume-name encoding and the region text it reads back. Contract: a body
// that is not the documented shape is an error value, never an exception, a crash or UB;
// decode(encode(name)) == name.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "vast/vast_json.h"

using namespace burst::vast;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  (void)error_message(body);
  (void)is_no_capacity(404, body);
  if (auto offers = parse_offers(body); offers.ok()) {
    for (const auto& o : *offers) {
      burst::Offer offer = to_offer(o);
      FUZZ_CHECK(machine_of(offer.region) == o.machine_id);
    }
  }
  (void)parse_volumes(body);
  (void)parse_instance_page(body);
  (void)parse_ssh_keys(body);
  json j = json::parse(body, nullptr, false);
  if (!j.is_discarded()) {
    (void)parse_instance(j);
    (void)instance_state(j);
  }
  const std::string encoded = encode_volume_name(body);
  FUZZ_CHECK(decode_volume_name(encoded) == body);
  (void)decode_volume_name(body);
  (void)machine_of(body);
  (void)catalog_name(body, 40000);
  (void)vast_names_for(body);
  return 0;
}
