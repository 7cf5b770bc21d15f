// Splits a step's output byte stream into display lines, with bounded memory.
//
// A line ends at "\n", at "\r\n", or at a lone "\r": a progress bar that redraws itself with "\r"
// shows as successive lines (its states), never as one ever-growing line. Empty states between
// two "\r" are skipped; an empty line ended by "\n" is kept. A line longer than `max_line` bytes
// is shown once, cut at a UTF-8 character boundary at most `max_line` bytes in, followed by
// " [line cut at N bytes]"; the rest of it, up to its end, is dropped without being buffered.
//
// complete_bytes() counts the bytes fed up to the end of the last line handed out (a cut line
// counts once it has ended), so a follower that restarts from there neither loses nor repeats a
// line (remote_steps.h). A "\r" counts only once the next byte shows it is not part of "\r\n".
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace burst {

class LineSplitter {
 public:
  static constexpr size_t kMaxLine = 64 * 1024;

  explicit LineSplitter(std::function<void(const std::string&)> emit, size_t max_line = kMaxLine)
      : emit_(std::move(emit)), max_line_(max_line) {}
  void feed(const char* data, size_t len);
  // Hands out what is left of an unfinished line (the stream ended).
  void flush();
  uint64_t complete_bytes() const { return complete_; }

 private:
  void end_line(bool keep_empty);
  void add(const char* data, size_t len);

  std::function<void(const std::string&)> emit_;
  size_t max_line_;
  std::string partial_;
  bool cut_ = false;         // this line was already handed out, cut; its rest is dropped
  bool pending_cr_ = false;  // the last byte was "\r": a line end, or the start of "\r\n"
  uint64_t fed_ = 0, complete_ = 0;
};

}  // namespace burst
