// The spec's image and its compressed size for the plan's image-pull term (plan/image_pull.h),
// looked up once per plan, the same way for `burst plan`, `burst run` and burstd (all plan
// through app/plan_with_history.h):
//   1. the spec's image_size_gb, when it states one (source "spec");
//   2. the store's cached answer (Store::get_image_size) younger than kImageSizeTtlMs, said as
//      the registry's (source "registry"), so a run prints the plan `burst plan` printed;
//   3. the image's registry (image/registry_client.h) within a short deadline, cached in the
//      store (source "registry"); a failure is cached too, for kImageFailureTtlMs.
// On failure the size stays unknown with the reason ("image size unknown (registry: ...)"),
// and the plan falls back to the provider's boot prior, which holds a typical pull. Lookups are
// off when ImageLookup::http is null (off_why says why): BURST_IMAGE_REGISTRY=off, or no cloud
// of the plan pulls from a registry (the local cloud, emulated clouds on loopback).
#pragma once

#include <cstdint>
#include <string>

#include "burst/clock.h"
#include "burst/http.h"
#include "burst/spec.h"
#include "burst/store.h"
#include "image/registry_client.h"
#include "plan/image_pull.h"

namespace burst {

inline constexpr int64_t kImageSizeTtlMs = 24LL * 3600 * 1000;  // a day
// A failed lookup is remembered this long: a registry that is down or a private image costs one
// plan its deadline, not every plan.
inline constexpr int64_t kImageFailureTtlMs = 10LL * 60 * 1000;
// The whole lookup's deadline: a plan never waits long on a registry.
inline constexpr Duration kImageLookupDeadline{3000};

struct ImageLookup {
  Store* store = nullptr;        // the cache; null: none (planning creates no store)
  HttpClient* http = nullptr;    // null: lookups off
  const Clock* clock = nullptr;  // required when http is set
  RegistryOptions registry;      // base_url override and deadline
  std::string off_why = "registry lookups are off";
};

ImagePull image_pull_for(const PipelineSpec& spec, const ImageLookup& lookup);

}  // namespace burst
