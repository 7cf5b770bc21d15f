// "Did you mean": the known name a mistyped one most likely meant. Used by the YAML field reader
// (unknown fields) and the CLI (unknown subcommands).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace burst {

// Levenshtein distance.
size_t edit_distance(std::string_view a, std::string_view b);

// The known field a mistyped key most likely meant: the closest within edit distance 2 (and less
// than the key's length, so "x" suggests nothing), else one the key is a prefix of or that is a
// prefix of the key. nullopt when nothing is close.
std::optional<std::string> suggest_field(std::string_view key,
                                         std::span<const std::string_view> known);

}  // namespace burst
