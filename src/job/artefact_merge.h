// The flat merge rule of a wide job (resources.merge: flat, job/worker_fleet.h): each worker's
// artefacts are pulled into a staging directory of its own under the artefact's local directory,
// <local>/.burst-merge-w<i>/, and then moved up into <local>/ itself. Two workers that brought
// home the same relative path are a collision: nothing is moved, the staging directories stay
// (every worker's file is kept), and the error names the file and both workers. A file already
// in <local>/ from an earlier run is replaced, as a pull of one pod replaces it.
#pragma once

#include <string>
#include <vector>

#include "burst/result.h"

namespace burst {

// The staging directory of worker `index` under `local`.
std::string merge_staging_dir(const std::string& local, int index);

// Removes the staging directories of workers [0, workers) under each of `locals` (left by an
// earlier run that failed): a worker's pull must not bring an old file into the merge.
void clear_merge_staging(const std::vector<std::string>& locals, int workers);

// Merges the staging directories of workers [0, workers) into each of `locals` (duplicates
// allowed). kInvalid on a collision, naming the file and both workers; kInternal when a move
// fails.
Status merge_flat(const std::vector<std::string>& locals, int workers);

}  // namespace burst
