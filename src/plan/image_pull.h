// The image-pull term of a pod's cold start (docs/cost-model.md, "Cold start"): the image's
// compressed bytes over a pull rate. Where the bytes come from is the caller's business
// (app/image_size_lookup.h: the spec's image_size_gb, else the image's registry, cached in the
// store); this says what the plan adds and how its note reads. Pure arithmetic.
#pragma once

#include <optional>
#include <string>

namespace burst {

// A prior, the same for every provider: no provider states its pull rate, and no pull has been
// measured by burst yet (docs/cost-model.md says so). 100 MB/s: 8 GB pulls in 80 s.
inline constexpr double kImagePullBytesPerSecond = 100e6;

struct ImagePull {
  std::string image;            // as the spec names it
  std::optional<double> bytes;  // compressed, linux/amd64; unset: unknown
  std::string source;           // "spec" | "registry" (asked now or cached)
  std::string unknown_why;      // why the size is unknown ("registry lookups are off")
  // Unknown because nothing was asked (lookups off, or no pod pulls from a registry): the plan
  // then says nothing of the image, as before sizes were known.
  bool silent = false;
};

// Seconds to pull the image; 0 when its size is unknown (the provider's prior then covers it).
// `link_bps` > 0: the offer's download link (Offer::download_bps), which the pull cannot beat.
double image_pull_seconds(const ImagePull& image, double link_bps = 0);

// "image runpod/pytorch:2.1 7.9 GB (registry), pull ~79 s at 100 MB/s prior" (with a slower
// link: "... pull ~640 s at 12.5 MB/s (the offer's download link, 100 Mb/s)"), or
// "image size unknown (why): IMAGE pulls inside the provider's boot time"; "" without an image.
std::string image_pull_note(const ImagePull& image, double link_bps = 0);

}  // namespace burst
