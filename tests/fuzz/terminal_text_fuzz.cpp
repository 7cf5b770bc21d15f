// Fuzzes terminal_safe (src/util/terminal_text.h), which every line of pod output passes through
// before it reaches the user's terminal or a log. Invariants: the output holds no control byte but
// tab and newline, every ESC in it starts an SGR sequence, it is well-formed UTF-8 without C1
// controls, and escaping it again changes nothing. The same bytes, read as a job's log, through
// the items-progress reader (src/util/progress_line.h) the live status and the dashboard use: a
// count it finds has 0 < total and done <= total, whatever the pod printed.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "util/progress_line.h"
#include "util/terminal_text.h"

namespace {

bool is_sgr_at(const std::string& s, size_t i, size_t* len) {
  if (i + 2 >= s.size() || s[i + 1] != '[') return false;
  for (size_t j = i + 2; j < s.size() && j - i < 64; ++j) {
    if (s[j] == 'm') {
      *len = j - i + 1;
      return true;
    }
    if (!((s[j] >= '0' && s[j] <= '9') || s[j] == ';' || s[j] == ':')) return false;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::string out = burst::terminal_safe(in);
  FUZZ_CHECK(out.size() <= 4 * size);
  for (size_t i = 0; i < out.size();) {
    const unsigned char c = static_cast<unsigned char>(out[i]);
    if (c == 0x1b) {
      size_t len = 0;
      FUZZ_CHECK(is_sgr_at(out, i, &len));
      i += len;
      continue;
    }
    FUZZ_CHECK(c >= 0x20 || c == '\t' || c == '\n');
    FUZZ_CHECK(c != 0x7f);
    if (c < 0x80) {
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence that is not a C1 control (U+0080..U+009F = C2 80..C2 9F).
    const size_t n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
    FUZZ_CHECK(c >= 0xc2 && c <= 0xf4);
    FUZZ_CHECK(i + n <= out.size());
    for (size_t k = 1; k < n; ++k)
      FUZZ_CHECK((static_cast<unsigned char>(out[i + k]) & 0xc0) == 0x80);
    FUZZ_CHECK(!(c == 0xc2 && static_cast<unsigned char>(out[i + 1]) < 0xa0));
    i += n;
  }
  FUZZ_CHECK(burst::terminal_safe(out) == out);
  if (std::optional<burst::ItemsProgress> p = burst::progress_of_log(in)) {
    FUZZ_CHECK(p->total > 0);
    FUZZ_CHECK(p->done >= 0 && p->done <= p->total);
  }
  return 0;
}
