// Test hook: fault injection at a job's phase boundaries, for the chaos matrix (docs/chaos.md).
// Inert unless BURST_FAULT is set in the environment when the process starts:
//
//   BURST_FAULT=<point>:kill          SIGKILL this process when it first reaches <point>
//   BURST_FAULT=<point>:pause:<dir>   write <dir>/<point>.reached, then wait (at most 120 s) for
//                                     <dir>/<point>.go to exist, then go on
//
// Points: after-create, wait-ssh, mid-sync, mid-setup, mid-run, mid-pull, after-delete,
// mid-upload. Each fires at most once per process. The variable is read once; when it is unset a
// call costs one load and a branch.
#pragma once

#include <string_view>

namespace burst {

// `point` + `suffix` names the place ("mid-" + "run"); the suffix avoids building a string.
void fault_point(std::string_view point, std::string_view suffix = {});

}  // namespace burst
