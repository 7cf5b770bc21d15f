// write_spec_yaml: a PipelineSpec as the burst spec file that reads back to it (`burst convert`).
#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <filesystem>

#include "burst/spec_formats.h"

namespace burst {
namespace {

namespace fs = std::filesystem;

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// Comment text: control characters would end the comment.
std::string one_line(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  return text;
}

// A local path as the file would write it: relative to the spec's directory.
std::string relative(const PipelineSpec& spec, const std::string& path) {
  fs::path rel = fs::path(path).lexically_relative(spec.dir);
  if (rel.empty()) return path;
  return rel.string();
}

// A `|` block reads back exactly only for plain printable lines; anything else is quoted.
bool literal_block(const std::string& text) {
  if (text.find('\n') == std::string::npos || text.starts_with(' ')) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7f) return false;
    if (c == ' ' && (i + 1 == text.size() || text[i + 1] == '\n')) return false;
  }
  return true;
}

void string_value(YAML::Emitter& out, const std::string& text) {
  if (literal_block(text))
    out << YAML::Literal << text;
  else
    out << YAML::DoubleQuoted << text;
}

void key_string(YAML::Emitter& out, const char* key, const std::string& text) {
  out << YAML::Key << key << YAML::Value;
  string_value(out, text);
}

void workload(YAML::Emitter& out, const Workload& w) {
  if (w.kind.empty()) return;
  out << YAML::Key << "workload" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "kind" << YAML::Value << w.kind;
  auto num = [&](const char* key, const std::optional<long>& v) {
    if (v) out << YAML::Key << key << YAML::Value << *v;
  };
  if (w.params_b) out << YAML::Key << "params_b" << YAML::Value << number(*w.params_b);
  if (!w.precision.empty()) out << YAML::Key << "precision" << YAML::Value << w.precision;
  num("items", w.items);
  num("steps", w.steps);
  num("batch", w.batch);
  num("concurrency", w.concurrency);
  num("context_tokens", w.context_tokens);
  num("tokens", w.tokens);
  if (!w.mode.empty()) out << YAML::Key << "mode" << YAML::Value << w.mode;
  num("layers", w.layers);
  num("hidden", w.hidden);
  num("heads", w.heads);
  num("kv_heads", w.kv_heads);
  if (w.reference) {
    out << YAML::Key << "reference" << YAML::Value << YAML::BeginMap;
    key_string(out, "gpu", w.reference->gpu);
    out << YAML::Key << "runtime" << YAML::Value << number(w.reference->runtime_seconds);
    if (!w.reference->bound.empty())
      out << YAML::Key << "bound" << YAML::Value << w.reference->bound;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

void resources(YAML::Emitter& out, const Resources& r) {
  out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
  if (!r.providers.empty())
    out << YAML::Key << "providers" << YAML::Value << YAML::Flow << r.providers;
  if (!r.gpus.empty()) out << YAML::Key << "gpus" << YAML::Value << YAML::Flow << r.gpus;
  out << YAML::Key << "gpu_count" << YAML::Value << r.gpu_count;
  if (r.min_vram_gb) out << YAML::Key << "min_vram_gb" << YAML::Value << number(*r.min_vram_gb);
  if (r.max_usd_per_hour)
    out << YAML::Key << "max_usd_per_hour" << YAML::Value << number(*r.max_usd_per_hour);
  if (r.spot) out << YAML::Key << "spot" << YAML::Value << "true";
  out << YAML::EndMap;
}

void steps_and_more(YAML::Emitter& out, const PipelineSpec& spec) {
  if (!spec.setup.empty()) key_string(out, "setup", spec.setup);
  key_string(out, "run", spec.run);
  if (!spec.artefacts.empty()) {
    out << YAML::Key << "artefacts" << YAML::Value << YAML::BeginSeq;
    for (const Artefact& a : spec.artefacts) {
      out << YAML::BeginMap;
      key_string(out, "remote", a.remote);
      key_string(out, "local", relative(spec, a.local));  // not a provider name
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!spec.pull_on_failure) out << YAML::Key << "pull_on_failure" << YAML::Value << "false";
  if (spec.upload) {
    out << YAML::Key << "upload" << YAML::Value << YAML::BeginMap;
    key_string(out, "image", spec.upload->image);
    key_string(out, "run", spec.upload->run);
    out << YAML::EndMap;
  }
  const Budget& b = spec.budget;
  if (b.max_usd || b.max_runtime_seconds || b.deadline_seconds) {
    out << YAML::Key << "budget" << YAML::Value << YAML::BeginMap;
    if (b.max_usd) out << YAML::Key << "max_usd" << YAML::Value << number(*b.max_usd);
    if (b.max_runtime_seconds)
      out << YAML::Key << "max_runtime" << YAML::Value << number(*b.max_runtime_seconds);
    if (b.deadline_seconds)
      out << YAML::Key << "deadline" << YAML::Value << number(*b.deadline_seconds);
    out << YAML::EndMap;
  }
  if (spec.schedule) {
    out << YAML::Key << "schedule" << YAML::Value << YAML::BeginMap;
    key_string(out, "cron", spec.schedule->cron);
    key_string(out, "timezone", spec.schedule->timezone);
    out << YAML::Key << "missed" << YAML::Value << spec.schedule->missed;
    out << YAML::Key << "overlap" << YAML::Value << (spec.schedule->overlap ? "true" : "false");
    out << YAML::EndMap;
  }
}

}  // namespace

std::string write_spec_yaml(const PipelineSpec& spec, const SpecReadInfo& info) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << 1;
  out << YAML::Key << "name" << YAML::Value << spec.name;
  workload(out, spec.workload);
  resources(out, spec.resources);
  out << YAML::Key << "volume" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << spec.volume.name;
  out << YAML::Key << "size_gb" << YAML::Value << spec.volume.size_gb;
  key_string(out, "mount", spec.volume.mount);
  out << YAML::EndMap;
  key_string(out, "image", spec.image);
  if (!spec.env.empty()) {
    out << YAML::Key << "env" << YAML::Value << YAML::BeginMap;
    for (const auto& [k, v] : spec.env) key_string(out, k.c_str(), v);
    out << YAML::EndMap;
  }
  if (!spec.secrets.empty()) {
    out << YAML::Key << "secrets" << YAML::Value << YAML::BeginSeq;
    for (const SecretRef& s : spec.secrets) {
      if (!s.optional) {
        out << s.name;
        continue;
      }
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "name" << YAML::Value << s.name
          << YAML::Key << "optional" << YAML::Value << "true" << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  if (!spec.code.dir.empty()) {
    out << YAML::Key << "code" << YAML::Value << YAML::BeginMap;
    key_string(out, "dir", relative(spec, spec.code.dir));
    if (!spec.code.exclude.empty())
      out << YAML::Key << "exclude" << YAML::Value << YAML::Flow << spec.code.exclude;
    if (!spec.code.gitignore) out << YAML::Key << "gitignore" << YAML::Value << "false";
    key_string(out, "remote_dir", spec.code.remote_dir);
    out << YAML::EndMap;
  }
  steps_and_more(out, spec);
  out << YAML::EndMap;
  std::string text =
      "# burst spec converted from " + one_line(spec.path) + " (" + info.format + ")\n";
  for (const std::string& note : info.notes) text += "# note: " + one_line(note) + "\n";
  return text + out.c_str() + "\n";
}

}  // namespace burst
