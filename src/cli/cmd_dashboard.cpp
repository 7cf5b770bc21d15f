// `burst dashboard`: burstd's dashboard in a browser without a TCP listener on burstd. Opens a
// port on 127.0.0.1 that forwards to burstd's Unix socket (client/dashboard_proxy.h) and prints a
// link with a one-time token; runs until Ctrl-C or SIGTERM.
#include <signal.h>

#include <iostream>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "client/daemon_client.h"
#include "client/dashboard_proxy.h"

namespace burst {

int cmd_dashboard(const DashboardArgs& args) {
  const std::string socket = daemon::resolve_socket(args.socket);
  daemon::DaemonClient client(socket);
  if (auto health = client.get("/v1/health"); !health.ok())
    return fail(health.error(), ErrorOrigin::kDaemon);
  // The proxy's threads inherit the mask: only this thread takes SIGINT and SIGTERM.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  daemon::DashboardProxy proxy(socket);
  if (Status st = proxy.start(args.port); !st.ok()) return fail(st.error());
  std::cout << "dashboard: " << proxy.url() << "\n(the link works once; Ctrl-C stops)" << std::endl;
  int sig = 0;
  sigwait(&stop_signals, &sig);
  proxy.stop();
  return kExitOk;
}

}  // namespace burst
