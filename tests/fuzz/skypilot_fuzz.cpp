// Fuzzes the SkyPilot task reader (src/spec/skypilot_*, libyaml underneath) with arbitrary
// text, forced to the SkyPilot format, then `burst convert`'s writer on what it accepts.
// Contract: any input yields a spec or a list of errors; nothing throws, crashes or hangs; a
// failure always says why; an accepted spec converts to a burst spec that reads back.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "burst/spec.h"
#include "burst/spec_formats.h"
#include "fuzz_check.h"
#include "registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<burst::SpecError> errors;
  burst::SpecLoadOptions options;
  options.format = burst::SpecFormat::kSkyPilot;
  options.providers = burst::provider_names();
  options.for_run = false;
  // A path that does not exist, so workdir checks look at nothing real.
  burst::SpecReadInfo info;
  burst::Result<burst::PipelineSpec> spec =
      burst::parse_spec(text, "/nonexistent/burst-fuzz/task.yaml", &errors, options, &info);
  if (!spec.ok()) {
    FUZZ_CHECK(!errors.empty() || !spec.error().message.empty());
    return 0;
  }
  // A synced directory must exist to read back, and nothing under /nonexistent does.
  if (!spec->code.dir.empty()) return 0;
  const std::string converted = burst::write_spec_yaml(*spec, info);
  burst::SpecLoadOptions native;
  native.format = burst::SpecFormat::kBurst;
  native.providers = options.providers;
  native.for_run = false;
  burst::Result<burst::PipelineSpec> back =
      burst::parse_spec(converted, "/nonexistent/burst-fuzz/task.yaml", &errors, native, nullptr);
  FUZZ_CHECK(back.ok());
  return 0;
}
