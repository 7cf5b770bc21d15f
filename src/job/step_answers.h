// Parsing the pod's short answers to the step supervisor's commands (remote_steps.h). A pod is
// a stranger's machine: each answer has a size limit (kMaxAnswer; remote_steps.cpp stops reading
// past it) and an exact shape, and anything else is an error that says what was expected.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "burst/result.h"

namespace burst {

// The most bytes burst reads of any such answer: a path pair, a status, a yes/no.
constexpr size_t kMaxAnswer = 16 * 1024;

struct ProbeAnswer {
  std::string volume;
  std::string pod_dir;
};

// "<volume>\0<pod dir>\0" (probe_pod_command): two non-empty paths of at most 4096 bytes, and
// nothing after them. NUL framing, so no byte of a path can break it.
Result<ProbeAnswer> parse_probe_answer(std::string_view text);

// A step's exit status file: a decimal integer 0..255 and an optional newline, nothing else.
Result<int> parse_step_status(std::string_view text);

// "yes\n" or "no\n" (the newline optional): true for yes.
Result<bool> parse_yes_no(std::string_view text);

}  // namespace burst
