#include "burst/remote.h"

namespace burst {

Result<std::unique_ptr<RemoteSession>> connect_with_retry(RemoteConnector& connector,
                                                          SshTarget& target, Clock& clock,
                                                          MonoTime deadline,
                                                          const std::function<bool()>& should_stop,
                                                          bool auth_is_final) {
  Duration wait(250);
  while (true) {
    if (should_stop && should_stop()) return make_error(ErrorCode::kInterrupted, "interrupted");
    auto session = connector.connect(target);
    if (session.ok()) return session;
    // A changed host key or an unreadable private key will not fix itself by waiting; a refused
    // key may (cloud images install authorized_keys while they boot), so that one is retried.
    if (session.error().code == ErrorCode::kInvalid) return session;
    if (auth_is_final && session.error().code == ErrorCode::kAuth) return session;
    if (clock.mono_now() + wait >= deadline)
      return with_context(session.error(), "gave up waiting for SSH");
    clock.sleep_for(wait);
    wait = std::min(wait * 2, Duration(2000));
  }
}

}  // namespace burst
