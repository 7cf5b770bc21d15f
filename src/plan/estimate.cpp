#include "plan/estimate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <string>

#include "cost/owned_cost.h"

namespace burst {
namespace {

Result<double> parse_scaled(const std::string& text, const std::string& what, double bare) {
  if (text.empty()) return make_error(ErrorCode::kInvalid, what + ": expected a number");
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  std::string suffix(end);
  for (char& ch : suffix) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  double scale = bare;
  if (suffix == "k")
    scale = 1e3;
  else if (suffix == "m")
    scale = 1e6;
  else if (suffix == "b")
    scale = 1e9;
  else if (suffix == "t")
    scale = 1e12;
  else if (!suffix.empty() || end == text.c_str())
    return make_error(ErrorCode::kInvalid,
                      what + ": \"" + text + "\" is not a number like 7B, 500M, 100k or 4096");
  if (!(v > 0) || !std::isfinite(v))
    return make_error(ErrorCode::kInvalid, what + ": must be > 0 (got " + text + ")");
  return v * scale;
}

// Cheapest on-demand offline price for `count` GPUs of `gpu` (the smallest instance that has at
// least that many).
const PriceEntry* cheapest(const PriceTable& prices, const std::string& gpu, int count) {
  const PriceEntry* best = nullptr;
  for (const PriceEntry& e : prices.entries) {
    if (e.gpu != gpu || e.gpu_count < count) continue;
    if (!best || e.gpu_count < best->gpu_count ||
        (e.gpu_count == best->gpu_count && e.usd_per_hour < best->usd_per_hour))
      best = &e;
  }
  return best;
}

// The biggest instance of `gpu` (cheapest among equals): a node to multiply beyond 8 GPUs.
const PriceEntry* largest(const PriceTable& prices, const std::string& gpu) {
  const PriceEntry* best = nullptr;
  for (const PriceEntry& e : prices.entries) {
    if (e.gpu != gpu) continue;
    if (!best || e.gpu_count > best->gpu_count ||
        (e.gpu_count == best->gpu_count && e.usd_per_hour < best->usd_per_hour))
      best = &e;
  }
  return best;
}

// --gradient-checkpointing, --lora-rank and --lora-targets into `w`, refused where they do not
// apply (the names as src/cost/training_memory.h's kLoraTargets).
Result<bool> training_inputs(const EstimateQuery& q, Workload& w) {
  if (q.gradient_checkpointing && w.kind != "llm-training")
    return make_error(ErrorCode::kInvalid, "--gradient-checkpointing only applies to --mode train");
  if (!q.lora_rank && q.lora_targets.empty()) {
    w.gradient_checkpointing = q.gradient_checkpointing;
    return true;
  }
  if (w.mode != "lora" && w.mode != "qlora")
    return make_error(ErrorCode::kInvalid,
                      "--lora-rank and --lora-targets only apply to --method lora or qlora");
  static const std::string kTargets[] = {"q", "k", "v", "o", "gate", "up", "down"};
  for (const std::string& t : q.lora_targets) {
    if (std::find(std::begin(kTargets), std::end(kTargets), t) == std::end(kTargets))
      return make_error(ErrorCode::kInvalid,
                        "--lora-targets: \"" + t + "\" is not one of q, k, v, o, gate, up, down");
  }
  w.gradient_checkpointing = q.gradient_checkpointing;
  w.lora_rank = q.lora_rank;
  w.lora_targets = q.lora_targets;
  return true;
}

}  // namespace

std::vector<DecodeRow> decode_table(const std::vector<GpuSpec>& catalog, double weight_bytes,
                                    double efficiency) {
  std::vector<DecodeRow> out;
  if (!(weight_bytes > 0)) return out;
  for (const GpuSpec& g : catalog) {
    const double peak = g.mem_bw_gbs * 1e9 / weight_bytes;
    out.push_back({g.name, peak, peak * efficiency});
  }
  std::stable_sort(out.begin(), out.end(), [](const DecodeRow& a, const DecodeRow& b) {
    return a.peak_tokens_per_s > b.peak_tokens_per_s;
  });
  return out;
}

RentBuyTotals rent_buy_totals(double usd_per_hour, double purchase_usd, double utilization,
                              double life_years, double power_usd_per_hour) {
  RentBuyTotals r;
  const double life_h = life_years * kHoursPerYear;
  r.gpu_hours = utilization * life_h;
  r.rented_usd = r.gpu_hours * usd_per_hour;
  r.bought_usd = purchase_usd + r.gpu_hours * power_usd_per_hour;
  if (usd_per_hour > power_usd_per_hour && life_h > 0)
    r.breakeven_utilization = purchase_usd / (life_h * (usd_per_hour - power_usd_per_hour));
  return r;
}

double own_usd_per_mtok(double purchase_usd, double life_years, double utilization,
                        double power_usd_per_hour, double tokens_per_s) {
  const double busy_h = life_years * kHoursPerYear * utilization;
  const double mtok_per_hour = tokens_per_s * 3600 / 1e6;
  if (!(busy_h > 0) || !(mtok_per_hour > 0)) return 0;
  return owned_usd_per_hour(purchase_usd, life_years, utilization, power_usd_per_hour) /
         mtok_per_hour;
}

Result<double> parse_params(const std::string& text, const std::string& flag) {
  auto v = parse_scaled(text, flag, 1e9);
  if (!v.ok()) return v.error();
  return *v / 1e9;
}

Result<long> parse_count(const std::string& text, const std::string& what) {
  auto v = parse_scaled(text, what, 1);
  if (!v.ok()) return v.error();
  if (*v < 1 || *v > 9e18) return make_error(ErrorCode::kInvalid, what + ": out of range");
  return static_cast<long>(std::llround(*v));
}

Result<Workload> workload_from_query(const EstimateQuery& q) {
  Workload w;
  if (q.mode == "train")
    w.kind = "llm-training";
  else if (q.mode == "infer")
    w.kind = "llm-inference";
  else if (q.mode == "diffusion")
    w.kind = "diffusion";
  else
    return make_error(ErrorCode::kInvalid,
                      "--mode: \"" + q.mode + "\" is not one of train, infer, diffusion");
  if (!q.method.empty()) {
    if (w.kind != "llm-training")
      return make_error(ErrorCode::kInvalid, "--method only applies to --mode train");
    if (q.method != "full" && q.method != "lora" && q.method != "qlora")
      return make_error(ErrorCode::kInvalid,
                        "--method: \"" + q.method + "\" is not one of full, lora, qlora");
    w.mode = q.method;
  }
  auto training = training_inputs(q, w);
  if (!training.ok()) return training.error();
  if (!(q.params_b > 0) && q.model.empty())
    return make_error(ErrorCode::kInvalid,
                      "--params or --model is required (e.g. --params 7B, --model llama-3-8b)");
  if (q.params_b > 0) w.params_b = q.params_b;
  w.model = q.model;
  if (q.active_params_b > 0) {
    if (q.params_b > 0 && q.active_params_b > q.params_b)
      return make_error(ErrorCode::kInvalid, "--active-params is more than --params");
    w.active_params_b = q.active_params_b;
  }
  if (q.experts.has_value() != q.experts_per_token.has_value())
    return make_error(ErrorCode::kInvalid, "--experts and --experts-per-token go together");
  if (q.experts) {
    if (*q.experts_per_token > *q.experts)
      return make_error(ErrorCode::kInvalid, "--experts-per-token is more than --experts");
    if (!(q.active_params_b > 0) && q.model.empty())
      return make_error(ErrorCode::kInvalid,
                        "--experts needs --active-params (or --model) to tell the experts' "
                        "weights from the shared ones");
    w.experts = q.experts;
    w.experts_per_token = q.experts_per_token;
  }
  if (!q.kv_precision.empty()) {
    if (w.kind != "llm-inference")
      return make_error(ErrorCode::kInvalid, "--kv-precision only applies to --mode infer");
    if (q.kv_precision != "fp16" && q.kv_precision != "bf16" && q.kv_precision != "fp8")
      return make_error(ErrorCode::kInvalid,
                        "--kv-precision: \"" + q.kv_precision + "\" is not one of fp16, fp8");
    w.kv_precision = q.kv_precision;
  }
  if (!(q.utilization > 0 && q.utilization <= 1))
    return make_error(ErrorCode::kInvalid, "--utilization must be in (0, 1]");
  if (!q.engine.empty()) {
    if (w.kind != "llm-inference")
      return make_error(ErrorCode::kInvalid, "--engine only applies to --mode infer");
    if (!known_engine(q.engine))
      return make_error(ErrorCode::kInvalid, "--engine: \"" + q.engine +
                                                 "\" is not one of llama.cpp, vllm, "
                                                 "sglang, tensorrt-llm, pytorch");
    w.engine = q.engine;
  }
  // The flags only a batching engine takes, refused for another with what they are.
  auto batching_only = [&](const char* flag, const std::string& is) -> Status {
    if (w.kind != "llm-inference")
      return make_error(ErrorCode::kInvalid, std::string(flag) + " only applies to --mode infer");
    if (!engine_reserves_share(w.engine))
      return make_error(ErrorCode::kInvalid, std::string(flag) + " " + is +
                                                 ": give --engine vllm, sglang or tensorrt-llm");
    return Status::Ok();
  };
  if (q.gpu_memory_utilization) {
    if (!(*q.gpu_memory_utilization > 0 && *q.gpu_memory_utilization <= 1))
      return make_error(ErrorCode::kInvalid, "--gpu-memory-utilization must be in (0, 1]");
    if (auto ok =
            batching_only("--gpu-memory-utilization", "is the share a batching engine reserves");
        !ok)
      return ok.error();
    w.gpu_memory_utilization = q.gpu_memory_utilization;
  }
  if (q.max_num_seqs) {
    if (auto ok =
            batching_only("--max-num-seqs", "is a batching engine's cap on sequences at once");
        !ok)
      return ok.error();
    w.max_num_seqs = q.max_num_seqs;
  }
  if (q.gpus && (*q.gpus < 1 || *q.gpus > kMaxGpus))
    return make_error(ErrorCode::kInvalid, "--gpus must be in 1.." + std::to_string(kMaxGpus));
  if (q.tensor_parallel) {
    if (w.kind != "llm-inference")
      return make_error(ErrorCode::kInvalid, "--tensor-parallel only applies to --mode infer");
    if (w.engine == "llama.cpp")
      return make_error(ErrorCode::kInvalid,
                        "--tensor-parallel: llama.cpp splits a model across cards by layers, not "
                        "tensors; give --gpus instead");
    if (*q.tensor_parallel > kMaxGpus)
      return make_error(ErrorCode::kInvalid,
                        "--tensor-parallel must be in 1.." + std::to_string(kMaxGpus));
    if (q.gpus && *q.gpus < *q.tensor_parallel)
      return make_error(ErrorCode::kInvalid, "--gpus " + std::to_string(*q.gpus) +
                                                 " is fewer than --tensor-parallel " +
                                                 std::to_string(*q.tensor_parallel));
    w.tensor_parallel = q.tensor_parallel;
  }
  w.precision = q.precision;
  if (!q.precision.empty()) {
    auto bpp = bytes_per_param(q.precision);
    if (!bpp.ok()) return make_error(ErrorCode::kInvalid, "--precision: " + bpp.error().message);
  }
  const bool diffusion_input = !q.architecture.empty() || q.resolution || q.frames ||
                               q.audio_seconds || q.guidance || q.guidance_batched ||
                               !q.attention_kernel.empty() || q.sequence_parallel ||
                               q.cfg_parallel || !q.offload.empty();
  if (diffusion_input && w.kind != "diffusion")
    return make_error(ErrorCode::kInvalid,
                      "--arch, --resolution, --frames, --audio-seconds, --guidance, "
                      "--guidance-batched, --attention-kernel, --sequence-parallel, --cfg-parallel "
                      "and --offload only apply to --mode diffusion");
  if (q.sequence_parallel) {
    if (*q.sequence_parallel < 1 || *q.sequence_parallel > kMaxGpus)
      return make_error(ErrorCode::kInvalid,
                        "--sequence-parallel must be in 1.." + std::to_string(kMaxGpus));
    if (q.gpus && *q.gpus < *q.sequence_parallel)
      return make_error(ErrorCode::kInvalid, "--gpus " + std::to_string(*q.gpus) +
                                                 " is fewer than --sequence-parallel " +
                                                 std::to_string(*q.sequence_parallel));
    w.sequence_parallel = q.sequence_parallel;
  }
  if (q.cfg_parallel.value_or(false)) {
    if (!q.sequence_parallel)
      return make_error(ErrorCode::kInvalid,
                        "--cfg-parallel needs --sequence-parallel: guidance's two passes run on "
                        "two halves of a sequence-parallel group (--sequence-parallel 2 runs one "
                        "pass a card)");
    w.cfg_parallel = true;
  }
  if (!q.attention_kernel.empty() && q.attention_kernel != "fa2" && q.attention_kernel != "fa3")
    return make_error(ErrorCode::kInvalid,
                      "--attention-kernel: \"" + q.attention_kernel + "\" is not one of fa2, fa3");
  if (!q.offload.empty() && q.offload != "none" && q.offload != "model" &&
      q.offload != "sequential")
    return make_error(ErrorCode::kInvalid,
                      "--offload: \"" + q.offload + "\" is not one of none, model, sequential");
  if (!q.architecture.empty() && q.architecture != "unet" && q.architecture != "dit" &&
      q.architecture != "flow-tts")
    return make_error(ErrorCode::kInvalid,
                      "--arch: \"" + q.architecture + "\" is not one of unet, dit, flow-tts");
  if (q.audio_seconds && !(*q.audio_seconds > 0))
    return make_error(ErrorCode::kInvalid, "--audio-seconds must be > 0");
  if (q.guidance && !(*q.guidance >= 0))
    return make_error(ErrorCode::kInvalid, "--guidance must be >= 0");
  w.architecture = q.architecture;
  w.resolution = q.resolution;
  w.height = q.height;
  w.frames = q.frames;
  w.audio_seconds = q.audio_seconds;
  w.guidance = q.guidance;
  w.guidance_batched = q.guidance_batched;
  w.attention_kernel = q.attention_kernel;
  w.offload = q.offload;
  w.context_tokens = q.context_tokens;
  w.batch = q.batch;
  w.items = q.items;
  w.steps = q.steps;
  if (w.kind == "llm-inference") {
    // --tokens is the total to generate; the model's tokens are per sequence: per request when
    // --items names the requests (run `concurrency` at a time), else per concurrent sequence.
    w.concurrency = q.concurrency;
    const long seqs = std::max(1L, q.items.value_or(q.concurrency.value_or(1)));
    if (q.tokens) w.tokens = (*q.tokens + seqs - 1) / seqs;
  } else {
    w.tokens = q.tokens;
  }
  return w;
}

Result<EstimateReport> estimate_workload(const EstimateQuery& q,
                                         const std::vector<GpuSpec>& catalog,
                                         const PriceTable& prices, const Calibration& cal) {
  auto asked = workload_from_query(q);
  if (!asked.ok()) return asked.error();
  auto w = with_model_shape(*asked);
  if (!w.ok()) return w.error();
  // A named model's denoiser, known once shaped, may have no token split (a UNet's).
  if (w->sequence_parallel) {
    if (auto l = sequence_parallel_layout(*w, static_cast<int>(*w->sequence_parallel)); !l.ok()) {
      const std::string& why = l.error().message;  // "<field> <why>"
      const bool cfg = why.rfind("cfg_parallel", 0) == 0;
      return make_error(ErrorCode::kInvalid, (cfg ? "--cfg-parallel" : "--sequence-parallel") +
                                                 why.substr(why.find(' ')));
    }
  }
  auto mem = memory_need(*w);
  if (!mem.ok()) return mem.error();
  EstimateReport out{*w, *mem, {}};
  const bool timed = w->kind == "diffusion" ? w->items.has_value() : w->tokens.has_value();
  const double life_h = q.life_years * kHoursPerYear;
  for (const GpuSpec& g : catalog) {
    GpuEstimate e;
    e.gpu = g.name;
    e.count = gpus_needed(*w, g);
    // Exactly N cards (a measured node, or one tensor- or sequence-parallel copy): they hold it
    // when run_time's layout does, even where N is not one of gpus_needed's sizes (e.g. 6 cards),
    // and a batching engine queues what its share does not hold (engine_admits).
    const int exact =
        q.gpus ? *q.gpus
               : static_cast<int>(w->tensor_parallel.value_or(w->sequence_parallel.value_or(0)));
    if (exact > 0) e.count = layout_holds(engine_admits(*w, g, exact), g, exact) ? exact : 0;
    // No count holds every sequence: a batching engine runs on the fewest cards that hold the
    // weights and one sequence, and queues the rest.
    if (e.count == 0 && exact == 0) {
      const int n = gpus_to_run(*w, g);
      if (n > 0 && layout_holds(engine_admits(*w, g, n), g, n)) e.count = n;
    }
    if (e.count > 0) {
      const Workload run = engine_admits(*w, g, e.count);
      if (run.concurrency != w->concurrency) e.runs_at_once = sequences_at_once(*w, g, e.count);
    }
    if (e.count == 0) {
      e.bound = "capacity";
      // The requested concurrency does not fit: how many sequences do, on the cards that hold
      // one (never 0 for a model that fits at concurrency 1).
      if (w->kind == "llm-inference") {
        Workload one = *w;
        one.concurrency = 1;
        if (auto m1 = memory_need(one); m1.ok()) {
          const int n1 =
              exact > 0 ? (layout_holds(one, g, exact) ? exact : 0) : gpus_needed(one, g);
          if (n1 > 0) e.max_concurrency = max_concurrency(*w, g, n1);
        }
      }
      out.gpus.push_back(e);
      continue;
    }
    if (const PriceEntry* p = cheapest(prices, g.name, e.count)) {
      e.usd_per_hour = p->usd_per_hour * e.count / p->gpu_count;  // a bigger box, pro rata
      e.provider = p->provider;
    } else if (const PriceEntry* node = largest(prices, g.name); node) {
      // Beyond the largest machine, several only where they come as one cluster: full boards
      // of 8 NVLink or Infinity Fabric cards (HGX, OAM) behind the 400 Gb/s per GPU network the
      // cost model spans nodes with (kInterNodeGbsPerGpu). PCIe cards and one-card machines
      // (GH200) are rented one machine at a time.
      const bool board = g.interconnect == "nvlink" || g.interconnect == "infinity-fabric";
      if (board && node->gpu_count == kGpusPerNode) {
        e.machines = (e.count + node->gpu_count - 1) / node->gpu_count;
        e.usd_per_hour = node->usd_per_hour * e.count / node->gpu_count;
        e.provider = node->provider;
      } else {
        e.unpriced_why = "no machine has " + std::to_string(e.count) + " (the largest has " +
                         std::to_string(node->gpu_count) + "), and " +
                         (board ? "machines of fewer than 8" : "PCIe cards") +
                         " are not rented as multi-node clusters";
      }
    }
    e.max_concurrency = max_concurrency(*w, g, e.count);
    if (timed) {
      auto rt = run_time(*w, g, e.count, catalog, cal);
      if (!rt.ok()) return rt.error();
      e.bound = rt->bound;
      e.seconds = rt->compute_s;
      e.step_s = rt->step_s;
      e.prefill_s = rt->prefill_s;
      e.comm_s = rt->comm_s;
      if (rt->moe_s > 0) e.moe_s = rt->moe_s;
      if (rt->expert_bytes > 0) {
        e.expert_gib = rt->expert_bytes / (1024.0 * 1024 * 1024);
        e.read_gib = rt->read_bytes / (1024.0 * 1024 * 1024);
      }
      if (rt->offload_s > 0) e.offload_s = rt->offload_s;
      e.group = rt->layout.group;
      e.replicas = rt->layout.replicas;
      if (e.usd_per_hour) e.usd = *e.seconds / 3600.0 * *e.usd_per_hour;
      if (w->kind == "llm-inference" && rt->step_s > 0) {
        e.tokens_per_s = static_cast<double>(rt->batch) / rt->step_s;
        const double mtok_per_hour = e.tokens_per_s * 3600 / 1e6;
        const double power_h = power_cost_per_hour(e.count * g.tdp_w, q.usd_per_kwh);
        if (e.usd_per_hour) e.rent_usd_per_mtok = *e.usd_per_hour / mtok_per_hour;
        if (g.purchase_usd) {
          const double capex_h = e.count * *g.purchase_usd / life_h;
          e.own_usd_per_mtok = own_usd_per_mtok(e.count * *g.purchase_usd, q.life_years,
                                                q.utilization, power_h, e.tokens_per_s);
          // Over the life: owning = capex + power x hours used; renting = price x hours used.
          if (e.usd_per_hour && *e.usd_per_hour > power_h)
            e.breakeven_utilization = capex_h / (*e.usd_per_hour - power_h);
        }
      }
    } else {
      auto rt = run_time(*w, g, e.count, catalog, cal);
      e.bound = rt.ok() ? rt->bound : "";
    }
    out.gpus.push_back(e);
  }
  // Fitting and priced first: by job cost when timed, else by $/hour; then unpriced, then unfit.
  auto rank = [](const GpuEstimate& e) { return e.count == 0 ? 2 : e.usd_per_hour ? 0 : 1; };
  std::stable_sort(out.gpus.begin(), out.gpus.end(),
                   [&](const GpuEstimate& a, const GpuEstimate& b) {
                     if (rank(a) != rank(b)) return rank(a) < rank(b);
                     if (rank(a) != 0) return false;
                     const double ka = a.usd ? *a.usd : *a.usd_per_hour;
                     const double kb = b.usd ? *b.usd : *b.usd_per_hour;
                     if (std::fabs(ka - kb) > 1e-12) return ka < kb;
                     return a.seconds.value_or(0) < b.seconds.value_or(0);
                   });
  return out;
}

}  // namespace burst
