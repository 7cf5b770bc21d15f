// `burst estimate`: the cost model answering an ad-hoc question without a spec file. Builds a
// Workload from a few numbers, then for every catalog GPU: how many it takes, how long, what it
// costs at the cheapest offline price, and (inference) the serving cost per 1M tokens rented vs
// owned with the utilization at which buying breaks even. Formulas: docs/cost-model.md.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "burst/gpu_catalog.h"
#include "burst/result.h"

namespace burst {

struct EstimateQuery {
  double params_b = 0;         // 0: from `model`
  double active_params_b = 0;  // a mixture of experts: parameters a token uses (0: all, or the
                               // model's)
  std::optional<long> experts, experts_per_token;  // routed experts, and how many a token uses
  std::string model;         // a built-in model shape (burst/cost_model.h model_shapes())
  std::string kv_precision;  // infer: "" (fp16) | fp16 | fp8
  std::string mode;          // "train" | "infer" | "diffusion"
  std::string method;        // train: "full" (default) | "lora" | "qlora"
  std::optional<bool> gradient_checkpointing;  // train; default on for lora/qlora
  std::optional<long> lora_rank;               // train lora/qlora; default 16
  std::vector<std::string> lora_targets;       // train lora/qlora: q k v o gate up down
  std::string precision;                       // "" = bf16 for train, fp16 otherwise
  std::optional<long> tokens;  // train: tokens to process; infer: tokens to generate in all
  std::optional<long> context_tokens;
  std::optional<long> concurrency;  // infer: sequences decoded together
  std::optional<long> items;        // diffusion
  std::optional<long> steps;        // diffusion: denoising steps per item
  std::optional<long> batch;
  // diffusion: unet | dit | flow-tts, image width (and height; unset: square) in pixels, video
  // frames, seconds of audio per item, guidance
  std::string architecture;
  std::optional<long> resolution;
  std::optional<long> height;
  std::optional<long> frames;
  std::optional<double> audio_seconds;
  std::optional<double> guidance;
  std::optional<bool> cfg_parallel;      // diffusion: guidance's passes on two halves of a group
  std::optional<bool> guidance_batched;  // diffusion: the passes in one call a step (default)
  std::string attention_kernel;          // diffusion: fa2 (default) | fa3
  std::string offload;                   // diffusion: none (default) | model | sequential
  std::string engine;       // infer: llama.cpp | vllm | tensorrt-llm | pytorch | "" (none named)
  std::optional<int> gpus;  // price exactly this many GPUs of each type (no fit when too few;
                            // a batching engine queues what its share does not hold)
  // infer: the cards one copy of the model is sharded over; without `gpus`, each type is priced
  // on exactly this many (one copy), else gpus / tensor_parallel copies.
  std::optional<long> tensor_parallel;
  // diffusion (a transformer denoiser): the cards one item's tokens are split over; without
  // `gpus`, each type is priced on exactly this many (one copy), else gpus / N copies.
  std::optional<long> sequence_parallel;
  // infer with vllm, sglang or tensorrt-llm: the engine's memory share (Workload's field).
  std::optional<double> gpu_memory_utilization;
  // infer with vllm, sglang or tensorrt-llm: the engine's cap on sequences at once (Workload's
  // max_num_seqs).
  std::optional<long> max_num_seqs;
  double usd_per_kwh = 0.15;  // owned: electricity price (docs/cost-model.md)
  double life_years = 3;      // owned: straight-line depreciation period
  double utilization = 1;     // owned: share of the life the card is busy (0..1]
};

struct GpuEstimate {
  std::string gpu;
  int count = 0;                       // GPUs needed; 0 = does not fit on kMaxGpus
  std::string bound;                   // bandwidth | compute | capacity | overhead
  std::optional<double> seconds;       // unknown without tokens/items
  std::optional<double> usd_per_hour;  // cheapest offline price for `count` GPUs
  std::string provider;                // where that price is from
  // Machines the price spans: 1, or several of the provider's largest instance where no one
  // machine has `count` cards (NVLink and Infinity Fabric boards only: a cluster).
  int machines = 1;
  // Why `count` cards have no price though instances of the card do (more than any one machine
  // has, and the card is not one providers rent as multi-node clusters); empty otherwise.
  std::string unpriced_why;
  std::optional<double> usd;        // seconds x usd_per_hour
  std::optional<double> step_s;     // one step (a decode token, a denoising step)
  std::optional<double> prefill_s;  // one round's prompt (llm-inference)
  std::optional<double> comm_s;     // per step: collectives between the cards (multi-GPU)
  std::optional<double> offload_s;  // diffusion with an offload: the run's weight copies
  std::optional<double> moe_s;      // per decode step: a mixture of experts' fused-MoE floors
  // A mixture of experts, per decode step: the routed experts' bytes it reads, and all it reads.
  std::optional<double> expert_gib;
  std::optional<double> read_gib;
  // How run_time used the cards (burst/cost_model.h ParallelLayout): cards per copy of the
  // model, and copies; 0 where it did not run (the model does not fit, or no tokens or items
  // were given to time).
  int group = 0;
  int replicas = 0;
  // llm-inference only:
  double tokens_per_s = 0;
  // Sequences at the query's context that fit in `count` GPUs (with a tensor-parallel size,
  // summed over the copies, each holding its own weights); when the requested concurrency does
  // not fit (count 0), in the GPUs that hold one sequence. 0 only when one does not fit.
  long max_concurrency = 0;
  // A batching engine (vllm, sglang, tensorrt-llm) whose share on `count` GPUs holds fewer
  // sequences than asked runs this many at once and queues the rest (engine_admits); 0: all.
  long runs_at_once = 0;
  std::optional<double> rent_usd_per_mtok;
  std::optional<double> own_usd_per_mtok;  // at the query's utilization over life_years
  // Utilization (0..1) above which owning is cheaper than renting; unset when renting never
  // costs more than the electricity, or when there is no purchase or rent price.
  std::optional<double> breakeven_utilization;
};

struct EstimateReport {
  Workload workload;
  MemoryBreakdown memory;
  std::vector<GpuEstimate> gpus;  // fitting and priced first, cheapest first
};

// "7B", "0.5b", "500M", "1.5T" -> billions of parameters; a bare number is billions.
// `flag` names the option in the error.
Result<double> parse_params(const std::string& text, const std::string& flag = "--params");
// "1M", "100k", "2B", "4096" -> a count.
Result<long> parse_count(const std::string& text, const std::string& what);

// kInvalid for an unknown mode/method/precision or a bad number, with the flag named.
Result<Workload> workload_from_query(const EstimateQuery& q);

// Batch-1 decode speed from bandwidth alone: every weight read once per token, so tokens/s =
// bandwidth / weight bytes, at 100% of peak and at `efficiency` of it (the reference table).
struct DecodeRow {
  std::string gpu;
  double peak_tokens_per_s = 0;
  double tokens_per_s = 0;  // x efficiency
};
std::vector<DecodeRow> decode_table(const std::vector<GpuSpec>& catalog, double weight_bytes,
                                    double efficiency);

// Rent vs buy over a card's life at a utilization: GPU-hours used = utilization x life hours;
// rented = hours x $/hour; bought = purchase + power x hours; break-even = the utilization at
// which both are equal (purchase / (life hours x ($/hour - power $/hour))); unset when renting
// costs no more than the power. (Not report/rent_vs_buy.h's RentVsBuy, the monthly roll-up's
// verdict: one name for two types broke the one-definition rule.)
struct RentBuyTotals {
  double gpu_hours = 0;
  double rented_usd = 0;
  double bought_usd = 0;
  std::optional<double> breakeven_utilization;
};
RentBuyTotals rent_buy_totals(double usd_per_hour, double purchase_usd, double utilization,
                              double life_years, double power_usd_per_hour = 0);

// Owned cost per 1M tokens: (purchase over the life's busy hours + power per hour) / tokens per
// busy hour.
double own_usd_per_mtok(double purchase_usd, double life_years, double utilization,
                        double power_usd_per_hour, double tokens_per_s);

Result<EstimateReport> estimate_workload(const EstimateQuery& q,
                                         const std::vector<GpuSpec>& catalog,
                                         const PriceTable& prices, const Calibration& cal);

}  // namespace burst
