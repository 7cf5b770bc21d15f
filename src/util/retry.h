// The one retry policy: exponential backoff on retryable errors, waiting through the Clock, until
// a deadline. Non-retryable errors return at once.
#pragma once

#include <algorithm>
#include <functional>

#include "burst/clock.h"
#include "burst/result.h"

namespace burst {

struct RetryPolicy {
  Duration first_wait{500};
  Duration max_wait{10000};
  Duration total{std::chrono::minutes(5)};
};

// The wait before retry number `attempt` (0 for the first retry): first_wait doubled per attempt,
// capped at max_wait, then "equal jitter": a uniform draw from [half, whole] of that, so clients
// that failed together do not retry together. `jitter01` is a draw from [0, 1].
inline Duration backoff_delay(const RetryPolicy& policy, int attempt, double jitter01) {
  Duration d = policy.first_wait;
  for (int i = 0; i < attempt && d < policy.max_wait; ++i) d *= 2;
  d = std::min(d, policy.max_wait);
  jitter01 = std::clamp(jitter01, 0.0, 1.0);
  return Duration(d.count() / 2 +
                  static_cast<Duration::rep>(jitter01 * (d.count() - d.count() / 2)));
}

template <typename R>
R retry(Clock& clock, const RetryPolicy& policy, const std::function<R()>& attempt) {
  const MonoTime deadline = clock.mono_now() + policy.total;
  Duration wait = policy.first_wait;
  while (true) {
    R r = attempt();
    if (r.ok() || !r.error().retryable() || clock.mono_now() + wait > deadline) return r;
    clock.sleep_for(wait);
    wait = std::min(wait * 2, policy.max_wait);
  }
}

}  // namespace burst
