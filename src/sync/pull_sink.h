// The local end of a pull's transfer (docs/sync.md): LocalSink writes and hashes on the calling
// thread; BackgroundSink hashes and writes a streamed file on a second thread, beside the reads
// from the SSH channel. Both write to a descriptor the caller opened (PullDest) and never write
// more than they are given: the caller bounds what it gives by the listed size.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "burst/result.h"
#include "crypto/sha256.h"

namespace burst {

// Writes bytes to a local file descriptor, hashing them.
struct LocalSink {
  int fd = -1;
  Sha256 hash;
  Status write(const char* d, size_t n, const std::string& p) {
    hash.update(d, n);
    return write_raw(d, n, p);
  }
  Status write_raw(const char* d, size_t n, const std::string& p) {
    while (n > 0) {
      ssize_t w = ::write(fd, d, n);
      if (w < 0)
        return make_error(ErrorCode::kInternal, "write " + p + ": " + std::strerror(errno));
      d += w;
      n -= static_cast<size_t>(w);
    }
    return Status::Ok();
  }
};

// Hashes and writes a streamed file on a second thread, so that the SHA-256 and the disk writes
// run beside the reads from the SSH channel instead of between them. Bytes go over in 1 MiB
// blocks; at most kBlocks are in memory. They are written 128 KiB at a time: 4x fewer write()
// calls than one per SSH packet, while 1 MiB writes cost several times the kernel time on the
// build VM's ext4 (docs/sync.md: dd of 2 GiB, 0.3-0.45 s of system time against 1.7-3.0 s).
class BackgroundSink {
 public:
  static constexpr size_t kBlock = 1 << 20;
  static constexpr size_t kBlocks = 3;
  static constexpr size_t kWrite = 128 << 10;

  BackgroundSink(int fd, Sha256& hash, const std::string& path)
      : fd_(fd), hash_(hash), path_(path) {
    for (size_t i = 0; i < kBlocks; ++i) free_.push_back(std::vector<char>(kBlock));
    worker_ = std::thread([this] { run(); });
  }
  ~BackgroundSink() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  // An empty block to fill; waits while every block is in the worker's hands.
  std::vector<char> take() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !free_.empty(); });
    std::vector<char> b = std::move(free_.front());
    free_.pop_front();
    return b;
  }
  // Hands over the first n bytes of a block from take(); the first write error so far, if any.
  Status give(std::vector<char> block, size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    full_.push_back({std::move(block), n});
    cv_.notify_all();
    return error_;
  }
  // Waits until every block given is hashed and written.
  Status finish() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return full_.empty() && !busy_; });
    return error_;
  }

 private:
  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [&] { return stop_ || !full_.empty(); });
      if (full_.empty()) return;
      auto [block, n] = std::move(full_.front());
      full_.pop_front();
      busy_ = true;
      const bool ok = error_.ok();
      lock.unlock();
      Status st;
      if (ok) {
        hash_.update(block.data(), n);
        LocalSink out;
        out.fd = fd_;
        for (size_t at = 0; at < n && st.ok(); at += kWrite)
          st = out.write_raw(block.data() + at, std::min(kWrite, n - at), path_);
      }
      lock.lock();
      if (!st.ok() && error_.ok()) error_ = st;
      free_.push_back(std::move(block));
      busy_ = false;
      cv_.notify_all();
    }
  }

  const int fd_;
  Sha256& hash_;
  const std::string path_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::vector<char>> free_;
  std::deque<std::pair<std::vector<char>, size_t>> full_;
  bool busy_ = false;
  bool stop_ = false;
  Status error_;
  std::thread worker_;
};

}  // namespace burst
