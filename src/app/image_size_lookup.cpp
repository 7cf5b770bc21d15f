// The image's size for a plan (app/image_size_lookup.h).
#include "app/image_size_lookup.h"

#include <chrono>

#include "image/image_ref.h"

namespace burst {

ImagePull image_pull_for(const PipelineSpec& spec, const ImageLookup& lookup) {
  ImagePull out;
  out.image = spec.image;
  if (spec.image_size_gb) {
    out.bytes = *spec.image_size_gb * 1e9;
    out.source = "spec";
    return out;
  }
  Result<ImageRef> ref = parse_image_ref(spec.image);
  if (!ref) {
    out.unknown_why = ref.error().message;
    return out;
  }
  const std::string key = ref->canonical();
  const int64_t now_ms = lookup.clock ? std::chrono::duration_cast<std::chrono::milliseconds>(
                                            lookup.clock->now().time_since_epoch())
                                            .count()
                                      : 0;
  const bool asks = lookup.http && lookup.clock;
  if (lookup.store) {
    auto cached = lookup.store->get_image_size(key);
    if (cached.ok() && *cached && (*cached)->fetched_ms <= now_ms + 60'000) {
      const ImageSizeRecord& c = **cached;
      const int64_t age = now_ms - c.fetched_ms;
      if (c.failure.empty() && age < kImageSizeTtlMs) {
        out.bytes = static_cast<double>(c.bytes);
        out.source =
            "registry";  // as when it was asked: `burst plan` and `burst run` print one plan
        return out;
      }
      // A recent failure stands until it expires: the plan does not wait on the registry again.
      if (!c.failure.empty() && age < kImageFailureTtlMs && asks) {
        out.unknown_why = c.failure;  // as when it was asked: one plan for plan and run
        return out;
      }
    }
  }
  if (!asks) {
    out.unknown_why = lookup.off_why;
    out.silent = true;
    return out;
  }
  Result<int64_t> bytes = fetch_image_bytes(*lookup.http, *lookup.clock, *ref, lookup.registry);
  if (!bytes) {
    out.unknown_why = std::string(to_string(bytes.error().code)) + ": " + bytes.error().message;
    if (lookup.store) (void)lookup.store->put_image_size({key, 0, now_ms, out.unknown_why});
    return out;
  }
  out.bytes = static_cast<double>(*bytes);
  out.source = "registry";
  // A cache that cannot be written costs the next plan one more lookup, nothing else.
  if (lookup.store) (void)lookup.store->put_image_size({key, *bytes, now_ms, ""});
  return out;
}

}  // namespace burst
