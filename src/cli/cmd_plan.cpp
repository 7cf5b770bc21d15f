// `burst plan FILE`: every candidate priced, the chosen one marked, rejected ones with reasons.
// Creates nothing; providers without a driver are priced from the offline table.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/offers.h"
#include "cli/spec_errors.h"

namespace burst {

int cmd_plan(const PlanArgs& args) {
  auto spec = load_spec_or_print(args.spec);
  if (!spec.ok()) return kExitUsage;
  auto config = load_config_or_print();
  if (!config.ok()) return fail(kExitConfig, config.error().message);
  SystemClock clock;
  auto sources = gather_offers(*spec, args.provider, *config, clock, /*offline_table=*/true);
  if (!sources.ok()) return fail(kExitUsage, sources.error().message);
  auto plan = make_plan(*spec, sources->input);
  std::vector<Candidate> candidates;
  if (plan.ok()) {
    candidates = plan->candidates;
  } else {
    CandidateInput ci{sources->input.catalog, default_calibration(), 0, false};
    std::vector<Offer> offers;
    for (const auto& o : sources->input.gpu_offers) offers.push_back(o);
    candidates = price_candidates(*spec, offers, ci);
  }
  if (args.json) {
    nlohmann::json out = {
        {"pipeline", spec->name}, {"chosen", nullptr}, {"candidates", nlohmann::json::array()}};
    if (plan.ok())
      out["chosen"] = {{"provider", plan->gpu.provider},
                       {"gpu", plan->gpu.gpu_type},
                       {"usd", plan->estimate.usd},
                       {"seconds", plan->estimate.total_s}};
    else
      out["error"] = plan.error().message;
    for (const auto& c : candidates) {
      if (!args.all && !c.rejected.empty()) continue;
      out["candidates"].push_back({{"provider", c.offer.provider},
                                   {"gpu", c.offer.gpu_type},
                                   {"count", c.offer.gpu_count},
                                   {"usd_per_hour", c.offer.usd_per_hour},
                                   {"price_source", c.offer.price_source},
                                   {"need_gib", c.need_gib},
                                   {"have_gb", c.have_gb},
                                   {"bound", c.bound},
                                   {"seconds", c.total_s},
                                   {"usd", c.usd},
                                   {"utilization", c.utilization},
                                   {"rejected", c.rejected}});
    }
    std::cout << out.dump(2) << std::endl;
    return plan.ok() ? kExitOk : kExitFailure;
  }
  std::printf("%-2s %-8s %-14s %9s %8s %8s %-10s %9s %9s %5s  %s\n", "", "PROVIDER", "GPU x N",
              "$/HOUR", "NEED GiB", "HAVE GB", "BOUND", "EST MIN", "EST $", "UTIL", "VERDICT");
  bool first = true;
  int hidden = 0;
  for (const auto& c : candidates) {
    if (!args.all && !c.rejected.empty()) {
      ++hidden;
      continue;
    }
    const bool chosen = plan.ok() && first && c.rejected.empty();
    first = false;
    std::string gpu = c.offer.gpu_type + " x" + std::to_string(c.offer.gpu_count);
    std::printf("%-2s %-8s %-14s %9.2f %8.1f %8.1f %-10s %9.1f %9.4f %4.0f%%  %s\n",
                chosen ? "*" : "", c.offer.provider.c_str(), gpu.c_str(), c.offer.usd_per_hour,
                c.need_gib, c.have_gb, c.bound.empty() ? "-" : c.bound.c_str(), c.total_s / 60,
                c.usd, c.utilization * 100,
                c.rejected.empty() ? (chosen ? "chosen" : "ok") : c.rejected.c_str());
  }
  if (hidden)
    std::printf("(%d rejected candidates hidden; --all shows them with reasons)\n", hidden);
  if (!sources->price_table_as_of.empty())
    std::printf("prices without a driver: offline table of %s\n",
                sources->price_table_as_of.c_str());
  if (!plan.ok()) return fail(kExitFailure, plan.error().message);
  std::printf("chosen: %s %s, %s\n", plan->gpu.provider.c_str(), plan->gpu.gpu_type.c_str(),
              plan->estimate.basis.c_str());
  return kExitOk;
}

int cmd_gpus(bool json) {
  auto config = load_config_or_print();
  if (!config.ok()) return fail(kExitConfig, config.error().message);
  auto catalog = load_gpu_catalog(config->config_dir);
  if (!catalog.ok()) return fail(kExitConfig, catalog.error().message);
  nlohmann::json out = nlohmann::json::array();
  if (!json)
    std::printf("%-14s %-7s %-11s %7s %8s %8s %8s %6s %-15s %8s\n", "GPU", "VENDOR", "SEGMENT",
                "VRAM GB", "BW GB/s", "FP16 TF", "FP8 TF", "TDP W", "INTERCONNECT", "PRICE $");
  for (const GpuSpec& g : *catalog) {
    if (json) {
      out.push_back({{"name", g.name},
                     {"vendor", g.vendor},
                     {"segment", g.segment},
                     {"vram_gb", g.vram_gb},
                     {"mem_bw_gbs", g.mem_bw_gbs},
                     {"fp16_tflops", g.fp16_tflops},
                     {"fp8_tflops", g.fp8_tflops.value_or(0)},
                     {"tdp_w", g.tdp_w},
                     {"interconnect", g.interconnect},
                     {"interconnect_gbs", g.interconnect_gbs},
                     {"purchase_usd", g.purchase_usd.value_or(0)},
                     {"source", g.source}});
    } else {
      std::string ic = g.interconnect + " " + std::to_string(static_cast<int>(g.interconnect_gbs));
      std::printf("%-14s %-7s %-11s %7.0f %8.0f %8.1f %8s %6.0f %-15s %8s\n", g.name.c_str(),
                  g.vendor.c_str(), g.segment.c_str(), g.vram_gb, g.mem_bw_gbs, g.fp16_tflops,
                  g.fp8_tflops ? std::to_string(static_cast<int>(*g.fp8_tflops)).c_str() : "-",
                  g.tdp_w, ic.c_str(),
                  g.purchase_usd ? std::to_string(static_cast<int>(*g.purchase_usd)).c_str() : "-");
    }
  }
  if (json) std::cout << out.dump(2) << std::endl;
  return kExitOk;
}

}  // namespace burst
