// The pipeline spec (v1) as plain values. Parsing lives in src/spec/ (on the YAML adapter,
// src/yaml/); everything else reads these structs. Field-by-field documentation:
// docs/pipeline-spec.md.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "burst/result.h"

namespace burst {

// Where a value came from in the spec file, for error messages ("file:line:col").
struct SourcePos {
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based
};

// workload.reference.gpu for a runtime measured on this machine (any GPU or none): a name in
// the spec's vocabulary, used as is rather than scaled through the GPU catalog.
inline constexpr const char* kThisMachineGpu = "local";  // not a provider name

struct WorkloadReference {
  std::string gpu;             // GPU type the runtime was measured on ("local" allowed)
  double runtime_seconds = 0;  // measured wall time of the whole run step on that GPU
  std::string bound;           // "bandwidth" | "compute" | "" (unknown)
};

// Facts about the work that the cost model needs. Issue 3 gives each kind its formula; v1 parses
// and keeps them so specs written today stay valid.
struct Workload {
  std::string kind;                    // "llm-inference" | "llm-training" | "diffusion" | "custom"
  std::optional<double> params_b;      // parameters, billions
  std::string precision;               // fp32 fp16 bf16 fp8 int8 int4 q8_0 q4_k_m q4_0 or ""
  std::optional<long> items;           // units of work (questions, images, requests)
  std::optional<long> steps;           // denoising steps per item
  std::optional<long> batch;           // items per batch
  std::optional<long> concurrency;     // concurrent requests (llm-inference)
  std::optional<long> context_tokens;  // context length (llm-inference)
  std::optional<long> tokens;          // tokens to generate or process
  std::string mode;                    // llm-training: "full" | "lora" | "qlora" | "" (unset)
  std::optional<long> layers;          // transformer layers
  std::optional<long> hidden;          // hidden size (model dimension)
  std::optional<long> heads;           // attention heads
  std::optional<long> kv_heads;        // key/value heads (fewer than heads with GQA/MQA)
  // A built-in model shape (burst/cost_model.h model_shapes()) filling every field above and
  // below that the spec leaves unset.
  std::string model;
  SourcePos model_pos;  // of `model`'s value: the application checks the name (cost model)
  std::optional<double> active_params_b;  // mixture of experts: parameters used per token
  // Mixture of experts: routed experts per layer, and how many each token uses. A decode step
  // of B sequences reads the experts their tokens pick (docs/cost-model.md, "llm-inference").
  std::optional<long> experts;
  std::optional<long> experts_per_token;
  // Local attention: `window_layers` of the layers attend only to the last `attention_window`
  // tokens (a sliding window, as Gemma 2/3 and gpt-oss; or chunks of that size, as Llama 4), so
  // their KV cache holds at most that many tokens a sequence. Both or neither.
  std::optional<long> attention_window;
  std::optional<long> window_layers;
  // Multi-head latent attention (DeepSeek V2/V3): the values each layer caches a token, in place
  // of kv_heads x head_dim keys and as many values (the config's kv_lora_rank + qk_rope_head_dim).
  std::optional<long> kv_latent;
  std::optional<long> head_dim;         // per attention head; default hidden / heads
  std::optional<long> vocab;            // vocabulary size (embeddings, logits)
  std::optional<long> intermediate;     // MLP hidden size (LoRA adapter sizes)
  std::optional<bool> tied_embeddings;  // input and output embeddings shared
  std::string kv_precision;             // llm-inference KV cache: fp16 | fp8 | "" (fp16)
  std::string engine;                   // llm-inference: llama.cpp, vllm, tensorrt-llm...
  // llm-inference: the cards one copy of the model is sharded over (vLLM's
  // --tensor-parallel-size); a pod runs gpus / tensor_parallel copies. Unset: the cost model
  // picks the smallest group that holds the model (docs/cost-model.md, "Multi-GPU").
  std::optional<long> tensor_parallel;
  // diffusion with a transformer denoiser: the cards one item's tokens are split over
  // (DeepSpeed-Ulysses: xDiT's --ulysses_degree, Wan's --ulysses_size); a pod runs
  // gpus / sequence_parallel copies. Unset: an item runs on one copy's cards, never split
  // (docs/cost-model.md, "One item over several cards").
  std::optional<long> sequence_parallel;
  SourcePos sequence_parallel_pos;  // of its value: the application checks the model's denoiser
  // With sequence_parallel N: classifier-free guidance's two passes run on two halves of each
  // group, Ulysses over N / 2 cards within a half (xDiT's --use_cfg_parallel). Unset or false:
  // both passes share the N-way split (docs/cost-model.md, "Guidance parallel").
  std::optional<bool> cfg_parallel;
  SourcePos cfg_parallel_pos;  // of its value: the application checks the denoiser's two passes
  // llm-inference with vllm, sglang or tensorrt-llm: the share of memory the engine takes (vLLM's
  // gpu_memory_utilization and SGLang's mem_fraction_static, of each card; TensorRT-LLM's
  // free_gpu_memory_fraction, of what is free once the weights are loaded). Unset: 0.9, each
  // engine's default (docs/cost-model.md, "llm-inference").
  std::optional<double> gpu_memory_utilization;
  // llm-inference with vllm, sglang or tensorrt-llm: the most sequences the engine's scheduler
  // runs at once (vLLM's --max-num-seqs, SGLang's --max-running-requests, TensorRT-LLM's
  // max_batch_size). Unset: vLLM's default by card (engine_max_sequences); SGLang's and
  // TensorRT-LLM's defaults are not modelled (docs/cost-model.md, "llm-inference").
  std::optional<long> max_num_seqs;
  // Where the weights are read from at each pod's start: hub | s3 | volume | local-disk; "" =
  // the volume where the store shows it staged, else a hub download (plan/weight_source.h).
  std::string weights_from;
  std::optional<bool> gradient_checkpointing;  // llm-training; default on for lora/qlora
  std::optional<long> lora_rank;               // lora/qlora adapter rank; default 16
  // lora/qlora: the projections that carry adapters, of q k v o gate up down; empty = all seven.
  std::vector<std::string> lora_targets;
  // diffusion: the denoiser's architecture ("unet" | "dit" | "flow-tts"; "" = from the model,
  // else dit), the latent it denoises (an image's side in pixels, or seconds of audio per item)
  // and the classifier-free guidance scale (> 1: a conditional and an unconditional pass per
  // step). docs/cost-model.md, "diffusion".
  // An image's or a video frame's size: `resolution` pixels wide and `height` high (`resolution:
  // 1280x720`); unset height: square. A video denoiser also takes its frames per item.
  std::string architecture;
  std::optional<long> resolution;
  std::optional<long> height;
  std::optional<long> frames;
  SourcePos frames_pos;  // of `frames`' value: the application checks it against the model
  std::optional<double> audio_seconds;
  std::optional<double> guidance;
  // Whether guidance's two passes run as one batched call a step (diffusers, F5-TTS 1.1.6 and
  // later) or as two calls (F5-TTS before 1.1.6): the per-call overhead is paid per call. Unset:
  // batched.
  std::optional<bool> guidance_batched;
  // The self-attention kernel a video denoiser runs: "fa2" (flash-attn 2.x, PyTorch SDPA's flash
  // backend) or "fa3" (FlashAttention 3, Hopper only). "" when unset: fa2.
  std::string attention_kernel;
  // What the pipeline keeps on the card (docs/cost-model.md, "Diffusion memory"): "none" (every
  // component through every phase; "" when unset), "model" (one component at a time, diffusers'
  // enable_model_cpu_offload, Wan's --offload_model) or "sequential" (weights streamed a module
  // at a time, enable_sequential_cpu_offload).
  std::string offload;
  std::optional<WorkloadReference> reference;
  // One item per line, relative to code.dir: each worker gets its shard on its pod
  // ($BURST_ITEMS_FILE). "" when unset.
  std::string items_file;
  SourcePos items_file_pos;
};

struct Resources {
  std::vector<std::string> providers;  // allowed, in preference order; empty = `local` only
  std::vector<std::string> gpus;       // allowed GPU type names; empty = any
  int gpu_count = 1;
  // A count per GPU type where the types differ (a SkyPilot any_of of L4:8 or A100_80GB:2): each
  // offer is held to its type's count; a type not listed takes gpu_count. Empty: gpu_count for
  // every type.
  std::map<std::string, int> gpu_counts;
  // The count a pod of `gpu_type` gets.
  int count_for(const std::string& gpu_type) const {
    auto it = gpu_counts.find(gpu_type);
    return it == gpu_counts.end() ? gpu_count : it->second;
  }
  std::optional<double> min_vram_gb;
  std::optional<double> max_usd_per_hour;
  bool spot = false;
  // Widest split `burst plan` and `burst run` consider (GPU pods per job); unset: the plan's
  // choice, up to the planner's own limit.
  std::optional<int> max_workers;
  // A fixed width: exactly this many GPU pods, each running setup and run (a SkyPilot file's
  // num_nodes). The plan prices that width only. Unset: the plan's choice (max_workers).
  std::optional<int> workers;
  int worker_retries = 1;  // a failed worker's shard runs again on a new pod this many times
  // resources.merge: false (per-worker, the default): each worker's artefacts in <local>/w<i>/;
  // true (flat): all in <local>/, a file two workers brought home refused (job/artefact_merge.h).
  bool merge_flat = false;
  // resources.multi_gpu: "replicas" (one copy of the run step per GPU group, each its share of
  // the items), "program" (one copy sees every GPU), or "" (the default by workload;
  // plan/pod_layout.h).
  std::string multi_gpu;
  // resources.disk_gb: the GPU pod's own disk (container disk) in GB, wiped when the pod goes;
  // SkyPilot's disk_size. Unset: the provider's default (RunPod 50 GB, burst's 32 GB on Vast).
  std::optional<int> disk_gb;
};

struct VolumeSpec {
  std::string name;  // default: the pipeline's name
  int size_gb = 50;
  std::string mount = "/workspace";  // mount path on cloud pods; $BURST_VOLUME everywhere
};

// code.add: a local file or directory from outside code.dir, synced with the code to `to`
// (relative to the code dir on the pod), e.g. a credentials file a SkyPilot file_mounts names.
struct CodeAdd {
  std::string from;  // absolute local path (`~/` expanded when the spec is read)
  std::string to;    // relative, no "..", its first part not in code.dir (the local view links it)
  SourcePos pos;
};

struct CodeSpec {
  std::string dir;                   // local dir, resolved against the spec file's dir
  std::vector<std::string> exclude;  // gitignore-style patterns
  bool gitignore = true;             // honour .gitignore files in dir
  std::string remote_dir;            // default: "$BURST_VOLUME/<name>"
  std::vector<CodeAdd> add;          // synced with the code; not filtered by exclude
  bool synced() const { return !dir.empty() || !add.empty(); }  // anything to sync
};

struct Artefact {
  std::string remote;  // path or glob, relative to the remote code dir
  std::string local;   // local dir, resolved against the spec file's dir
  SourcePos pos;
};

struct UploadSpec {
  std::string image;  // CPU pod image; default: the spec's image
  std::string run;    // shell script run on the CPU pod
};

// A step that stages the volume before the GPU pod exists (typically: download model weights).
// The plan decides where it runs (plan/prepare.h): on a CPU pod with the volume when that is
// cheaper, else on the GPU pod; skipped when every `creates` path already exists on the volume.
struct PrepareSpec {
  std::string image;                  // CPU pod image; default: the spec's image
  std::string run;                    // shell script; runs in $BURST_WORKDIR, before the sync
  std::vector<std::string> creates;   // paths relative to the volume the step produces
  std::optional<double> download_gb;  // what it fetches; default: the workload's weights
  SourcePos pos;                      // of the `prepare` key's value
};

struct Budget {
  std::optional<double> max_usd;
  std::optional<double> max_runtime_seconds;  // the run step's wall-clock limit
  // Why max_runtime has a value the file did not give (a SkyPilot task that would run until
  // stopped gets a default); "" when the file gave it or it is unset. The plan prints it.
  std::string max_runtime_default_why;
  std::optional<double> deadline_seconds;  // the whole job (all phases) must finish within it
};

// When burstd runs the pipeline; the rules are in docs/schedules.md.
struct Schedule {
  std::string cron;                 // 5-field cron or @daily etc. (validated by the parser)
  std::string timezone = "UTC";     // IANA name, checked against the system's zoneinfo
  std::string missed = "run-once";  // "skip" | "run-once": fire times missed while down
  bool overlap = false;             // may a run start while the previous one still runs
  SourcePos pos;                    // of the cron value
};

struct SecretRef {
  std::string name;       // environment variable name, read locally at run time
  bool optional = false;  // if unset locally: skip it (true) or refuse to run (false)
  SourcePos pos;
};

struct PipelineSpec {
  std::string path;  // the file it was read from
  // Read from a SkyPilot task file: its resources.providers come from SkyPilot's `cloud:`, never
  // the user's choice of burst's local cloud (app/local_choice.h).
  bool from_skypilot = false;
  std::string dir;  // that file's directory (absolute)
  int version = 1;
  std::string name;
  Workload workload;
  Resources resources;
  VolumeSpec volume;
  std::string image = "ubuntu:22.04";
  // The image's compressed size in GB (1e9 bytes), when the spec states it: wins over the
  // registry's answer (app/image_size_lookup.h); > 0 and at most 10000.
  std::optional<double> image_size_gb;
  std::map<std::string, std::string> env;
  std::vector<SecretRef> secrets;
  CodeSpec code;
  std::string setup;  // shell script; may be empty
  std::string run;    // shell script; required
  std::vector<Artefact> artefacts;
  bool pull_on_failure = true;  // pull what exists when run fails or is interrupted
  std::optional<UploadSpec> upload;
  std::optional<PrepareSpec> prepare;
  Budget budget;
  std::optional<Schedule> schedule;
};

// One problem found in a spec, already formatted as "file:line:col: field.path: message".
struct SpecError {
  std::string text;
};

// Parses and validates a spec file. On failure returns every problem found, in file order; the
// caller prints them one per line and exits 2. Writes nothing; besides the file it only looks
// at code.dir and reads the time zone database (schedule.timezone). `providers` is what
// resources.providers may name, in the order messages list them: the registry's names
// (providers/registry.h, provider_names()), handed in so the spec knows no provider itself.
// A diffusion size as workload.resolution and `burst estimate --resolution` take it: "1024" (a
// square's side) or "1280x720" (width x height), each side 8 to 65536 pixels; kInvalid saying
// what was expected otherwise.
inline constexpr long kMinImageSide = 8;
inline constexpr long kMaxImageSide = 65536;
struct ImageSize {
  long width = 0;
  std::optional<long> height;  // unset: square
};
Result<ImageSize> parse_image_size(const std::string& text);

Result<PipelineSpec> load_spec_file(const std::string& path, std::vector<SpecError>* errors,
                                    const std::vector<std::string>& providers);

// Same, for YAML text already in memory; `path` only names it in messages and resolves dirs.
Result<PipelineSpec> parse_spec(const std::string& yaml_text, const std::string& path,
                                std::vector<SpecError>* errors,
                                const std::vector<std::string>& providers);

}  // namespace burst
