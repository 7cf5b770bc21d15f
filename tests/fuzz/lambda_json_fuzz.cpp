// Fuzzes the Lambda driver's response parsing (providers/lambda/lambda_json.cpp) with arbitrary
// bodies: the envelope, errors, instances, file systems and instance types. Contract: a body that
// is not the documented shape is an error value, never an exception, a crash or UB.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "lambda/lambda_json.h"

using namespace burst::lambda;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  (void)error_message(body);
  (void)error_code(body);
  auto list = parse_instance_list(body, "ubuntu");
  if (!list.ok()) FUZZ_CHECK(!list.error().message.empty());
  auto fs = parse_filesystem_list(body);
  if (!fs.ok()) FUZZ_CHECK(!fs.error().message.empty());
  auto types = parse_instance_types(body);
  if (types.ok())
    for (const auto& t : *types) FUZZ_CHECK(t.name.rfind("gpu_", 0) == 0);
  if (auto d = data_of(body, "fuzz"); d.ok()) {
    (void)parse_instance(*d, "ubuntu");
    (void)parse_filesystem(*d);
  }
  (void)instance_state(body);
  (void)catalog_name(body);
  return 0;
}
