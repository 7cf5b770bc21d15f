// The image-pull term (plan/image_pull.h).
#include "plan/image_pull.h"

#include <cstdio>

namespace burst {

double image_pull_seconds(const ImagePull& image) {
  return image.bytes && *image.bytes > 0 ? *image.bytes / kImagePullBytesPerSecond : 0;
}

std::string image_pull_note(const ImagePull& image) {
  if (image.image.empty()) return "";
  char buf[160];
  if (!image.bytes) {
    return "image size unknown (" +
           (image.unknown_why.empty() ? std::string("not looked up") : image.unknown_why) +
           "): " + image.image + " pulls inside the provider's boot time";
  }
  std::snprintf(buf, sizeof buf, " %.1f GB (%s), pull ~%.0f s at %.0f MB/s prior",
                *image.bytes / 1e9, image.source.c_str(), image_pull_seconds(image),
                kImagePullBytesPerSecond / 1e6);
  return "image " + image.image + buf;
}

}  // namespace burst
