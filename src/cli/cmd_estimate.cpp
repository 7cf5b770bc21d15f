// `burst estimate`: ad-hoc questions without a spec file (`--params 7B --mode train`). The
// arithmetic is in plan/estimate.h; this file parses flags and prints.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
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

nlohmann::json opt(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

Result<EstimateQuery> query_of(const EstimateArgs& a) {
  EstimateQuery q;
  auto params = parse_params(a.params);
  if (!params.ok()) return params.error();
  q.params_b = *params;
  q.mode = a.mode;
  q.method = a.method;
  q.precision = a.precision;
  struct Count {
    const std::string& text;
    const char* flag;
    std::optional<long>* into;
  };
  for (const Count& c :
       {Count{a.tokens, "--tokens", &q.tokens}, Count{a.context, "--context", &q.context_tokens},
        Count{a.concurrency, "--concurrency", &q.concurrency}, Count{a.items, "--items", &q.items},
        Count{a.steps, "--steps", &q.steps}, Count{a.batch, "--batch", &q.batch}}) {
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

  if (args.json) {
    nlohmann::json out = {{"kind", r->workload.kind},
                          {"params_b", q->params_b},
                          {"memory_gib",
                           {{"weights", m.weights_gib},
                            {"gradients", m.gradients_gib},
                            {"optimizer", m.optimizer_gib},
                            {"activations", m.activations_gib},
                            {"kv_cache", m.kv_cache_gib},
                            {"total", m.total_gib()}}},
                          {"headroom", kVramHeadroom},
                          {"prices_as_of", prices->as_of},
                          {"usd_per_kwh", q->usd_per_kwh},
                          {"life_years", q->life_years},
                          {"gpus", nlohmann::json::array()}};
    for (const GpuEstimate& g : r->gpus) {
      nlohmann::json j = {{"gpu", g.gpu},
                          {"count", g.count},
                          {"fits", g.count > 0},
                          {"bound", g.bound},
                          {"seconds", opt(g.seconds)},
                          {"usd_per_hour", opt(g.usd_per_hour)},
                          {"provider", g.provider},
                          {"usd", opt(g.usd)}};
      if (infer) {
        j["tokens_per_s"] = g.tokens_per_s;
        j["rent_usd_per_mtok"] = opt(g.rent_usd_per_mtok);
        j["own_usd_per_mtok"] = opt(g.own_usd_per_mtok);
        j["breakeven_utilization"] = opt(g.breakeven_utilization);
      }
      out["gpus"].push_back(j);
    }
    std::cout << out.dump(2) << std::endl;
    return kExitOk;
  }

  std::printf(
      "memory (%s, %g B params): weights %.1f GiB, gradients %.1f, optimizer %.1f, "
      "activations %.1f, KV cache %.1f; total %.1f GiB (each card keeps %.0f%% free)\n",
      r->workload.kind.c_str(), q->params_b, m.weights_gib, m.gradients_gib, m.optimizer_gib,
      m.activations_gib, m.kv_cache_gib, m.total_gib(), kVramHeadroom * 100);
  std::printf("%-15s %4s %-10s %10s %8s %-7s %10s", "GPU", "GPUS", "BOUND", "TIME", "$/HOUR",
              "FROM", "EST $");
  if (infer) std::printf(" %9s %9s %9s %10s", "TOK/S", "RENT $/1M", "OWN $/1M", "BREAK-EVEN");
  std::printf("\n");
  for (const GpuEstimate& g : r->gpus) {
    std::string gpus = g.count ? std::to_string(g.count) : "-";
    std::printf("%-15s %4s %-10s %10s %8s %-7s %10s", g.gpu.c_str(), gpus.c_str(),
                g.count ? g.bound.c_str() : "no fit", fmt_seconds(g.seconds).c_str(),
                fmt_opt("%.2f", g.usd_per_hour).c_str(),
                g.provider.empty() ? "-" : g.provider.c_str(), fmt_opt("%.4f", g.usd).c_str());
    if (infer) {
      std::string be = "-";
      if (g.breakeven_utilization)
        be = *g.breakeven_utilization > 1 ? "never"
                                          : fmt_opt("%.0f%%", *g.breakeven_utilization * 100);
      std::printf(" %9.0f %9s %9s %10s", g.tokens_per_s,
                  fmt_opt("%.3f", g.rent_usd_per_mtok).c_str(),
                  fmt_opt("%.3f", g.own_usd_per_mtok).c_str(), be.c_str());
    }
    std::printf("\n");
  }
  std::printf(
      "prices: cheapest on-demand entry of the offline table of %s (pro rata per GPU); "
      "time is compute only (`burst plan` adds cold start and billing)\n",
      prices->as_of.c_str());
  if (infer)
    std::printf(
        "owned: catalog purchase price over %g years, power at TDP x $%.2f/kWh; "
        "break-even: the utilization above which buying beats renting\n",
        q->life_years, q->usd_per_kwh);
  return kExitOk;
}

}  // namespace burst
