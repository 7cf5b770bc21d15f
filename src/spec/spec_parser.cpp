// Entry points of the spec parser: YAML text in, a validated PipelineSpec (or every problem) out.
// The section parsers are in spec_sections.cpp, the typed node readers in
// src/yaml/yaml_fields.cpp.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "burst/spec.h"
#include "burst/spec_formats.h"
#include "spec/skypilot_reader.h"
#include "spec/spec_checks.h"
#include "spec/spec_sections.h"
#include "util/small_file.h"
#include "yaml/yaml_fields.h"

namespace burst {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kTopFields[] = {
    "version", "name",     "workload", "resources",    "volume",    "image",           "env",
    "secrets", "code",     "setup",    "run",          "artefacts", "pull_on_failure", "upload",
    "budget",  "schedule", "prepare",  "image_size_gb"};

// The spec file's directory, absolute; the working directory for a bare file name.
std::string spec_dir(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(fs::path(path), ec);
  if (ec) return fs::path(path).parent_path().string();
  fs::path dir = absolute.lexically_normal().parent_path();
  return dir.string();
}

// --env values, for either format: they set or replace env values (and stand in for secrets);
// --max-runtime replaces budget.max_runtime.
void apply_options(const SpecLoadOptions& options, PipelineSpec& spec, spec::Problems& problems) {
  if (options.max_runtime_seconds) {
    spec.budget.max_runtime_seconds = *options.max_runtime_seconds;
    spec.budget.max_runtime_default_why.clear();
  }
  for (const auto& [name, value] : options.env) {
    if (!spec::is_env_name(name) || spec::is_reserved_env_name(name)) {
      problems.add({}, "--env " + name, "not a valid environment variable name");
      continue;
    }
    spec.env[name] = value;
    const std::string& given = name;  // clang before 16 cannot capture a structured binding
    std::erase_if(spec.secrets, [&](const SecretRef& s) { return s.name == given; });
  }
}

Result<PipelineSpec> finish(PipelineSpec spec, const spec::Problems& problems,
                            std::vector<SpecError>* errors, SpecReadInfo* info) {
  if (info) info->notes = problems.notes();
  if (problems.empty()) return spec;
  std::vector<SpecError> sorted = problems.sorted();
  Error error = make_error(ErrorCode::kInvalid, sorted.front().text);
  if (errors) *errors = std::move(sorted);
  return error;
}

}  // namespace

Result<PipelineSpec> parse_spec(const std::string& yaml_text, const std::string& path,
                                std::vector<SpecError>* errors, const SpecLoadOptions& options,
                                SpecReadInfo* info) {
  if (errors) errors->clear();
  SpecReadInfo local_info;
  if (!info) info = &local_info;
  *info = SpecReadInfo{};
  spec::Problems problems(path);
  PipelineSpec spec;
  spec.path = path;
  spec.dir = spec_dir(path);
  std::optional<std::vector<yaml::Node>> docs =
      spec::load_documents(yaml_text, problems, spec::kMaxSkyPilotDocuments);
  if (!docs) return finish(std::move(spec), problems, errors, info);
  if (options.format == SpecFormat::kSkyPilot ||
      (options.format == SpecFormat::kAuto && spec::looks_like_skypilot(*docs))) {
    spec::read_skypilot(*docs, options, spec, problems, info);
    apply_options(options, spec, problems);
    return finish(std::move(spec), problems, errors, info);
  }
  if (docs->size() > 1) {
    problems.add(spec::pos_of((*docs)[1]), "(top level)",
                 "expected one YAML document, got " + std::to_string(docs->size()));
  }
  spec::Fields top(docs->front(), "", kTopFields, problems);
  if (top.ok()) {
    spec::parse_identity(top, spec);
    spec::parse_workload(top, spec);
    spec::parse_resources(top, spec, options.providers);
    spec::parse_volume(top, spec);
    spec::parse_env(top, spec);
    spec::parse_secrets(top, spec);
    spec::parse_code(top, spec);
    spec::parse_steps(top, spec);
    spec::parse_prepare(top, spec);
    spec::parse_artefacts(top, spec);
    spec::parse_budget(top, spec);
    spec::parse_schedule(top, spec);
  }
  apply_options(options, spec, problems);
  return finish(std::move(spec), problems, errors, info);
}

Result<PipelineSpec> parse_spec(const std::string& yaml_text, const std::string& path,
                                std::vector<SpecError>* errors,
                                const std::vector<std::string>& providers) {
  SpecLoadOptions options;
  options.providers = providers;
  return parse_spec(yaml_text, path, errors, options, nullptr);
}

Result<PipelineSpec> load_spec_file(const std::string& path, std::vector<SpecError>* errors,
                                    const std::vector<std::string>& providers) {
  SpecLoadOptions options;
  options.providers = providers;
  return load_spec_file(path, errors, options, nullptr);
}

Result<PipelineSpec> load_spec_file(const std::string& path, std::vector<SpecError>* errors,
                                    const SpecLoadOptions& options, SpecReadInfo* info) {
  if (errors) errors->clear();
  // A regular file of at most 1 MiB: /dev/zero, a fifo or a huge file is refused, not read.
  Result<std::string> text = read_small_file(path);
  if (!text.ok()) {
    if (errors) errors->push_back({text.error().message});
    return text.error();
  }
  return parse_spec(*text, path, errors, options, info);
}

}  // namespace burst
