#include "job/volume_binding.h"

#include <vector>

namespace burst {
namespace {

const Volume* by_id(const std::vector<Volume>& vols, const std::string& id) {
  for (const Volume& v : vols)
    if (v.id == id) return &v;
  return nullptr;
}

// The listed volume as the run sees it: the spec's name and the mapping's region (a provider's list
// may spell the region differently, or not know the name at all).
Volume as_bound(const Volume& listed, const VolumeRecord& row) {
  Volume v = listed;
  v.name = row.spec_name;
  v.region = row.region;
  if (v.size_gb == 0) v.size_gb = row.size_gb;
  if (v.usd_per_gb_month == 0) v.usd_per_gb_month = row.usd_per_gb_month;
  return v;
}

}  // namespace

Result<std::optional<Volume>> find_bound_volume(PodStore& store, Provider& provider,
                                                const std::string& name,
                                                const std::string& region) {
  auto rows = store.live_volumes();
  if (!rows.ok()) return rows.error();
  auto vols = provider.list_volumes();
  if (!vols.ok()) return vols.error();
  // The row of this region first, then one of another region (a reattach's new plan may name
  // another region than the one the pod's volume was made for).
  for (int pass = 0; pass < 2; ++pass)
    for (const VolumeRecord& r : *rows)
      if (r.provider == provider.name() && r.spec_name == name && !r.volume_id.empty() &&
          (pass == 1 || r.region == region))
        if (const Volume* v = by_id(*vols, r.volume_id)) return std::optional(as_bound(*v, r));
  if (provider.volume_names_listed())
    for (const Volume& v : *vols)
      if (v.name == name && v.region == region) return std::optional(v);
  return std::optional<Volume>();
}

Result<Volume> bind_volume(PodStore& store, Provider& provider, Clock& clock,
                           const std::string& name, int size_gb, const std::string& region) {
  auto row = store.get_volume(provider.name(), name, region);
  if (!row.ok()) return row.error();
  std::string replaced;  // the recorded id that is gone, if any
  if (row->has_value() && !(*row)->volume_id.empty() && (*row)->state != "deleted") {
    auto vols = provider.list_volumes();
    if (!vols.ok()) return with_context(vols.error(), "list volumes");
    if (const Volume* v = by_id(*vols, (*row)->volume_id)) return as_bound(*v, **row);
    replaced = (*row)->volume_id;
  }
  // None recorded (or it is gone): record the intent, then create (or, where the provider lists
  // names, find by name: a volume made before the store knew it is adopted, not duplicated).
  const int64_t now = to_unix_ms(clock.now());
  VolumeRecord rec;
  rec.provider = provider.name();
  rec.spec_name = name;
  rec.region = region;
  rec.state = "creating";
  rec.size_gb = size_gb;
  rec.created_ms = row->has_value() && replaced.empty() ? (*row)->created_ms : now;
  rec.updated_ms = now;
  if (Status st = store.put_volume(rec); !st.ok()) return with_context(st.error(), "record volume");
  auto made = provider.ensure_volume(name, size_gb, region);
  if (!made.ok()) return made.error();
  rec.volume_id = made->id;
  rec.state = "ready";
  if (made->size_gb > 0) rec.size_gb = made->size_gb;
  rec.usd_per_gb_month = made->usd_per_gb_month;
  rec.updated_ms = to_unix_ms(clock.now());
  if (Status st = store.put_volume(rec); !st.ok()) return with_context(st.error(), "record volume");
  Volume out = *made;
  out.name = name;
  if (out.region.empty()) out.region = region;
  if (!replaced.empty())
    out.note = "the volume recorded for it (" + replaced + ") no longer exists; " +
               (out.note.empty() ? "this one starts empty" : out.note);
  return out;
}

std::string worker_volume_name(const std::string& name, int index) {
  return name + "-w" + std::to_string(index);
}

Result<WorkerPlacement> place_worker(PodStore& store, Provider& provider, const Offer& like,
                                     const std::string& volume_region,
                                     const std::string& own_volume) {
  auto live = provider.offers(true);
  if (!live.ok()) return with_context(live.error(), "offers beside the volume");
  const Offer* beside = nullptr;
  const Offer* cheapest = nullptr;
  std::vector<const Offer*> free;
  for (const Offer& o : *live) {
    if (!o.available || o.gpu_type != like.gpu_type || o.gpu_count != like.gpu_count) continue;
    if (o.region == volume_region) beside = &o;
    free.push_back(&o);
    if (!cheapest || o.usd_per_hour < cheapest->usd_per_hour) cheapest = &o;
  }
  WorkerPlacement out;
  if (beside) return out;
  if (!cheapest)
    return make_error(ErrorCode::kNoCapacity,
                      "no free " + like.gpu_type + " x" + std::to_string(like.gpu_count) +
                          " offer: none beside the volume (" + volume_region + ") nor elsewhere");
  out.own_volume = true;
  out.offer = *cheapest;
  // The machine of this worker's own volume from an earlier run, if it has a free offer.
  auto rows = store.live_volumes();
  if (!rows.ok()) return rows.error();
  for (const VolumeRecord& r : *rows) {
    if (r.provider != provider.name() || r.spec_name != own_volume || r.volume_id.empty()) continue;
    for (const Offer* o : free)
      if (o->region == r.region) {
        out.offer = *o;
        return out;
      }
  }
  return out;
}

}  // namespace burst
