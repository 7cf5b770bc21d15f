// workload.resolution's text: one side, or width x height (burst/spec.h parse_image_size).
#include <charconv>
#include <string>

#include "burst/spec.h"

namespace burst {
namespace {

// A side: digits only, in range; nullopt otherwise.
std::optional<long> side_of(std::string_view text) {
  long v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end || v < kMinImageSide || v > kMaxImageSide)
    return std::nullopt;
  return v;
}

}  // namespace

Result<ImageSize> parse_image_size(const std::string& text) {
  const std::string_view t(text);
  const size_t x = t.find_first_of("xX");
  ImageSize size;
  std::optional<long> width = side_of(t.substr(0, x));
  std::optional<long> height;
  if (x != std::string_view::npos) height = side_of(t.substr(x + 1));
  if (!width || (x != std::string_view::npos && !height))
    return make_error(ErrorCode::kInvalid,
                      "expected a side in pixels (1024) or width x height (1280x720), each "
                      "from " +
                          std::to_string(kMinImageSide) + " to " + std::to_string(kMaxImageSide) +
                          ", got \"" + text + "\"");
  size.width = *width;
  size.height = height;
  return size;
}

}  // namespace burst
