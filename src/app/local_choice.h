// Running on this machine is a choice the user makes (issue 29, item 5). A provider whose pods
// are processes here (ProviderTraits::runs_here: the local cloud) runs the job's steps as this
// user, with no GPU, and isolates only what docs/providers.md ("What the local cloud isolates")
// lists. A plan also lands there when nobody asked for it: a spec without resources.providers
// (the default provider is the local one), or a SkyPilot task file, which cannot name it.
// `burst run` then says so and asks (and refuses with --yes or without a terminal); burstd
// refuses the job. Naming it is `--provider <it>` or, in a burst spec, resources.providers.
#pragma once

#include <string>
#include <vector>

#include "burst/spec.h"
#include "plan/planner.h"

namespace burst {

// The provider the plan runs on this machine without the user having named it: "" when every
// pod of the plan (GPU, upload, prepare) is on another provider, or when `named` (the --provider
// flags, a burst spec's resources.providers) includes it.
std::string unchosen_here_provider(const Plan& plan, const std::vector<std::string>& named);

// What the user named: the --provider flags, and a burst spec's resources.providers (a SkyPilot
// file's come from its `cloud:`, SkyPilot's list, which has no such provider).
std::vector<std::string> named_providers(const PipelineSpec& spec,
                                         const std::vector<std::string>& flags);

// "runs on THIS machine as alice, no GPU": the user named is this process's (its euid's).
std::string runs_here_line();

}  // namespace burst
