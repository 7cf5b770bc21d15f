// `burst estimate`: ad-hoc questions without a spec file (`--params 7B --mode train`). The
// arithmetic is in plan/estimate.h; this file parses flags and prints.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "burst/cost_model.h"
#include "burst/weight_load.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/estimate_diffusion.h"
#include "cli/table.h"
#include "cost/streaming_loader.h"
#include "plan/estimate.h"
#include "registry.h"

namespace burst {
namespace {

std::string fmt_seconds(const std::optional<double>& s) {
  if (!s) return "-";
  char buf[32];
  if (*s < 120)
    std::snprintf(buf, sizeof buf, "%.1f s", *s);
  else if (*s < 7200)
    std::snprintf(buf, sizeof buf, "%.1f min", *s / 60);
  else
    std::snprintf(buf, sizeof buf, "%.1f h", *s / 3600);
  return buf;
}

std::string fmt_opt(const char* f, const std::optional<double>& v) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, f, *v);
  return buf;
}

// `weight_load_s`: the load of the weights by `engine`'s loader, or a streaming loader with
// --loader streaming (cost/streaming_loader.h), on --gpus (default 1) GPUs from a network volume
// (warm), a hub (cold), and from --weights-from (default hub) at --disk-read-mbps where given (a
// local disk's or volume's own rate, burst/weight_load.h). A hub download is a parallel one
// (hub_download_bps: Xet) with either loader, and huggingface_hub's HTTP one with --loader http.
// `expert_tensors`: a mixture of experts' routed-expert tensors (checkpoint_expert_tensors),
// shown for the validation's weight-load rows and not priced (bench/README.md, "A mixture of
// experts' checkpoint, tensor by tensor": tried, not kept).
nlohmann::json weight_load_json(double weight_bytes, const EstimateArgs& a,
                                const std::string& engine, long expert_tensors) {
  const int gpus = a.gpus.value_or(1);
  const bool streaming = a.loader == cost::kLoaderStreaming;
  const auto rate_of = [&](const std::string& kind, double disk_bps) {
    // A hub download depends on the checkpoint's files (burst/weight_load.h).
    if (kind == kStorageHub)
      return a.loader == cost::kLoaderHttp ? hub_http_download_bps(weight_bytes, engine)
                                           : hub_download_bps(weight_bytes, engine);
    return streaming ? cost::streaming_read_bps(kind, disk_bps, gpus)
                     : storage_read_bps(kind, disk_bps, gpus);
  };
  const auto load = [&](double rate) {
    return streaming ? cost::streaming_weight_load(weight_bytes, rate, gpus)
                     : weight_load(weight_bytes, rate, engine, gpus);
  };
  const std::string from = a.weights_from.empty() ? "hub" : a.weights_from;
  const std::string kind = from == "volume" ? kStorageNetwork : from;
  const double rate = rate_of(kind, a.disk_read_mbps.value_or(0) * 1e6);
  const WeightLoad chosen = load(rate);
  return {{"warm", load(rate_of(kStorageNetwork, 0)).seconds()},
          {"cold", load(rate_of(kStorageHub, 0)).seconds()},
          {"from", from},
          {"read_bytes_per_s", rate},
          {"loader", streaming ? cost::streaming_loader_cost().loader : loader_cost(engine).loader},
          {"seconds", chosen.seconds()},
          {"read_s", chosen.read_s},
          {"init_s", chosen.init_s},
          {"expert_tensors", expert_tensors}};
}

nlohmann::json opt(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

Result<EstimateQuery> query_of(const EstimateArgs& a) {
  EstimateQuery q;
  if (!a.params.empty()) {
    auto params = parse_params(a.params);
    if (!params.ok()) return params.error();
    q.params_b = *params;
  }
  q.model = a.model;
  if (!a.active_params.empty()) {
    auto active = parse_params(a.active_params, "--active-params");
    if (!active.ok()) return active.error();
    q.active_params_b = *active;
  }
  q.kv_precision = a.kv_precision;
  q.engine = a.engine;
  q.gpu_memory_utilization = a.gpu_memory_utilization;
  q.architecture = a.arch;
  q.audio_seconds = a.audio_seconds;
  q.guidance = a.guidance;
  q.attention_kernel = a.attention_kernel;
  q.offload = a.offload;
  if (a.cfg_parallel) q.cfg_parallel = true;
  if (!a.guidance_batched.empty()) {
    if (a.guidance_batched != "on" && a.guidance_batched != "off")
      return make_error(ErrorCode::kInvalid,
                        "--guidance-batched: \"" + a.guidance_batched + "\" is not one of on, off");
    q.guidance_batched = a.guidance_batched == "on";
  }
  if (!a.resolution.empty()) {
    auto r = parse_image_size(a.resolution);
    if (!r.ok()) return make_error(ErrorCode::kInvalid, "--resolution: " + r.error().message);
    q.resolution = r->width;
    q.height = r->height;
  }
  q.gpus = a.gpus;
  if (!a.weights_from.empty() && !known_weight_source(a.weights_from))
    return make_error(ErrorCode::kInvalid, "--weights-from: \"" + a.weights_from +
                                               "\" is not one of hub, s3, volume, local-disk, "
                                               "page-cache");
  if (a.disk_read_mbps && !(*a.disk_read_mbps > 0))
    return make_error(ErrorCode::kInvalid, "--disk-read-mbps must be > 0");
  if (!a.loader.empty() && !cost::known_loader(a.loader))
    return make_error(ErrorCode::kInvalid,
                      "--loader: \"" + a.loader + "\" is not one of default, streaming, http");
  if (a.loader == cost::kLoaderHttp && !a.weights_from.empty() && a.weights_from != kStorageHub)
    return make_error(ErrorCode::kInvalid,
                      "--loader http: names the hub's downloader; it needs --weights-from hub, "
                      "not \"" +
                          a.weights_from + "\"");
  if (a.utilization) q.utilization = *a.utilization;
  if (a.efficiency && !(*a.efficiency > 0 && *a.efficiency <= 1))
    return make_error(ErrorCode::kInvalid, "--efficiency must be in (0, 1]");
  q.mode = a.mode;
  q.method = a.method;
  if (!a.checkpointing.empty()) {
    if (a.checkpointing != "on" && a.checkpointing != "off")
      return make_error(ErrorCode::kInvalid, "--gradient-checkpointing: \"" + a.checkpointing +
                                                 "\" is not one of on, off");
    q.gradient_checkpointing = a.checkpointing == "on";
  }
  for (size_t at = 0; at < a.lora_targets.size();) {
    const size_t comma = std::min(a.lora_targets.find(',', at), a.lora_targets.size());
    q.lora_targets.push_back(a.lora_targets.substr(at, comma - at));
    at = comma + 1;
  }
  q.precision = a.precision;
  struct Count {
    const std::string& text;
    const char* flag;
    std::optional<long>* into;
  };
  for (const Count& c :
       {Count{a.tokens, "--tokens", &q.tokens}, Count{a.context, "--context", &q.context_tokens},
        Count{a.concurrency, "--concurrency", &q.concurrency}, Count{a.items, "--items", &q.items},
        Count{a.steps, "--steps", &q.steps}, Count{a.batch, "--batch", &q.batch},
        Count{a.frames, "--frames", &q.frames}, Count{a.lora_rank, "--lora-rank", &q.lora_rank},
        Count{a.tensor_parallel, "--tensor-parallel", &q.tensor_parallel},
        Count{a.max_num_seqs, "--max-num-seqs", &q.max_num_seqs},
        Count{a.sequence_parallel, "--sequence-parallel", &q.sequence_parallel},
        Count{a.experts, "--experts", &q.experts},
        Count{a.experts_per_token, "--experts-per-token", &q.experts_per_token}}) {
    if (c.text.empty()) continue;
    auto v = parse_count(c.text, c.flag);
    if (!v.ok()) return v.error();
    *c.into = *v;
  }
  if (!(a.usd_per_kwh >= 0)) return make_error(ErrorCode::kInvalid, "--usd-per-kwh must be >= 0");
  if (!(a.life_years > 0)) return make_error(ErrorCode::kInvalid, "--life-years must be > 0");
  q.usd_per_kwh = a.usd_per_kwh;
  q.life_years = a.life_years;
  return q;
}

}  // namespace

int cmd_estimate(const EstimateArgs& args) {
  auto q = query_of(args);
  if (!q.ok()) return fail(kExitUsage, q.error().message);
  auto config = load_config_or_print();
  if (!config.ok()) return fail(kExitConfig, config.error().message);
  auto catalog = load_gpu_catalog(config->config_dir);
  if (!catalog.ok()) return fail(kExitConfig, catalog.error().message);
  auto prices = load_price_table(config->config_dir, offline_price_provider_names());
  if (!prices.ok()) return fail(kExitConfig, prices.error().message);
  auto r = estimate_workload(*q, *catalog, *prices, default_calibration());
  if (!r.ok()) return fail(kExitUsage, r.error().message);
  const bool infer = r->workload.kind == "llm-inference";
  const MemoryBreakdown& m = r->memory;
  const Workload& w = r->workload;
  const double params_b = w.params_b.value_or(0);
  // The batch-1 decode table (weights read once per token) and rent vs buy, when asked.
  const double weight_bytes =
      params_b * 1e9 * *bytes_per_param(w.precision.empty() ? "fp16" : w.precision);
  const std::vector<DecodeRow> decode = args.efficiency
                                            ? decode_table(*catalog, weight_bytes, *args.efficiency)
                                            : std::vector<DecodeRow>{};
  struct Rvb {
    std::string gpu;
    int count;
    double usd_per_hour;
    RentBuyTotals r;
  };
  std::vector<Rvb> rvb;
  if (args.utilization)
    for (const GpuEstimate& g : r->gpus) {
      const GpuSpec* spec = find_gpu(*catalog, g.gpu);
      if (!spec || !spec->purchase_usd || !g.usd_per_hour || g.count == 0) continue;
      const double power_h = g.count * spec->tdp_w / 1000.0 * q->usd_per_kwh;
      rvb.push_back({g.gpu, g.count, *g.usd_per_hour,
                     rent_buy_totals(*g.usd_per_hour, g.count * *spec->purchase_usd, q->utilization,
                                     q->life_years, power_h)});
    }

  // llm-training: the inputs the memory was sized with, defaults resolved (src/cost/
  // training_memory.h; docs/cost-model.md "llm-training").
  const bool train = r->workload.kind == "llm-training";
  const std::string method = w.mode.empty() ? "full" : w.mode;
  const bool lora = method != "full";
  const bool checkpointing = w.gradient_checkpointing.value_or(lora);
  const std::vector<std::string> targets =
      !w.lora_targets.empty() ? w.lora_targets
                              : std::vector<std::string>{"q", "k", "v", "o", "gate", "up", "down"};
  const long micro_batch = w.batch.value_or(1), tokens_each = w.context_tokens.value_or(2048);

  if (args.json) {
    nlohmann::json out = {{"kind", r->workload.kind},
                          {"model", w.model},
                          {"params_b", params_b},
                          {"active_params_b", w.active_params_b.value_or(params_b)},
                          {"memory_gib",
                           {{"weights", m.weights_gib},
                            {"gradients", m.gradients_gib},
                            {"optimizer", m.optimizer_gib},
                            {"activations", m.activations_gib},
                            {"kv_cache", m.kv_cache_gib},
                            {"total", m.total_gib()}}},
                          // Loading the weights (burst/weight_load.h, the priors): from a
                          // network volume (warm), downloaded from a hub (cold), and from
                          // --weights-from (default hub) with its read and loader parts.
                          {"weight_load_s", weight_load_json(weight_bytes, args, w.engine,
                                                             checkpoint_expert_tensors(w))},
                          {"headroom", kVramHeadroom},
                          {"reserve_gib", kVramReserveGib},
                          {"utilization", q->utilization},
                          {"prices_as_of", prices->as_of},
                          {"usd_per_kwh", q->usd_per_kwh},
                          {"life_years", q->life_years},
                          {"gpus", nlohmann::json::array()}};
    if (w.kind == "diffusion") add_diffusion_json(w, params_b, &out);
    if (w.kind == "llm-inference" && w.context_tokens && w.tokens && *w.context_tokens > *w.tokens)
      // The prompt's work, one sequence (docs/cost-model.md, "Prefill by engine").
      out["prefill"] = {{"prompt_tokens", *w.context_tokens - *w.tokens},
                        {"flops_per_sequence", prefill_flops_of(w, params_b * 1e9)}};
    for (const GpuEstimate& g : r->gpus) {
      nlohmann::json j = {{"gpu", g.gpu},
                          {"count", g.count},
                          {"fits", g.count > 0},
                          {"bound", g.bound},
                          {"seconds", opt(g.seconds)},
                          {"step_s", opt(g.step_s)},
                          {"prefill_s", opt(g.prefill_s)},
                          {"comm_s", opt(g.comm_s)},
                          {"moe_floor_s", opt(g.moe_s)},
                          {"moe_expert_gib", opt(g.expert_gib)},
                          {"moe_read_gib", opt(g.read_gib)},
                          {"offload_s", opt(g.offload_s)},
                          {"gpus_per_copy", g.group},
                          {"copies", g.replicas},
                          {"usd_per_hour", opt(g.usd_per_hour)},
                          {"provider", g.provider},
                          {"machines", g.machines},
                          {"usd", opt(g.usd)}};
      if (!g.unpriced_why.empty()) j["unpriced_why"] = g.unpriced_why;
      if (infer) {
        j["tokens_per_s"] = g.tokens_per_s;
        j["max_concurrency"] = g.max_concurrency;
        if (g.runs_at_once > 0) j["runs_at_once"] = g.runs_at_once;
        j["rent_usd_per_mtok"] = opt(g.rent_usd_per_mtok);
        j["own_usd_per_mtok"] = opt(g.own_usd_per_mtok);
        j["breakeven_utilization"] = opt(g.breakeven_utilization);
      }
      out["gpus"].push_back(j);
    }
    if (args.efficiency) {
      out["decode_efficiency"] = *args.efficiency;
      out["decode_table"] = nlohmann::json::array();
      for (const DecodeRow& d : decode)
        out["decode_table"].push_back({{"gpu", d.gpu},
                                       {"peak_tokens_per_s", d.peak_tokens_per_s},
                                       {"tokens_per_s", d.tokens_per_s}});
    }
    if (args.utilization) {
      out["rent_vs_buy"] = nlohmann::json::array();
      for (const Rvb& x : rvb)
        out["rent_vs_buy"].push_back({{"gpu", x.gpu},
                                      {"count", x.count},
                                      {"usd_per_hour", x.usd_per_hour},
                                      {"gpu_hours", x.r.gpu_hours},
                                      {"rented_usd", x.r.rented_usd},
                                      {"bought_usd", x.r.bought_usd},
                                      {"breakeven_utilization", opt(x.r.breakeven_utilization)}});
    }
    if (train) {
      out["training"] = {{"method", method},
                         {"gradient_checkpointing", checkpointing},
                         {"micro_batch", micro_batch},
                         {"context_tokens", tokens_each}};
      if (lora) {
        out["training"]["lora_rank"] = w.lora_rank.value_or(16);
        out["training"]["lora_targets"] = targets;
      }
    }
    std::cout << out.dump(2) << std::endl;
    return kExitOk;
  }

  std::printf(
      "memory (%s%s%s, %g B params): weights %.1f GiB, gradients %.1f, optimizer %.1f, "
      "activations %.1f, KV cache %.1f; total %.1f GiB (each card keeps %.1f GiB + %.0f%% free)\n",
      r->workload.kind.c_str(), w.model.empty() ? "" : ", ", w.model.c_str(), params_b,
      m.weights_gib, m.gradients_gib, m.optimizer_gib, m.activations_gib, m.kv_cache_gib,
      m.total_gib(), kVramReserveGib, kVramHeadroom * 100);
  if (train) {
    std::string adapters;
    for (const std::string& t : targets) adapters += (adapters.empty() ? "" : ",") + t;
    std::printf(
        "training: %s%s, gradient checkpointing %s, micro-batch %ld x %ld tokens\n", method.c_str(),
        lora ? (", rank " + std::to_string(w.lora_rank.value_or(16)) + " on " + adapters).c_str()
             : "",
        checkpointing ? "on" : "off", micro_batch, tokens_each);
  }
  if (r->workload.kind == "diffusion") print_diffusion(w, params_b);
  if (infer && w.layers && w.kv_heads)
    std::printf(
        "KV cache: 2 x %ld layers x %ld KV heads x %ld dims x %ld tokens x %ld sequences x %s\n",
        *w.layers, *w.kv_heads, w.head_dim.value_or(w.hidden && w.heads ? *w.hidden / *w.heads : 0),
        w.context_tokens.value_or(4096), w.concurrency.value_or(1),
        w.kv_precision == "fp8" ? "1 byte (fp8)" : "2 bytes (fp16)");
  if (infer && w.experts && w.experts_per_token && *w.experts > *w.experts_per_token &&
      *w.experts_per_token > 0) {
    // What a decode step reads of a mixture of experts (src/cost/experts.cpp read_fraction).
    const double e = static_cast<double>(*w.experts), k = static_cast<double>(*w.experts_per_token);
    const long batch = std::max(1L, w.concurrency.value_or(1));
    std::printf(
        "experts: %ld per layer, %ld a token; a decode step of %ld sequences touches about %.1f of "
        "each layer's (uniform routing), read at %.0f%% of a dense layer's bandwidth efficiency\n",
        *w.experts, *w.experts_per_token, batch, experts_touched(e, k, batch),
        kMoeExpertBandwidthShare * 100);
  }
  if (w.tensor_parallel)
    std::printf("tensor parallel %ld: each copy of the model is sharded over %ld GPUs\n",
                *w.tensor_parallel, *w.tensor_parallel);
  if (w.sequence_parallel && *w.sequence_parallel == 2 && w.cfg_parallel.value_or(false))
    std::printf(
        "sequence parallel 2 with guidance parallel: guidance's two passes run one on each GPU, "
        "each holding the whole denoiser, with no all-to-all; the VAE decode runs on one\n");
  else if (w.sequence_parallel && w.cfg_parallel.value_or(false))
    std::printf(
        "sequence parallel %ld with guidance parallel: guidance's two passes run on two halves of "
        "the %ld GPUs, each pass's tokens split over %ld (Ulysses: four all-to-alls a block per "
        "call, within a half), each GPU holding the whole denoiser; the VAE decode runs on one\n",
        *w.sequence_parallel, *w.sequence_parallel, *w.sequence_parallel / 2);
  else if (w.sequence_parallel)
    std::printf(
        "sequence parallel %ld: each item's tokens are split over %ld GPUs, each holding the whole "
        "denoiser (Ulysses: four all-to-alls a block per call); the VAE decode runs on one\n",
        *w.sequence_parallel, *w.sequence_parallel);
  std::vector<Table::Column> cols = {{"GPU"},
                                     {"GPUS", Table::kRight},
                                     {"BOUND"},
                                     {"TIME", Table::kRight},
                                     {"$/HOUR", Table::kRight},
                                     {"FROM"},
                                     {"EST $", Table::kRight}};
  if (infer)
    for (const char* c : {"TOK/S", "RENT $/1M", "OWN $/1M", "BREAK-EVEN"})
      cols.push_back({c, Table::kRight});
  Table table(std::move(cols));
  for (const GpuEstimate& g : r->gpus) {
    std::vector<std::string> row = {g.gpu,
                                    g.count ? std::to_string(g.count) : "-",
                                    g.count ? g.bound : "no fit",
                                    fmt_seconds(g.seconds),
                                    fmt_opt("%.2f", g.usd_per_hour),
                                    g.provider.empty() ? "-" : g.provider,
                                    fmt_opt("%.4f", g.usd)};
    if (infer) {
      std::string be = "-";
      if (g.breakeven_utilization)
        be = *g.breakeven_utilization > 1 ? "never"
                                          : fmt_opt("%.0f%%", *g.breakeven_utilization * 100);
      // No throughput without the tokens to price (--tokens): "-", not 0.
      row.push_back(g.tokens_per_s > 0 ? fmt_opt("%.0f", std::optional<double>(g.tokens_per_s))
                                       : "-");
      row.push_back(fmt_opt("%.3f", g.rent_usd_per_mtok));
      row.push_back(fmt_opt("%.3f", g.own_usd_per_mtok));
      row.push_back(be);
    }
    table.add(std::move(row));
  }
  std::fputs(table.render().c_str(), stdout);
  std::string clusters, unpriced, queued, idle;
  int idle_types = 0;
  // A denoiser runs whole items, a batch per copy: copies beyond the items' batches wait.
  const long per_batch = std::max(1L, r->workload.batch.value_or(1));
  const long diffusion_batches = r->workload.kind == "diffusion" && r->workload.items
                                     ? (*r->workload.items + per_batch - 1) / per_batch
                                     : 0;
  for (const GpuEstimate& g : r->gpus) {
    const std::string name = g.gpu + " x" + std::to_string(g.count);
    if (diffusion_batches > 0 && g.replicas > diffusion_batches && ++idle_types <= 4)
      idle += (idle.empty() ? "" : ", ") + name + " (" +
              std::to_string(g.replicas - diffusion_batches) + " of " + std::to_string(g.replicas) +
              ")";
    if (!g.unpriced_why.empty()) unpriced += (unpriced.empty() ? "" : ", ") + name;
    if (g.runs_at_once > 0)
      queued += (queued.empty() ? "" : ", ") + name + " " + std::to_string(g.runs_at_once);
    if (g.machines > 1)
      clusters += (clusters.empty() ? "" : ", ") + name + " (" + std::to_string(g.machines) + ")";
  }
  if (!clusters.empty())
    std::printf("several machines of one cluster, priced pro rata: %s\n", clusters.c_str());
  if (!unpriced.empty())
    std::printf(
        "no price: more cards than any one machine has, and only boards of 8 NVLink or "
        "Infinity Fabric cards are rented as multi-node clusters: %s\n",
        unpriced.c_str());
  // Only a transformer denoiser's item can be split (a UNet's or F5-TTS's never is).
  const bool splits = w.architecture.empty() || w.architecture == "dit";
  if (!idle.empty())
    std::printf(
        "idle copies: a denoiser runs one batch of items per copy, and %s; these copies have no "
        "batch to run: %s%s\n",
        splits ? "one item is split over cards only by --sequence-parallel "
                 "(workload.sequence_parallel)"
               : ("a " + w.architecture + " never splits one item over cards").c_str(),
        idle.c_str(),
        idle_types > 4 ? (" and " + std::to_string(idle_types - 4) + " more types").c_str() : "");
  if (!queued.empty())
    std::printf(
        "%s runs fewer than the %ld sequences asked at once (what its memory share holds, or its "
        "scheduler's cap); these run that many at once and queue the rest (the time counts the "
        "rounds): %s\n",
        r->workload.engine.c_str(), r->workload.concurrency.value_or(1), queued.c_str());
  std::printf(
      "prices: cheapest on-demand entry of the offline table of %s (pro rata per GPU); "
      "time is compute only (`burst plan` adds cold start and billing)\n",
      prices->as_of.c_str());
  if (infer)
    std::printf(
        "owned: catalog purchase price over %g years at %.0f%% utilization, power at TDP x "
        "$%.2f/kWh; break-even: the utilization above which buying beats renting\n",
        q->life_years, q->utilization * 100, q->usd_per_kwh);
  if (args.efficiency) {
    std::printf("\nbatch-1 decode, weights read once per token (%.1f GB):\n", weight_bytes / 1e9);
    Table decode_table({{"GPU"},
                        {"100% TOK/S", Table::kRight},
                        {fmt_opt("%.0f%% TOK/S", *args.efficiency * 100), Table::kRight}});
    for (const DecodeRow& d : decode)
      decode_table.add({d.gpu, fmt_opt("%.1f", std::optional<double>(d.peak_tokens_per_s)),
                        fmt_opt("%.1f", std::optional<double>(d.tokens_per_s))});
    std::fputs(decode_table.render().c_str(), stdout);
  }
  if (args.utilization) {
    std::printf("\nrent vs buy over %g years at %.0f%% utilization:\n", q->life_years,
                q->utilization * 100);
    Table rvb_table({{"GPU"},
                     {"GPUS", Table::kRight},
                     {"GPU-HOURS", Table::kRight},
                     {"RENTED $", Table::kRight},
                     {"BOUGHT $", Table::kRight},
                     {"BREAK-EVEN", Table::kRight}});
    for (const Rvb& x : rvb) {
      std::string be = "-";
      if (x.r.breakeven_utilization)
        be = *x.r.breakeven_utilization > 1 ? "never"
                                            : fmt_opt("%.1f%%", *x.r.breakeven_utilization * 100);
      rvb_table.add({x.gpu, std::to_string(x.count),
                     fmt_opt("%.0f", std::optional<double>(x.r.gpu_hours * x.count)),
                     fmt_opt("%.0f", std::optional<double>(x.r.rented_usd)),
                     fmt_opt("%.0f", std::optional<double>(x.r.bought_usd)), be});
    }
    std::fputs(rvb_table.render().c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace burst
