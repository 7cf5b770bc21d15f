#include "spec/spec_sections.h"

#include <algorithm>
#include <climits>
#include <filesystem>
#include <set>
#include <string_view>

#include "schedule/cron.h"
#include "schedule/tz.h"
#include "spec/spec_checks.h"
#include "spec/spec_diffusion_fields.h"
#include "spec/spec_gpu_counts.h"
#include "spec/spec_shape_fields.h"
#include "spec/spec_training.h"

namespace burst::spec {
namespace {

namespace fs = std::filesystem;
using sv = std::string_view;

// Allowed values, in the order the docs and error messages list them.
constexpr sv kKinds[] = {"diffusion", "llm-inference", "llm-training", "custom"};
constexpr sv kPrecisions[] = {"fp32", "fp16", "bf16",   "fp8", "int8",
                              "int4", "q8_0", "q4_k_m", "q4_0"};  // the last three: GGUF weights
constexpr sv kEngines[] = {"llama.cpp", "vllm", "sglang", "tensorrt-llm", "pytorch"};
constexpr sv kBounds[] = {"bandwidth", "compute"};

constexpr sv kModes[] = {"full", "lora", "qlora"};

constexpr sv kKvPrecisions[] = {"fp16", "bf16", "fp8"};
constexpr sv kWeightsFrom[] = {"hub", "s3", "volume", "local-disk"};  // burst/weight_load.h
constexpr sv kReferenceFields[] = {"gpu", "runtime", "bound"};
constexpr sv kVolumeFields[] = {"name", "size_gb", "mount"};
constexpr sv kSecretFields[] = {"name", "optional"};
constexpr sv kArtefactFields[] = {"remote", "local"};  // not a provider name
constexpr sv kUploadFields[] = {"image", "run"};
constexpr sv kPrepareFields[] = {"run", "creates", "image", "download_gb"};
constexpr sv kBudgetFields[] = {"max_usd", "max_runtime", "deadline"};
constexpr sv kScheduleFields[] = {"cron", "timezone", "missed", "overlap"};
constexpr sv kMissedPolicies[] = {"skip", "run-once"};

constexpr char kBadName[] =
    "must be lower-case letters, digits and '-', starting with a letter or digit, at most 63 "
    "characters; got \"";

// The run-style step `key`: required scripts must have something in them.
std::optional<std::string> script(Fields& fields, sv key, Need need) {
  std::optional<yaml::Node> node = fields.get(key, need);
  if (!node) return std::nullopt;
  std::optional<std::string> text = read_script(*node, fields.path_of(key), fields.problems());
  if (text && need == Need::kRequired && text->find_first_not_of(" \t\r\n") == std::string::npos) {
    fields.problems().add(pos_of(*node), fields.path_of(key), "must not be blank");
  }
  return text;
}

void check_env_name(const std::string& name, SourcePos pos, const std::string& path,
                    Problems& problems) {
  if (!is_env_name(name)) {
    problems.add(pos, path, "not a valid environment variable name");
  } else if (is_reserved_env_name(name)) {
    problems.add(pos, path, "names starting with BURST_ are reserved for burst");
  }
}

// One secrets item: a bare NAME or {name, optional}.
std::optional<SecretRef> read_secret(const yaml::Node& item, const std::string& path,
                                     Problems& problems) {
  SecretRef secret;
  if (item.is_scalar()) {
    secret.name = item.scalar();
    secret.pos = pos_of(item);
    check_env_name(secret.name, secret.pos, path, problems);
    return secret;
  }
  if (!item.is_map()) {
    problems.add(pos_of(item), path, "expected a string or a mapping, got " + kind_of(item));
    return std::nullopt;
  }
  Fields fields(item, path, kSecretFields, problems);
  if (std::optional<bool> optional = fields.boolean("optional")) secret.optional = *optional;
  std::optional<yaml::Node> name = fields.get("name", Need::kRequired);
  if (!name) return std::nullopt;
  std::optional<std::string> text = read_string(*name, path + ".name", problems);
  if (!text) return std::nullopt;
  secret.name = *text;
  secret.pos = pos_of(*name);
  check_env_name(secret.name, secret.pos, path + ".name", problems);
  return secret;
}

std::optional<Artefact> read_artefact(const yaml::Node& item, const std::string& path,
                                      const std::string& spec_dir, Problems& problems) {
  Fields fields(item, path, kArtefactFields, problems);
  if (!fields.ok()) return std::nullopt;
  Artefact artefact;
  artefact.pos = pos_of(item);
  std::optional<yaml::Node> remote = fields.get("remote", Need::kRequired);
  std::optional<std::string> remote_text =
      remote ? read_string(*remote, path + ".remote", problems) : std::nullopt;
  if (remote_text && !is_valid_artefact_remote(*remote_text)) {
    problems.add(pos_of(*remote), path + ".remote",
                 "must be relative to the code dir or start with $BURST_VOLUME/, got \"" +
                     *remote_text + "\"");
  }
  std::optional<std::string> local =
      fields.string("local", Need::kRequired);  // not a provider name
  if (!remote_text || !local) return std::nullopt;
  artefact.remote = *remote_text;
  artefact.local = resolve_local(spec_dir, *local);
  return artefact;
}

// Where column `column` (1-based) of a cron string is in the file: past the opening quote of a
// quoted value. A problem with the whole expression (column 1) points at the value itself, and
// so does any value the file may spell differently (escapes, line folds).
SourcePos cron_error_pos(const yaml::Node& node, const std::string& text, int column) {
  SourcePos pos = pos_of(node);
  if (column <= 1 || text.find_first_of("\\\n\"'") != std::string::npos) return pos;
  pos.column += (node.is_quoted() ? 1 : 0) + column - 1;
  return pos;
}

}  // namespace

// `text` made absolute against the spec's directory, normalised, without a trailing '/'.
std::string resolve_local(const std::string& spec_dir, const std::string& text) {
  fs::path p = fs::path(spec_dir) / fs::path(text);  // an absolute `text` replaces spec_dir
  p = p.lexically_normal();
  if (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
  return p.string();
}

std::string item_path(const std::string& list, size_t i) {
  return list + "[" + std::to_string(i) + "]";
}

std::optional<Fields> section(Fields& top, std::string_view key,
                              std::span<const std::string_view> known) {
  std::optional<yaml::Node> node = top.get(key);
  if (!node) return std::nullopt;
  Fields fields(*node, top.path_of(key), known, top.problems());
  if (!fields.ok()) return std::nullopt;
  return fields;
}

void parse_identity(Fields& top, PipelineSpec& spec) {
  if (std::optional<yaml::Node> node = top.get("version")) {
    std::optional<long> version =
        read_integer(*node, "version", LONG_MIN, LONG_MAX, top.problems());
    if (version && *version != 1) {
      top.problems().add(pos_of(*node), "version",
                         "unsupported version " + node->scalar() + " (this burst reads version 1)");
    }
  }
  std::optional<yaml::Node> name = top.get("name", Need::kRequired);
  std::optional<std::string> text =
      name ? read_string(*name, "name", top.problems()) : std::nullopt;
  if (text && !is_valid_name(*text))
    top.problems().add(pos_of(*name), "name", kBadName + *text + "\"");
  if (text) spec.name = *text;
  if (std::optional<std::string> image = top.string("image")) {
    // Refused here, before it reaches a command line or the terminal.
    if (!is_valid_image_ref(*image))
      top.problems().add(pos_of(*top.get("image")), "image", kBadImageRef);
    spec.image = *image;
  }
  // image_size_gb: the image's compressed size, when the spec knows it better than its registry.
  if (std::optional<double> gb = top.positive_number("image_size_gb")) {
    if (*gb > 10000)
      top.problems().add(pos_of(*top.get("image_size_gb")), "image_size_gb",
                         "must be at most 10000 (GB), got " + top.get("image_size_gb")->scalar());
    else
      spec.image_size_gb = *gb;
  }
  // Defaults that follow from the name, for the sections that may not be there.
  spec.volume.name = spec.name;
  spec.code.remote_dir = "$BURST_VOLUME/" + spec.name;
}

// workload.items_file: a relative path inside the code dir (read when the job starts).
void parse_items_file(Fields& w, Workload& out) {
  std::optional<yaml::Node> node = w.get("items_file");
  if (!node) return;
  const std::string path = w.path_of("items_file");
  std::optional<std::string> file = read_string(*node, path, w.problems());
  if (!file) return;
  const fs::path parts(*file);
  const bool escapes =
      std::any_of(parts.begin(), parts.end(), [](const fs::path& part) { return part == ".."; });
  if (file->empty() || file->starts_with('/') || escapes) {
    w.problems().add(pos_of(*node), path,
                     "must be a path relative to code.dir without \"..\", got \"" + *file + "\"");
    return;
  }
  out.items_file = *file;
  out.items_file_pos = pos_of(*node);
}

// workload.tensor_parallel: llm-inference only, and not llama.cpp, which splits a model by
// layers (its default --split-mode layer) rather than sharding each tensor.
void parse_tensor_parallel(Fields& w, Workload& out) {
  constexpr long kMostGpus = 1024;  // the cost model's kMaxGpus: the widest job it sizes
  out.tensor_parallel = w.integer("tensor_parallel", 1, kMostGpus);
  if (!out.tensor_parallel) return;
  const yaml::Node node = *w.get("tensor_parallel");
  if (!out.kind.empty() && out.kind != "llm-inference") {
    w.problems().add(pos_of(node), w.path_of("tensor_parallel"),
                     "only applies to workload kind llm-inference");
    out.tensor_parallel.reset();
  } else if (out.engine == "llama.cpp") {
    w.problems().add(pos_of(node), w.path_of("tensor_parallel"),
                     "llama.cpp splits a model across cards by layers, not tensors; give "
                     "resources.gpu_count instead");
    out.tensor_parallel.reset();
  }
}

// A field only a batching engine (vllm, sglang, tensorrt-llm) of llm-inference takes: refused
// at its line, saying what it `is`, for another kind or engine. False when refused.
bool batching_engine_field(Fields& w, const Workload& out, std::string_view key,
                           const std::string& is) {
  const yaml::Node node = *w.get(key);
  if (!out.kind.empty() && out.kind != "llm-inference") {
    w.problems().add(pos_of(node), w.path_of(key), "only applies to workload kind llm-inference");
    return false;
  }
  if (out.engine != "vllm" && out.engine != "sglang" && out.engine != "tensorrt-llm") {
    w.problems().add(pos_of(node), w.path_of(key),
                     is + ": set workload.engine to vllm, sglang or tensorrt-llm");
    return false;
  }
  return true;
}

// workload.gpu_memory_utilization: a share in (0, 1] of a batching engine that reserves memory.
void parse_memory_utilization(Fields& w, Workload& out) {
  out.gpu_memory_utilization = w.positive_number("gpu_memory_utilization");
  if (!out.gpu_memory_utilization) return;
  const yaml::Node node = *w.get("gpu_memory_utilization");
  if (*out.gpu_memory_utilization > 1) {
    w.problems().add(pos_of(node), w.path_of("gpu_memory_utilization"),
                     "is a share of the card's memory: at most 1 (got " + node.scalar() + ")");
    out.gpu_memory_utilization.reset();
  } else if (!batching_engine_field(w, out, "gpu_memory_utilization",
                                    "is the share a batching engine reserves")) {
    out.gpu_memory_utilization.reset();
  }
}

// workload.max_num_seqs: the scheduler's cap on sequences at once, of a batching engine.
void parse_max_num_seqs(Fields& w, Workload& out) {
  out.max_num_seqs = w.integer("max_num_seqs", 1, 1'000'000);
  if (out.max_num_seqs && !batching_engine_field(w, out, "max_num_seqs",
                                                 "is a batching engine's cap on sequences at once"))
    out.max_num_seqs.reset();
}

void parse_workload(Fields& top, PipelineSpec& spec) {
  std::optional<Fields> w = section(top, "workload", workload_field_names());
  if (!w) return;
  Workload& out = spec.workload;
  out.kind = w->one_of("kind", kKinds, Need::kRequired).value_or("");
  out.params_b = w->positive_number("params_b");
  out.precision = w->one_of("precision", kPrecisions).value_or("");
  out.items = w->integer("items", 1, LONG_MAX);
  out.steps = w->integer("steps", 1, LONG_MAX);
  out.batch = w->integer("batch", 1, LONG_MAX);
  out.concurrency = w->integer("concurrency", 1, LONG_MAX);
  out.context_tokens = w->integer("context_tokens", 1, LONG_MAX);
  out.tokens = w->integer("tokens", 1, LONG_MAX);
  if (std::optional<yaml::Node> mode = w->get("mode")) {
    std::string path = w->path_of("mode");
    std::optional<std::string> text = read_one_of(*mode, path, kModes, w->problems());
    // Only reported for a kind we know is not training; a bad or missing kind has its own error.
    if (text && !out.kind.empty() && out.kind != "llm-training") {
      w->problems().add(pos_of(*mode), path, "only applies to workload kind llm-training");
    } else if (text) {
      out.mode = *text;
    }
  }
  out.layers = w->integer("layers", 1, LONG_MAX);
  out.hidden = w->integer("hidden", 1, LONG_MAX);
  out.heads = w->integer("heads", 1, LONG_MAX);
  out.kv_heads = w->integer("kv_heads", 1, LONG_MAX);
  out.model = w->string("model").value_or("");
  if (std::optional<yaml::Node> node = w->get("model")) out.model_pos = pos_of(*node);
  out.active_params_b = w->positive_number("active_params_b");
  parse_shape_fields(*w, out);  // experts, attention_window, kv_latent
  out.head_dim = w->integer("head_dim", 1, LONG_MAX);
  out.vocab = w->integer("vocab", 1, LONG_MAX);
  out.intermediate = w->integer("intermediate", 1, LONG_MAX);
  out.tied_embeddings = w->boolean("tied_embeddings");
  out.kv_precision = w->one_of("kv_precision", kKvPrecisions).value_or("");
  out.engine = w->one_of("engine", kEngines).value_or("");
  parse_tensor_parallel(*w, out);
  parse_memory_utilization(*w, out);
  parse_max_num_seqs(*w, out);
  out.weights_from = w->one_of("weights_from", kWeightsFrom).value_or("");
  parse_training_fields(*w, out);   // gradient_checkpointing, lora_rank, lora_targets
  parse_diffusion_fields(*w, out);  // architecture, resolution, frames, audio, guidance
  parse_items_file(*w, out);
  std::optional<Fields> r = section(*w, "reference", kReferenceFields);
  if (!r) return;
  WorkloadReference ref;
  ref.gpu = r->string("gpu", Need::kRequired).value_or("");
  ref.runtime_seconds = r->duration("runtime", Need::kRequired).value_or(0);
  ref.bound = r->one_of("bound", kBounds).value_or("");
  out.reference = ref;
}

void parse_volume(Fields& top, PipelineSpec& spec) {
  std::optional<Fields> v = section(top, "volume", kVolumeFields);
  if (!v) return;
  VolumeSpec& out = spec.volume;
  if (std::optional<yaml::Node> name = v->get("name")) {
    std::optional<std::string> text = read_string(*name, "volume.name", top.problems());
    if (text && !is_valid_name(*text)) {
      top.problems().add(pos_of(*name), "volume.name", kBadName + *text + "\"");
    }
    if (text) out.name = *text;
  }
  out.size_gb = static_cast<int>(v->integer("size_gb", 1, INT_MAX).value_or(50));
  if (std::optional<yaml::Node> mount = v->get("mount")) {
    std::optional<std::string> text = read_string(*mount, "volume.mount", top.problems());
    if (text && !text->starts_with('/')) {
      top.problems().add(pos_of(*mount), "volume.mount",
                         "must be an absolute path, got \"" + *text + "\"");
    }
    // It names a directory in remote shell commands: no newline or other control byte.
    if (text && std::any_of(text->begin(), text->end(), [](char c) {
          return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
        })) {
      top.problems().add(pos_of(*mount), "volume.mount", "must not contain control characters");
    }
    if (text) out.mount = *text;
  }
}

void parse_env(Fields& top, PipelineSpec& spec) {
  std::optional<yaml::Node> env = top.get("env");
  if (!env) return;
  Problems& problems = top.problems();
  if (!env->is_map()) {
    problems.add(pos_of(*env), "env", "expected a mapping, got " + kind_of(*env));
    return;
  }
  for (auto it = env->begin(); it != env->end(); ++it) {
    std::string name = key_name(it->first);
    std::string path = "env." + name;
    if (spec.env.contains(name)) {
      problems.add(pos_of(it->first), path, "duplicate field");
      continue;
    }
    check_env_name(name, pos_of(it->first), path, problems);
    // "NAME:" with no value sets NAME to the empty string.
    std::optional<std::string> value =
        it->second.is_null() ? std::string() : read_string(it->second, path, problems);
    spec.env[name] = value.value_or("");
  }
}

void parse_secrets(Fields& top, PipelineSpec& spec) {
  std::optional<yaml::Node> list = top.get("secrets");
  if (!list) return;
  Problems& problems = top.problems();
  if (!list->is_sequence()) {
    problems.add(pos_of(*list), "secrets", "expected a list, got " + kind_of(*list));
    return;
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < list->size(); ++i) {
    std::string path = item_path("secrets", i);
    std::optional<SecretRef> secret = read_secret((*list)[i], path, problems);
    if (!secret) continue;
    if ((*list)[i].is_map()) path += ".name";
    if (spec.env.contains(secret->name)) {
      problems.add(secret->pos, path,
                   secret->name +
                       " is also set in env; a secret's value comes only from your "
                       "environment");
    } else if (!seen.insert(secret->name).second) {
      problems.add(secret->pos, path, secret->name + " is listed more than once");
    }
    spec.secrets.push_back(*secret);
  }
}

void parse_steps(Fields& top, PipelineSpec& spec) {
  spec.setup = script(top, "setup", Need::kOptional).value_or("");
  spec.run = script(top, "run", Need::kRequired).value_or("");
  spec.pull_on_failure = top.boolean("pull_on_failure").value_or(true);
  std::optional<Fields> u = section(top, "upload", kUploadFields);
  if (!u) return;
  UploadSpec upload;
  upload.image = u->string("image").value_or(spec.image);
  upload.run = script(*u, "run", Need::kRequired).value_or("");
  spec.upload = upload;
}

// One prepare.creates item: a path relative to the volume, never leaving it.
static void check_creates_path(const yaml::Node& item, const std::string& path, Problems& problems,
                               std::vector<std::string>* out) {
  std::optional<std::string> text = read_string(item, path, problems);
  if (!text) return;
  bool dotdot = false;
  size_t start = 0;
  while (start <= text->size()) {
    size_t end = text->find('/', start);
    if (end == std::string::npos) end = text->size();
    dotdot = dotdot || text->compare(start, end - start, "..") == 0;
    start = end + 1;
  }
  if (text->empty() || text->front() == '/' || dotdot) {
    problems.add(pos_of(item), path,
                 "must be a path relative to the volume, without \"..\"; got \"" + *text + "\"");
    return;
  }
  out->push_back(*text);
}

void parse_prepare(Fields& top, PipelineSpec& spec) {
  std::optional<Fields> p = section(top, "prepare", kPrepareFields);
  if (!p) return;
  PrepareSpec prepare;
  prepare.pos = p->pos();
  prepare.image = p->string("image").value_or(spec.image);
  prepare.run = script(*p, "run", Need::kRequired).value_or("");
  prepare.download_gb = p->non_negative_number("download_gb");
  if (std::optional<yaml::Node> list = p->get("creates")) {
    if (!list->is_sequence()) {
      top.problems().add(pos_of(*list), "prepare.creates",
                         "expected a list, got " + kind_of(*list));
    } else {
      for (size_t i = 0; i < list->size(); ++i)
        check_creates_path((*list)[i], item_path("prepare.creates", i), top.problems(),
                           &prepare.creates);
    }
  }
  spec.prepare = prepare;
}

void parse_artefacts(Fields& top, PipelineSpec& spec) {
  std::optional<yaml::Node> list = top.get("artefacts");
  if (!list) return;
  if (!list->is_sequence()) {
    top.problems().add(pos_of(*list), "artefacts", "expected a list, got " + kind_of(*list));
    return;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    std::optional<Artefact> artefact =
        read_artefact((*list)[i], item_path("artefacts", i), spec.dir, top.problems());
    if (artefact) spec.artefacts.push_back(*artefact);
  }
}

void parse_budget(Fields& top, PipelineSpec& spec) {
  std::optional<Fields> b = section(top, "budget", kBudgetFields);
  if (!b) return;
  spec.budget.max_usd = b->positive_number("max_usd");
  spec.budget.max_runtime_seconds = b->duration("max_runtime");
  spec.budget.deadline_seconds = b->duration("deadline");
}

void parse_schedule(Fields& top, PipelineSpec& spec) {
  std::optional<Fields> s = section(top, "schedule", kScheduleFields);
  if (!s) return;
  Schedule schedule;
  if (std::optional<yaml::Node> cron = s->get("cron", Need::kRequired)) {
    std::optional<std::string> text = read_string(*cron, "schedule.cron", top.problems());
    schedule.pos = pos_of(*cron);
    schedule.cron = text.value_or("");
    schedule::CronError error;
    if (text && !schedule::CronExpr::parse(*text, &error)) {
      top.problems().add(cron_error_pos(*cron, *text, error.column), "schedule.cron", error.text());
    }
  }
  if (std::optional<yaml::Node> zone = s->get("timezone")) {
    std::optional<std::string> name = read_string(*zone, "schedule.timezone", top.problems());
    if (name) {
      Result<schedule::TimeZone> loaded = schedule::load_time_zone(*name);
      if (!loaded.ok()) {
        top.problems().add(pos_of(*zone), "schedule.timezone", loaded.error().message);
      }
      schedule.timezone = *name;
    }
  }
  schedule.missed = s->one_of("missed", kMissedPolicies).value_or("run-once");
  schedule.overlap = s->boolean("overlap").value_or(false);
  spec.schedule = schedule;
}

}  // namespace burst::spec
