// A value the emulator builds once per distinct input and serves again while that input is
// unchanged. The catalog and offer lists hold thousands of synthetic entries under the
// extra_offers knob (bench/offers_bench.py); building them as a JSON DOM per request cost the
// emulator 0.1-0.5 s of CPU per list, far more than the client under test. Thread-safe: the
// server answers on a pool of threads. Holds one entry (the last key).
#pragma once

#include <memory>
#include <mutex>
#include <string>

namespace burst::fakecloud {

template <class T>
class BuiltOnce {
 public:
  // The value for `key`: the cached one when `key` is the last key asked for, else make().
  template <class Make>
  std::shared_ptr<const T> get(const std::string& key, Make make) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (value_ && key == key_) return value_;
    }
    auto v = std::make_shared<const T>(make());  // built outside the lock
    std::lock_guard<std::mutex> lock(mu_);
    key_ = key;
    value_ = v;
    return v;
  }

 private:
  std::mutex mu_;
  std::string key_;
  std::shared_ptr<const T> value_;
};

}  // namespace burst::fakecloud
