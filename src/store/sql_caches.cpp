// Schedule fires, volumes, image sizes, the installation id and unknown pods over the dialect
// layer (contract in sql_caches.h).
#include "store/sql_caches.h"

#include <algorithm>

#include "store/sql_rows.h"

namespace burst::sql {
namespace {

constexpr const char* kFireColumns = "pipeline, last_fire_ms";
constexpr const char* kSeenColumns = "provider, pod_id, first_seen_ms";

// The first row through `read`, or nullopt when there is none.
template <typename T, typename Read>
Result<std::optional<T>> first_row(Stmt& s, Read read) {
  Result<bool> row = s.step();
  if (!row) return row.error();
  if (!*row) return std::optional<T>();
  return std::optional<T>(read(s));
}

Result<std::vector<VolumeRecord>> volumes_where(Db& db, bool live_only) {
  Prepared s = db.prepare(std::string("SELECT ") + kVolumeColumns + " FROM volumes" +
                              (live_only ? " WHERE state != 'deleted'" : "") +
                              " ORDER BY created_ms, " + db.dialect().insertion_order,
                          "list volumes");
  if (!s) return s.error();
  return collect(**s, read_volume);
}

}  // namespace

Result<std::optional<int64_t>> last_fire(Db& db, const std::string& pipeline) {
  Prepared s =
      db.prepare("SELECT last_fire_ms FROM schedule_fires WHERE pipeline = ?", "get last fire");
  if (!s) return s.error();
  (*s)->bind(pipeline);
  return first_row<int64_t>(**s, [](const Row& r) { return r.int64(0); });
}

Status set_last_fire(Db& db, const std::string& pipeline, int64_t fire_ms) {
  Prepared s = db.prepare(std::string("INSERT INTO schedule_fires (") + kFireColumns +
                              ") VALUES (?, ?) ON CONFLICT (pipeline) DO UPDATE SET "
                              "last_fire_ms = excluded.last_fire_ms",
                          "set last fire");
  if (!s) return s.error();
  (*s)->bind(pipeline).bind(fire_ms);
  return (*s)->run();
}

Result<bool> claim_fire(Db& db, const std::string& pipeline, int64_t fire_ms) {
  // RETURNING (SQLite 3.35+) yields a row only when the insert or the guarded update happened.
  Prepared s = db.prepare(std::string("INSERT INTO schedule_fires (") + kFireColumns +
                              ") VALUES (?, ?) ON CONFLICT (pipeline) DO UPDATE SET "
                              "last_fire_ms = excluded.last_fire_ms "
                              "WHERE schedule_fires.last_fire_ms < excluded.last_fire_ms "
                              "RETURNING last_fire_ms",
                          "claim a schedule fire");
  if (!s) return s.error();
  (*s)->bind(pipeline).bind(fire_ms);
  Result<bool> row = (*s)->step();
  if (!row) return row.error();
  if (Status done = (*s)->run(); !done) return done.error();  // finish the statement
  return *row;
}

Status put_volume(Db& db, const VolumeRecord& v) {
  Prepared s = db.prepare(
      replace_into(db.dialect(), "volumes", kVolumeColumns, "provider, spec_name, region"),
      "put volume");
  if (!s) return s.error();
  bind_volume(**s, v);
  return (*s)->run();
}

Result<std::optional<VolumeRecord>> get_volume(Db& db, const std::string& provider,
                                               const std::string& spec_name,
                                               const std::string& region) {
  Prepared s = db.prepare(std::string("SELECT ") + kVolumeColumns +
                              " FROM volumes WHERE provider = ? AND spec_name = ? AND region = ?",
                          "get volume");
  if (!s) return s.error();
  (*s)->bind(provider).bind(spec_name).bind(region);
  return first_row<VolumeRecord>(**s, read_volume);
}

Result<std::vector<VolumeRecord>> live_volumes(Db& db) { return volumes_where(db, true); }
Result<std::vector<VolumeRecord>> all_volumes(Db& db) { return volumes_where(db, false); }

Status put_image_size(Db& db, const ImageSizeRecord& r) {
  Prepared s = db.prepare(replace_into(db.dialect(), "image_sizes", kImageSizeColumns, "image"),
                          "put image size");
  if (!s) return s.error();
  (*s)->bind(r.image).bind(r.bytes).bind(r.fetched_ms).bind(r.failure);
  return (*s)->run();
}

Result<std::optional<ImageSizeRecord>> get_image_size(Db& db, const std::string& image) {
  Prepared s =
      db.prepare(std::string("SELECT ") + kImageSizeColumns + " FROM image_sizes WHERE image = ?",
                 "get image size");
  if (!s) return s.error();
  (*s)->bind(image);
  return first_row<ImageSizeRecord>(**s, read_image_size);
}

Result<std::string> installation_id(Db& db) {
  Prepared s = db.prepare("SELECT id FROM installation LIMIT 1", "get installation id");
  if (!s) return s.error();
  Result<bool> row = (*s)->step();
  if (!row) return row.error();
  if (!*row) return make_error(ErrorCode::kInternal, "store: the installation id is missing");
  return (*s)->text(0);
}

Result<int64_t> pod_first_seen(Db& db, const std::string& provider, const std::string& pod_id,
                               int64_t now_ms) {
  Prepared add =
      db.prepare(insert_or_ignore(db.dialect(), "unknown_pods", kSeenColumns, "provider, pod_id"),
                 "record pod first seen");
  if (!add) return add.error();
  (*add)->bind(provider).bind(pod_id).bind(now_ms);
  if (Status ran = (*add)->run(); !ran) return ran.error();
  Prepared get =
      db.prepare("SELECT first_seen_ms FROM unknown_pods WHERE provider = ? AND pod_id = ?",
                 "get pod first seen");
  if (!get) return get.error();
  (*get)->bind(provider).bind(pod_id);
  Result<bool> row = (*get)->step();
  if (!row) return row.error();
  return *row ? (*get)->int64(0) : now_ms;
}

Status forget_pods_seen(Db& db, const std::string& provider,
                        const std::vector<std::string>& still_listed) {
  Prepared list =
      db.prepare("SELECT pod_id FROM unknown_pods WHERE provider = ?", "list pods seen");
  if (!list) return list.error();
  (*list)->bind(provider);
  Result<std::vector<std::string>> seen =
      collect<std::string>(**list, [](const Row& r) { return r.text(0); });
  if (!seen) return seen.error();
  for (const std::string& id : *seen) {  // a handful at most: pods of ours the store lost
    if (std::find(still_listed.begin(), still_listed.end(), id) != still_listed.end()) continue;
    Prepared del =
        db.prepare("DELETE FROM unknown_pods WHERE provider = ? AND pod_id = ?", "forget pod seen");
    if (!del) return del.error();
    (*del)->bind(provider).bind(id);
    if (Status ran = (*del)->run(); !ran) return ran;
  }
  return Status::Ok();
}

}  // namespace burst::sql
