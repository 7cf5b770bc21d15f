// Entry points of the spec parser: YAML text in, a validated PipelineSpec (or every problem) out.
// The section parsers are in spec_sections.cpp, the typed node readers in yaml_fields.cpp.
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "burst/spec.h"
#include "spec/spec_sections.h"
#include "spec/yaml_fields.h"
#include "util/small_file.h"

namespace burst {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kTopFields[] = {
    "version", "name",  "workload", "resources", "volume",          "image",  "env",    "secrets",
    "code",    "setup", "run",      "artefacts", "pull_on_failure", "upload", "budget", "schedule"};

// The spec file's directory, absolute; the working directory for a bare file name.
std::string spec_dir(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(fs::path(path), ec);
  if (ec) return fs::path(path).parent_path().string();
  fs::path dir = absolute.lexically_normal().parent_path();
  return dir.string();
}

Result<PipelineSpec> finish(PipelineSpec spec, const spec::Problems& problems,
                            std::vector<SpecError>* errors) {
  if (problems.empty()) return spec;
  std::vector<SpecError> sorted = problems.sorted();
  Error error = make_error(ErrorCode::kInvalid, sorted.front().text);
  if (errors) *errors = std::move(sorted);
  return error;
}

}  // namespace

Result<PipelineSpec> parse_spec(const std::string& yaml_text, const std::string& path,
                                std::vector<SpecError>* errors,
                                const std::vector<std::string>& providers) {
  if (errors) errors->clear();
  spec::Problems problems(path);
  PipelineSpec spec;
  spec.path = path;
  spec.dir = spec_dir(path);
  std::optional<YAML::Node> doc = spec::load_single_document(yaml_text, problems);
  if (!doc) return finish(std::move(spec), problems, errors);
  spec::Fields top(*doc, "", kTopFields, problems);
  if (top.ok()) {
    spec::parse_identity(top, spec);
    spec::parse_workload(top, spec);
    spec::parse_resources(top, spec, providers);
    spec::parse_volume(top, spec);
    spec::parse_env(top, spec);
    spec::parse_secrets(top, spec);
    spec::parse_code(top, spec);
    spec::parse_steps(top, spec);
    spec::parse_artefacts(top, spec);
    spec::parse_budget(top, spec);
    spec::parse_schedule(top, spec);
  }
  return finish(std::move(spec), problems, errors);
}

Result<PipelineSpec> load_spec_file(const std::string& path, std::vector<SpecError>* errors,
                                    const std::vector<std::string>& providers) {
  if (errors) errors->clear();
  // A regular file of at most 1 MiB: /dev/zero, a fifo or a huge file is refused, not read.
  Result<std::string> text = read_small_file(path);
  if (!text.ok()) {
    if (errors) errors->push_back({text.error().message});
    return text.error();
  }
  return parse_spec(*text, path, errors, providers);
}

}  // namespace burst
