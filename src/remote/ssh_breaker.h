// The circuit breaker of one libssh session (remote/libssh_session.cpp): it breaks a session's
// blocked calls without the pod's help, for abort() and for the no-progress timeout. shutdown(2) on
// the socket makes every libssh wait (channel reads, SFTP replies, window waits) return an error at
// once, and the breaker's state turns that error into the reason. A monitor thread watches the
// calls marked busy: one that has heard zero bytes from the pod for `no_progress_s` is broken the
// same way (kTimeout). Calls that may legitimately sit quiet (a step follower with a should_stop
// callback) are not marked busy. Thread-safe; real (steady) time, as the socket's.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "burst/result.h"

namespace burst::libssh {

class Breaker {
 public:
  Breaker(int fd, std::string where, int no_progress_s);
  ~Breaker() { close(); }
  Breaker(const Breaker&) = delete;
  Breaker& operator=(const Breaker&) = delete;
  // Before the socket is closed: no shutdown(2) may reach a descriptor number reused later.
  void close();

  void abort() { trip(kAborted); }
  bool broken() const { return state_.load() != kNone; }
  // The error a call reports once the session is broken; `otherwise` while it is not.
  Error classify(Error otherwise) const;
  // What a call refuses with once the session is broken.
  Error refused() const;

  // Bytes arrived from the pod.
  void progress() { last_ms_.store(now_ms()); }
  // A call that waits on the pod: while one runs, silence counts against no_progress.
  class Busy {
   public:
    explicit Busy(Breaker& b) : b_(b) {
      if (b_.busy_.fetch_add(1) == 0) b_.progress();
    }
    ~Busy() { b_.busy_.fetch_sub(1); }
    Busy(const Busy&) = delete;
    Busy& operator=(const Busy&) = delete;

   private:
    Breaker& b_;
  };

 private:
  enum State { kNone, kAborted, kNoProgress };
  static int64_t now_ms();
  void trip(State why);
  void watch();

  int fd_;  // guarded by trip_mu_
  std::string identity_;
  std::mutex trip_mu_;
  const std::string where_;
  const int no_progress_s_;
  std::atomic<int> state_{kNone};
  std::atomic<int> busy_{0};
  std::atomic<int64_t> last_ms_{now_ms()};
  std::mutex mu_;
  std::condition_variable cv_;
  bool closing_ = false;
  std::thread monitor_;
};

}  // namespace burst::libssh
