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
                                std::vector<SpecError>* errors) {
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
    spec::parse_resources(top, spec);
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

Result<PipelineSpec> load_spec_file(const std::string& path, std::vector<SpecError>* errors) {
  if (errors) errors->clear();
  std::FILE* file = std::fopen(path.c_str(), "rb");
  std::string text;
  int error = file ? 0 : errno;
  if (file) {
    char buffer[65536];
    size_t n = 0;
    errno = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, n);
    if (std::ferror(file)) error = errno ? errno : EIO;  // e.g. EISDIR for a directory
    std::fclose(file);
  }
  if (error != 0) {
    std::string message = path + ": cannot read file: " + std::strerror(error);
    if (errors) errors->push_back({message});
    return make_error(ErrorCode::kInvalid, message);
  }
  return parse_spec(text, path, errors);
}

}  // namespace burst
