// The spec's string rules, free of yaml-cpp so other modules (and tests) can reuse them.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace burst::spec {

// ^[a-z0-9][a-z0-9-]{0,62}$: pipeline and volume names (they become pod and volume names).
bool is_valid_name(std::string_view name);

// ^[A-Za-z_][A-Za-z0-9_]*$
bool is_env_name(std::string_view name);

// Names burst sets itself ($BURST_VOLUME and friends).
bool is_reserved_env_name(std::string_view name);

// A remote artefact path: relative with no ".." part and no leading '/', or "$BURST_VOLUME/...".
bool is_valid_artefact_remote(std::string_view remote);

// Levenshtein distance.
size_t edit_distance(std::string_view a, std::string_view b);

// The known field a mistyped key most likely meant: the closest within edit distance 2 (and less
// than the key's length, so "x" suggests nothing), else one the key is a prefix of or that is a
// prefix of the key. nullopt when nothing is close.
std::optional<std::string> suggest_field(std::string_view key,
                                         std::span<const std::string_view> known);

}  // namespace burst::spec
