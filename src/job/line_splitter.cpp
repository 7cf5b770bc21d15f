#include "job/line_splitter.h"

#include <cstring>

namespace burst {

void LineSplitter::end_line(bool keep_empty) {
  if (!cut_ && (keep_empty || !partial_.empty())) emit_(partial_);
  partial_.clear();
  cut_ = false;
}

void LineSplitter::add(const char* data, size_t len) {
  if (cut_) return;
  const size_t room = max_line_ - partial_.size();
  if (len <= room) {
    partial_.append(data, len);
    return;
  }
  partial_.append(data, room);
  // Cut before a UTF-8 character that the limit would split (at most 3 bytes back).
  size_t at = partial_.size();
  const auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xc0) == 0x80; };
  if (continuation(data[room])) {
    size_t k = at;
    while (k > 0 && at - k < 3 && continuation(partial_[k - 1])) --k;
    if (k > 0 && (static_cast<unsigned char>(partial_[k - 1]) & 0xc0) == 0xc0) at = k - 1;
  }
  partial_.resize(at);
  emit_(partial_ + " [line cut at " + std::to_string(max_line_) + " bytes]");
  partial_.clear();
  partial_.shrink_to_fit();
  cut_ = true;
}

void LineSplitter::feed(const char* data, size_t len) {
  size_t i = 0;
  while (i < len) {
    if (pending_cr_) {
      pending_cr_ = false;
      if (data[i] == '\n') {  // "\r\n": one line end
        ++i;
        ++fed_;
        end_line(true);
        complete_ = fed_;
        continue;
      }
      end_line(false);  // a lone "\r": a progress state
      complete_ = fed_;
    }
    // The run up to the next "\n" or "\r".
    size_t j = i;
    while (j < len && data[j] != '\n' && data[j] != '\r') ++j;
    add(data + i, j - i);
    fed_ += j - i;
    i = j;
    if (i == len) break;
    ++fed_;
    if (data[i++] == '\r') {
      pending_cr_ = true;
    } else {
      end_line(true);
      complete_ = fed_;
    }
  }
}

void LineSplitter::flush() {
  if (!partial_.empty()) emit_(partial_);
  partial_.clear();
  cut_ = false;
  pending_cr_ = false;
}

}  // namespace burst
