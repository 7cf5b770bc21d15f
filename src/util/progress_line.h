// The items a pod's program reports done, from its output: a line "BURST_PROGRESS <done>/<total>"
// (after an optional worker tag "[w<i>] ") is a report. Read by `burst run`'s live status line
// (cli/live_status.h) and by the dashboard's job page, so both count items the same way. The
// text comes from an untrusted pod: anything else is not a report (tests/fuzz covers it).
#pragma once

#include <optional>
#include <string_view>
#include <utility>

namespace burst {

struct ItemsProgress {
  long done = 0;
  long total = 0;
};

// Splits "[w3] rest" into ("[w3] ", "rest"); a line without a tag has tag "".
std::pair<std::string_view, std::string_view> progress_line_tag(std::string_view line);
// `s` without leading and trailing spaces, tabs (and a trailing CR).
std::string_view progress_line_trim(std::string_view s);

// "BURST_PROGRESS 3/10" (spaces around allowed, done <= total, total > 0) after an optional
// worker tag: the numbers; nullopt for any other line.
std::optional<ItemsProgress> parse_progress_line(std::string_view line);

// Every worker's latest report in `log` (lines separated by '\n'), summed; nullopt when none.
std::optional<ItemsProgress> progress_of_log(std::string_view log);

}  // namespace burst
