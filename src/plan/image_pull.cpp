// The image-pull term (plan/image_pull.h).
#include "plan/image_pull.h"

#include <cstdio>

namespace burst {

namespace {

bool link_bound(double link_bps) { return link_bps > 0 && link_bps < kImagePullBytesPerSecond; }

}  // namespace

double image_pull_seconds(const ImagePull& image, double link_bps) {
  const double rate = link_bound(link_bps) ? link_bps : kImagePullBytesPerSecond;
  return image.bytes && *image.bytes > 0 ? *image.bytes / rate : 0;
}

std::string image_pull_note(const ImagePull& image, double link_bps) {
  if (image.image.empty()) return "";
  char buf[160];
  if (!image.bytes) {
    return "image size unknown (" +
           (image.unknown_why.empty() ? std::string("not looked up") : image.unknown_why) +
           "): " + image.image + " pulls inside the provider's boot time";
  }
  if (link_bound(link_bps)) {
    std::snprintf(buf, sizeof buf,
                  " %.1f GB (%s), pull ~%.0f s at %.1f MB/s (the offer's download link, %.0f Mb/s)",
                  *image.bytes / 1e9, image.source.c_str(), image_pull_seconds(image, link_bps),
                  link_bps / 1e6, link_bps * 8 / 1e6);
    return "image " + image.image + buf;
  }
  std::snprintf(buf, sizeof buf, " %.1f GB (%s), pull ~%.0f s at %.0f MB/s prior",
                *image.bytes / 1e9, image.source.c_str(), image_pull_seconds(image),
                kImagePullBytesPerSecond / 1e6);
  return "image " + image.image + buf;
}

}  // namespace burst
