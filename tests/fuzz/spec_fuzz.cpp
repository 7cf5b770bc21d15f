// Fuzzes the pipeline spec parser (src/spec, libyaml underneath) with arbitrary YAML text.
// Contract: any input yields a spec or a list of errors; nothing throws, crashes or hangs, and a
// failure always says why. An accepted spec holds no more text than the reader's alias bound
// allows (src/yaml/yaml_node.h: 4 x the input's size, at least 64 KiB): aliases cannot amplify.
// The model name an accepted spec gives goes through the shape tables' name matching, as `burst
// validate` and `burst plan` check it (cli/spec_errors.h, spec_refusals): a shape or a reason, and
// a denoiser's work at the spec's size and frames or a reason.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "burst/spec.h"
#include "fuzz_check.h"
#include "registry.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::string> kProviders = burst::provider_names();
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<burst::SpecError> errors;
  // A path that does not exist, so code.dir checks look at nothing real.
  burst::Result<burst::PipelineSpec> spec =
      burst::parse_spec(text, "/nonexistent/burst-fuzz/job.yaml", &errors, kProviders);
  if (!spec.ok()) {
    FUZZ_CHECK(!errors.empty() || !spec.error().message.empty());
    return 0;
  }
  size_t held = spec->run.size() + spec->setup.size() + spec->name.size();
  for (const auto& [name, value] : spec->env) held += name.size() + value.size();
  for (const std::string& e : spec->code.exclude) held += e.size();
  // Twice the bound: a script given as a list is joined with a newline per item (a node each).
  FUZZ_CHECK(held <= 2 * std::max<size_t>(4 * size, 64 * 1024));
  if (!spec->workload.model.empty()) {
    burst::Result<burst::Workload> shaped = burst::with_model_shape(spec->workload);
    FUZZ_CHECK(shaped.ok() || !shaped.error().message.empty());
    // A diffusion workload's size and frames, as spec_refusals checks them: work or a reason.
    if (shaped.ok() && shaped->kind == "diffusion" && shaped->params_b) {
      burst::Result<burst::DiffusionWork> d =
          burst::diffusion_work_of(*shaped, *shaped->params_b * 1e9);
      FUZZ_CHECK(d.ok() ? d->latent_tokens >= 0 : !d.error().message.empty());
    }
  }
  return 0;
}
