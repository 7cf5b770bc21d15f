// The chaos matrix's fault hook (docs/chaos.md): a FaultObserver that the binaries' main()
// installs from the BURST_FAULT environment variable; nothing inside src/job/ reads the
// environment. The variable's forms:
//
//   BURST_FAULT=<point>:kill          SIGKILL this process when it first reaches <point>
//   BURST_FAULT=<point>:pause:<dir>   write <dir>/<point>.reached, then wait (at most 120 s) for
//                                     <dir>/<point>.go to exist, then go on
//
// Points: burst/fault_observer.h. The hook fires at most once per process.
#pragma once

#include <memory>
#include <string>

#include "burst/fault_observer.h"

namespace burst {

// The hook for `value` (BURST_FAULT's text), or nullptr when it is empty or malformed (then the
// job runs with no fault observer at all).
std::unique_ptr<FaultObserver> make_env_fault_hook(const std::string& value);

}  // namespace burst
