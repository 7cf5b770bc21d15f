// The spec's string rules, free of YAML nodes so other modules (and tests) can reuse them.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "burst/spec.h"
#include "util/suggest.h"

namespace burst::spec {

// ^[a-z0-9][a-z0-9-]{0,62}$: pipeline and volume names (they become pod and volume names).
bool is_valid_name(std::string_view name);

// ^[A-Za-z_][A-Za-z0-9_]*$
bool is_env_name(std::string_view name);

// An image reference with no blank or control byte (docker would refuse it on the pod): the rule
// for `image` and for a SkyPilot file's `image_id: docker:IMAGE`, so a converted spec reads back.
inline constexpr const char* kBadImageRef = "must not contain blanks or control characters";
bool is_valid_image_ref(std::string_view image);

// Names burst sets itself ($BURST_VOLUME and friends).
bool is_reserved_env_name(std::string_view name);

// A remote artefact path: relative with no ".." part and no leading '/', or "$BURST_VOLUME/...".
bool is_valid_artefact_remote(std::string_view remote);

// Why resources.multi_gpu `mode` cannot run `w` ("" when it can): burst splits items across
// replicas, so `replicas` needs workload.items and is not for training (one program, data
// parallel inside it).
std::string multi_gpu_refusal(const Workload& w, std::string_view mode);

// edit_distance and suggest_field (util/suggest.h), as the spec has always named them.
using burst::edit_distance;
using burst::suggest_field;

}  // namespace burst::spec
