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

template <typename R>
R retry(Clock& clock, const RetryPolicy& policy, const std::function<R()>& attempt) {
  const TimePoint deadline = clock.now() + policy.total;
  Duration wait = policy.first_wait;
  while (true) {
    R r = attempt();
    if (r.ok() || !r.error().retryable() || clock.now() + wait > deadline) return r;
    clock.sleep_for(wait);
    wait = std::min(wait * 2, policy.max_wait);
  }
}

}  // namespace burst
