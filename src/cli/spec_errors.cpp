#include "cli/spec_errors.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "burst/cost_model.h"
#include "cli/exit_codes.h"
#include "registry.h"
#include "util/duration.h"
#include "util/terminal_text.h"

namespace burst {

namespace {

// The file's or the text's spec, checked and printed alike.
Result<PipelineSpec> read_or_print(const std::string* text, const std::string& path,
                                   const SpecLoadOptions& options, SpecReadInfo* info) {
  std::vector<SpecError> errors;
  SpecReadInfo local;
  if (!info) info = &local;
  std::error_code ec;
  if (!text && !std::filesystem::exists(path, ec)) {
    Error missing = make_error(ErrorCode::kNotFound, path + ": no such file");
    fail(kExitNotFound, missing.message);
    return missing;
  }
  auto spec = text ? parse_spec(*text, path, &errors, options, info)
                   : load_spec_file(path, &errors, options, info);
  if (spec.ok()) {
    std::vector<std::string> refused = spec_refusals(*spec);
    if (!refused.empty()) {
      for (const std::string& line : refused) errors.push_back({line});
      spec = make_error(ErrorCode::kInvalid, refused.front());
    }
  }
  if (!spec.ok()) {
    std::vector<std::string> lines;
    for (const auto& e : errors) lines.push_back(e.text);
    if (lines.empty()) lines.push_back(spec.error().message);
    if (json_errors()) {
      fail(kExitUsage, lines.front(), lines);
    } else {
      for (const auto& line : lines) std::cerr << line << "\n";
    }
    return spec;
  }
  for (const std::string& note : info->notes) std::cerr << "note: " << note << "\n";
  return spec;
}

}  // namespace

Result<PipelineSpec> load_spec_or_print(const std::string& path, const SpecLoadOptions& options,
                                        SpecReadInfo* info) {
  return read_or_print(nullptr, path, options, info);
}

Result<PipelineSpec> parse_spec_or_print(const std::string& yaml_text, const std::string& path,
                                         const SpecLoadOptions& options, SpecReadInfo* info) {
  return read_or_print(&yaml_text, path, options, info);
}

std::vector<std::string> provider_refusals(const PipelineSpec& spec) {
  std::vector<std::string> out;
  for (const std::string& name : spec.resources.providers) {
    const ProviderTraits* traits = find_provider_traits(name);
    if (!traits) continue;
    if (std::string why = env_refusal(*traits, spec.env); !why.empty())
      out.push_back(terminal_line(spec.path + ": " + why));
  }
  return out;
}

std::vector<std::string> spec_refusals(const PipelineSpec& spec) {
  std::vector<std::string> out = provider_refusals(spec);
  const Workload& w = spec.workload;
  auto at = [&](const SourcePos& pos) {
    return spec.path + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": ";
  };
  auto shaped = with_model_shape(w);
  if (!shaped.ok()) {
    out.push_back(terminal_line(at(w.model_pos) + "workload.model: " + shaped.error().message));
    return out;
  }
  // A frame count the denoiser cannot take (an image model's, no resolution): refused at its
  // line, before any plan prices the candidates without it.
  if (w.kind == "diffusion" && w.frames && shaped->params_b) {
    if (auto d = diffusion_work_of(*shaped, *shaped->params_b * 1e9); !d.ok())
      if (d.error().message.rfind("workload.frames", 0) == 0)
        out.push_back(terminal_line(at(w.frames_pos) + d.error().message));
  }
  // A named model whose denoiser has no token split (a UNet's), or whose heads the degree does
  // not divide: refused at the field's line.
  if (w.kind == "diffusion" && w.sequence_parallel) {
    if (auto l = sequence_parallel_layout(*shaped, *w.sequence_parallel); !l.ok()) {
      const std::string& why = l.error().message;  // "<field> <why>"
      const std::string field = why.substr(0, why.find(' '));
      out.push_back(
          terminal_line(at(field == "cfg_parallel" ? w.cfg_parallel_pos : w.sequence_parallel_pos) +
                        "workload." + field + ": " + why.substr(why.find(' ') + 1)));
    }
  }
  return out;
}

int spec_exit_code(const Error& e) {
  return e.code == ErrorCode::kNotFound ? kExitNotFound : kExitUsage;
}

Result<SpecLoadOptions> spec_options_from_flags(const std::string& format,
                                                const std::vector<std::string>& env, bool for_run,
                                                const std::string& max_runtime) {
  SpecLoadOptions options;
  if (!max_runtime.empty()) {
    std::optional<double> s = parse_duration(max_runtime);
    if (!s || *s <= 0)
      return make_error(ErrorCode::kInvalid,
                        "--max-runtime: expected a positive duration such as 30m, 2h or 1h30m, "
                        "got \"" +
                            max_runtime + "\"");
    options.max_runtime_seconds = *s;
  }
  options.for_run = for_run;
  options.providers = provider_names();  // what resources.providers may name (registry.h)
  if (format == "skypilot") {
    options.format = SpecFormat::kSkyPilot;
  } else if (format == "burst") {
    options.format = SpecFormat::kBurst;
  } else if (!format.empty()) {
    return make_error(ErrorCode::kInvalid,
                      "--format: expected burst or skypilot, got \"" + format + "\"");
  }
  for (const std::string& item : env) {
    size_t eq = item.find('=');
    std::string name = item.substr(0, eq);
    if (name.empty())
      return make_error(ErrorCode::kInvalid, "--env: expected K=V, got \"" + item + "\"");
    if (eq != std::string::npos) {
      options.env[name] = item.substr(eq + 1);
      continue;
    }
    // `--env K`: the value of K here, as SkyPilot reads it.
    const char* value = std::getenv(name.c_str());
    if (!value)
      return make_error(
          ErrorCode::kInvalid,
          "--env " + name + ": not set in this environment; give --env " + name + "=VALUE");
    options.env[name] = value;
  }
  return options;
}

}  // namespace burst
