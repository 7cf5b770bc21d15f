#pragma once

#include <string>

#include "burst/spec.h"
#include "burst/spec_formats.h"

namespace burst {

// Loads a spec, printing every problem to stderr ("burst: " prefix-free, one per line; in --json
// mode one error object, exit_codes.h), and on success its notes ("note: file:line:col: field:
// ..."), e.g. what a SkyPilot file sets that burst does not use.
Result<PipelineSpec> load_spec_or_print(const std::string& path, const SpecLoadOptions& options,
                                        SpecReadInfo* info = nullptr);
// The same for YAML text in memory (`burst run -- CMD`'s spec); `path` names it in messages.
Result<PipelineSpec> parse_spec_or_print(const std::string& yaml_text, const std::string& path,
                                         const SpecLoadOptions& options,
                                         SpecReadInfo* info = nullptr);
// What the providers a spec names (resources.providers) cannot run, as errors "<path>: why": an
// env value a provider's pods cannot carry (env_refusal, from its registry row). Empty when none
// or when the spec names no provider (the plan then refuses such offers one by one).
std::vector<std::string> provider_refusals(const PipelineSpec& spec);
// provider_refusals, and a workload.model the cost model's shape tables do not know or cannot
// price as named ("<path>:line:col: workload.model: why").
std::vector<std::string> spec_refusals(const PipelineSpec& spec);

// The exit code for load_spec_or_print's error: 4 when the file does not exist, else 2.
int spec_exit_code(const Error& e);

// --format, --env and --max-runtime as the commands take them: "" | "burst" | "skypilot", K=V
// (or K, read from this environment), and a positive duration ("" when not given). Errors name
// the flag.
Result<SpecLoadOptions> spec_options_from_flags(const std::string& format,
                                                const std::vector<std::string>& env, bool for_run,
                                                const std::string& max_runtime = "");

}  // namespace burst
