// What the store keeps beside the job history (Store's calls; the contract is in
// include/burst/store.h), written once over the dialect layer (sql_db.h): schedule fires, the
// volume map, image sizes, the installation id and when each unknown pod was first seen. Free
// functions over one connection: the caller (the store) holds its connection lock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "burst/store.h"
#include "store/sql_db.h"

namespace burst::sql {

Result<std::optional<int64_t>> last_fire(Db& db, const std::string& pipeline);
Status set_last_fire(Db& db, const std::string& pipeline, int64_t fire_ms);
Result<bool> claim_fire(Db& db, const std::string& pipeline, int64_t fire_ms);

Status put_volume(Db& db, const VolumeRecord& v);
Result<std::optional<VolumeRecord>> get_volume(Db& db, const std::string& provider,
                                               const std::string& spec_name,
                                               const std::string& region);
Result<std::vector<VolumeRecord>> live_volumes(Db& db);
Result<std::vector<VolumeRecord>> all_volumes(Db& db);

Status put_image_size(Db& db, const ImageSizeRecord& r);
Result<std::optional<ImageSizeRecord>> get_image_size(Db& db, const std::string& image);

Result<std::string> installation_id(Db& db);
Result<int64_t> pod_first_seen(Db& db, const std::string& provider, const std::string& pod_id,
                               int64_t now_ms);
Status forget_pods_seen(Db& db, const std::string& provider,
                        const std::vector<std::string>& still_listed);

}  // namespace burst::sql
