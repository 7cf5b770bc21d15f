// The dashboard's only assets, compiled in (no build step, no CDN): its stylesheet and its
// script. The script does live updates only (the job log by long polling, a page's refresh while
// jobs run); every page works without it.
#pragma once

namespace burst::daemon {

extern const char* const kDashboardCss;
extern const char* const kDashboardJs;

}  // namespace burst::daemon
