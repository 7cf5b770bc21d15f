// write_spec_yaml: a PipelineSpec as the burst spec file that reads back to it (`burst convert`),
// written with libyaml's emitter.
#include <yaml.h>

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "burst/spec_formats.h"
#include "util/terminal_text.h"

namespace burst {
namespace {

namespace fs = std::filesystem;

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

// Comment text: a control character would end the comment, and `burst convert` prints it on the
// terminal: every control byte and escape sequence shown as \xNN text (util/terminal_text.h).
std::string one_line(const std::string& text) { return terminal_line(text); }

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

// Replaces bytes that are not UTF-8 with U+FFFD: libyaml writes UTF-8 only.
std::string utf8(const std::string& text) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= text.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(text[i + k]) >> 6) == 2;
    if (ok && n > 1) {
      // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8 either.
      unsigned cp = c & (0x7F >> n);
      for (size_t k = 1; k < n; ++k)
        cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
      static constexpr unsigned kMin[] = {0, 0, 0x80, 0x800, 0x10000};
      ok = cp >= kMin[n] && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF);
    }
    if (ok) {
      out.append(text, i, n);
      i += n;
    } else {
      out.append("\xEF\xBF\xBD");
      ++i;
    }
  }
  return out;
}

// A string that reads back as the same string when written plain (unquoted): printable ASCII,
// not a null, no indicator first, no ": " or " #", no blank at either end; in [ ] no ",[]{}:".
// Anything else is double-quoted, as yaml-cpp did. (libyaml's own test is looser; this one
// never asks it for plain where it would pick another style.)
bool plain_ok(const std::string& s, bool flow) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return false;
  if (std::strchr("-?:,[]{}#&*!|>'\"%@` ", s.front()) || s.back() == ' ' || s.back() == ':')
    return false;
  for (char c : s) {
    if (c < 0x20 || c >= 0x7f) return false;
    if (flow && std::strchr(",[]{}:", c)) return false;
  }
  return s.find(": ") == std::string::npos && s.find(" #") == std::string::npos;
}

// libyaml's emitter, fed events; every scalar is written plain, double-quoted or as a | block.
class Writer {
 public:
  Writer() {
    yaml_emitter_initialize(&emitter_);
    yaml_emitter_set_output(&emitter_, &Writer::append, &out_);
    yaml_emitter_set_unicode(&emitter_, 1);
    yaml_emitter_set_width(&emitter_, -1);  // no folding of long lines
    yaml_emitter_set_indent(&emitter_, 2);
    yaml_event_t e;
    yaml_stream_start_event_initialize(&e, YAML_UTF8_ENCODING);
    emit(e);
    yaml_document_start_event_initialize(&e, nullptr, nullptr, nullptr, 1);
    emit(e);
  }
  ~Writer() { yaml_emitter_delete(&emitter_); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // The text written; "" if libyaml refused an event (never for what write_spec_yaml writes).
  std::string finish() {
    yaml_event_t e;
    yaml_document_end_event_initialize(&e, 1);
    emit(e);
    yaml_stream_end_event_initialize(&e);
    emit(e);
    yaml_emitter_flush(&emitter_);
    return ok_ ? out_ : std::string();
  }

  void begin_map(bool flow = false) {
    yaml_event_t e;
    yaml_mapping_start_event_initialize(&e, nullptr, nullptr, 1,
                                        flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
    emit(e);
    flow_ += flow ? 1 : 0;
  }
  void end_map(bool flow = false) {
    yaml_event_t e;
    yaml_mapping_end_event_initialize(&e);
    emit(e);
    flow_ -= flow ? 1 : 0;
  }
  void begin_seq(bool flow = false) {
    yaml_event_t e;
    yaml_sequence_start_event_initialize(
        &e, nullptr, nullptr, 1, flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
    emit(e);
    flow_ += flow ? 1 : 0;
  }
  void end_seq(bool flow = false) {
    yaml_event_t e;
    yaml_sequence_end_event_initialize(&e);
    emit(e);
    flow_ -= flow ? 1 : 0;
  }

  // Plain where that reads back the same, else double-quoted.
  void value(const std::string& text) {
    scalar(text,
           plain_ok(text, flow_ > 0) ? YAML_PLAIN_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
  }
  // A string field: a | block when it reads back exactly, else double-quoted.
  void text(const std::string& text) {
    scalar(text, literal_block(text) ? YAML_LITERAL_SCALAR_STYLE : YAML_DOUBLE_QUOTED_SCALAR_STYLE);
  }
  void list(const std::vector<std::string>& items) {
    begin_seq(true);
    for (const std::string& item : items) value(item);
    end_seq(true);
  }

 private:
  static int append(void* data, unsigned char* buffer, size_t size) {
    static_cast<std::string*>(data)->append(reinterpret_cast<const char*>(buffer), size);
    return 1;
  }

  void scalar(const std::string& raw, yaml_scalar_style_t style) {
    std::string text = utf8(raw);
    yaml_event_t e;
    if (!yaml_scalar_event_initialize(&e, nullptr, nullptr,
                                      reinterpret_cast<const yaml_char_t*>(text.c_str()),
                                      static_cast<int>(text.size()), 1, 1, style)) {
      ok_ = false;
      return;
    }
    emit(e);
  }

  void emit(yaml_event_t& e) {
    // yaml_emitter_emit takes the event (and frees it) whether or not it succeeds.
    if (!ok_ || !yaml_emitter_emit(&emitter_, &e)) ok_ = false;
  }

  yaml_emitter_t emitter_;
  std::string out_;
  int flow_ = 0;
  bool ok_ = true;
};

void key(Writer& out, const char* name) { out.value(name); }

void key_string(Writer& out, const char* name, const std::string& text) {
  key(out, name);
  out.text(text);
}

void key_value(Writer& out, const char* name, const std::string& value) {
  key(out, name);
  out.value(value);
}

void workload(Writer& out, const Workload& w) {
  if (w.kind.empty()) return;
  key(out, "workload");
  out.begin_map();
  key_value(out, "kind", w.kind);
  auto num = [&](const char* name, const std::optional<long>& v) {
    if (v) key_value(out, name, std::to_string(*v));
  };
  if (w.params_b) key_value(out, "params_b", number(*w.params_b));
  if (!w.precision.empty()) key_value(out, "precision", w.precision);
  num("items", w.items);
  num("steps", w.steps);
  num("batch", w.batch);
  num("concurrency", w.concurrency);
  num("context_tokens", w.context_tokens);
  num("tokens", w.tokens);
  if (!w.mode.empty()) key_value(out, "mode", w.mode);
  num("layers", w.layers);
  num("hidden", w.hidden);
  num("heads", w.heads);
  num("kv_heads", w.kv_heads);
  // Every other input of the cost model, so that the printed spec plans as the one read.
  auto real = [&](const char* name, const std::optional<double>& v) {
    if (v) key_value(out, name, number(*v));
  };
  auto flag = [&](const char* name, const std::optional<bool>& v) {
    if (v) key_value(out, name, *v ? "true" : "false");
  };
  auto word = [&](const char* name, const std::string& v) {
    if (!v.empty()) key_value(out, name, v);
  };
  word("model", w.model);
  real("active_params_b", w.active_params_b);
  num("experts", w.experts);
  num("experts_per_token", w.experts_per_token);
  num("attention_window", w.attention_window);
  num("window_layers", w.window_layers);
  num("kv_latent", w.kv_latent);
  num("head_dim", w.head_dim);
  num("vocab", w.vocab);
  num("intermediate", w.intermediate);
  flag("tied_embeddings", w.tied_embeddings);
  word("kv_precision", w.kv_precision);
  word("engine", w.engine);
  num("tensor_parallel", w.tensor_parallel);
  num("sequence_parallel", w.sequence_parallel);
  flag("cfg_parallel", w.cfg_parallel);
  real("gpu_memory_utilization", w.gpu_memory_utilization);
  num("max_num_seqs", w.max_num_seqs);
  word("weights_from", w.weights_from);
  flag("gradient_checkpointing", w.gradient_checkpointing);
  num("lora_rank", w.lora_rank);
  if (!w.lora_targets.empty()) {
    key(out, "lora_targets");
    out.list(w.lora_targets);
  }
  word("architecture", w.architecture);
  if (w.resolution && w.height)
    key_value(out, "resolution", std::to_string(*w.resolution) + "x" + std::to_string(*w.height));
  else
    num("resolution", w.resolution);
  num("frames", w.frames);
  real("audio_seconds", w.audio_seconds);
  real("guidance", w.guidance);
  flag("guidance_batched", w.guidance_batched);
  word("attention_kernel", w.attention_kernel);
  word("offload", w.offload);
  if (!w.items_file.empty()) key_string(out, "items_file", w.items_file);
  if (w.reference) {
    key(out, "reference");
    out.begin_map();
    key_string(out, "gpu", w.reference->gpu);
    key_value(out, "runtime", number(w.reference->runtime_seconds));
    if (!w.reference->bound.empty()) key_value(out, "bound", w.reference->bound);
    out.end_map();
  }
  out.end_map();
}

void resources(Writer& out, const Resources& r) {
  key(out, "resources");
  out.begin_map();
  if (!r.providers.empty()) {
    key(out, "providers");
    out.list(r.providers);
  }
  if (!r.gpus.empty()) {
    key(out, "gpus");
    out.list(r.gpus);
  }
  key_value(out, "gpu_count", std::to_string(r.gpu_count));
  if (!r.gpu_counts.empty()) {
    key(out, "gpu_counts");
    out.begin_map(true);
    for (const auto& [gpu, count] : r.gpu_counts)
      key_value(out, gpu.c_str(), std::to_string(count));
    out.end_map(true);
  }
  if (r.min_vram_gb) key_value(out, "min_vram_gb", number(*r.min_vram_gb));
  if (r.max_usd_per_hour) key_value(out, "max_usd_per_hour", number(*r.max_usd_per_hour));
  if (r.spot) key_value(out, "spot", "true");
  if (r.workers) key_value(out, "workers", std::to_string(*r.workers));
  if (r.max_workers) key_value(out, "max_workers", std::to_string(*r.max_workers));
  if (r.worker_retries != 1) key_value(out, "worker_retries", std::to_string(r.worker_retries));
  if (r.merge_flat) key_value(out, "merge", "flat");
  if (!r.multi_gpu.empty()) key_value(out, "multi_gpu", r.multi_gpu);
  if (r.disk_gb) key_value(out, "disk_gb", std::to_string(*r.disk_gb));
  out.end_map();
}

void steps_and_more(Writer& out, const PipelineSpec& spec) {
  if (spec.prepare) {
    const PrepareSpec& p = *spec.prepare;
    key(out, "prepare");
    out.begin_map();
    key_string(out, "run", p.run);
    if (p.image != spec.image) key_string(out, "image", p.image);
    if (!p.creates.empty()) {
      key(out, "creates");
      out.list(p.creates);
    }
    if (p.download_gb) key_value(out, "download_gb", number(*p.download_gb));
    out.end_map();
  }
  if (!spec.setup.empty()) key_string(out, "setup", spec.setup);
  key_string(out, "run", spec.run);
  if (!spec.artefacts.empty()) {
    key(out, "artefacts");
    out.begin_seq();
    for (const Artefact& a : spec.artefacts) {
      out.begin_map();
      key_string(out, "remote", a.remote);
      key_string(out, "local", relative(spec, a.local));  // not a provider name
      out.end_map();
    }
    out.end_seq();
  }
  if (!spec.pull_on_failure) key_value(out, "pull_on_failure", "false");
  if (spec.upload) {
    key(out, "upload");
    out.begin_map();
    key_string(out, "image", spec.upload->image);
    key_string(out, "run", spec.upload->run);
    out.end_map();
  }
  const Budget& b = spec.budget;
  if (b.max_usd || b.max_runtime_seconds || b.deadline_seconds) {
    key(out, "budget");
    out.begin_map();
    if (b.max_usd) key_value(out, "max_usd", number(*b.max_usd));
    if (b.max_runtime_seconds) key_value(out, "max_runtime", number(*b.max_runtime_seconds));
    if (b.deadline_seconds) key_value(out, "deadline", number(*b.deadline_seconds));
    out.end_map();
  }
  if (spec.schedule) {
    key(out, "schedule");
    out.begin_map();
    key_string(out, "cron", spec.schedule->cron);
    key_string(out, "timezone", spec.schedule->timezone);
    key_value(out, "missed", spec.schedule->missed);
    key_value(out, "overlap", spec.schedule->overlap ? "true" : "false");
    out.end_map();
  }
}

}  // namespace

std::string write_spec_yaml(const PipelineSpec& spec, const SpecReadInfo& info) {
  Writer out;
  out.begin_map();
  key_value(out, "version", "1");
  key_value(out, "name", spec.name);
  workload(out, spec.workload);
  resources(out, spec.resources);
  key(out, "volume");
  out.begin_map();
  key_value(out, "name", spec.volume.name);
  key_value(out, "size_gb", std::to_string(spec.volume.size_gb));
  key_string(out, "mount", spec.volume.mount);
  out.end_map();
  key_string(out, "image", spec.image);
  if (spec.image_size_gb) key_value(out, "image_size_gb", number(*spec.image_size_gb));
  if (!spec.env.empty()) {
    key(out, "env");
    out.begin_map();
    for (const auto& [k, v] : spec.env) key_string(out, k.c_str(), v);
    out.end_map();
  }
  if (!spec.secrets.empty()) {
    key(out, "secrets");
    out.begin_seq();
    for (const SecretRef& s : spec.secrets) {
      if (!s.optional) {
        out.value(s.name);
        continue;
      }
      out.begin_map(true);
      key_value(out, "name", s.name);
      key_value(out, "optional", "true");
      out.end_map(true);
    }
    out.end_seq();
  }
  if (spec.code.synced()) {
    key(out, "code");
    out.begin_map();
    if (!spec.code.dir.empty()) key_string(out, "dir", relative(spec, spec.code.dir));
    if (!spec.code.exclude.empty()) {
      key(out, "exclude");
      out.list(spec.code.exclude);
    }
    if (!spec.code.gitignore) key_value(out, "gitignore", "false");
    key_string(out, "remote_dir", spec.code.remote_dir);
    if (!spec.code.add.empty()) {
      key(out, "add");
      out.begin_seq();
      for (const CodeAdd& a : spec.code.add) {
        out.begin_map(true);
        key_string(out, "from", a.from);  // absolute: the home dir is this machine's
        key_string(out, "to", a.to);
        out.end_map(true);
      }
      out.end_seq();
    }
    out.end_map();
  }
  steps_and_more(out, spec);
  out.end_map();
  std::string text =
      "# burst spec converted from " + one_line(spec.path) + " (" + info.format + ")\n";
  for (const std::string& note : info.notes) text += "# note: " + one_line(note) + "\n";
  return text + out.finish();
}

}  // namespace burst
