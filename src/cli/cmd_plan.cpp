// `burst plan FILE`: every candidate priced, the chosen one marked with its go-wide curve,
// rejected ones with reasons. Creates nothing; providers without a driver are priced from the
// offline table, and --offers prices a JSON file of offers instead of asking providers.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "app/offers.h"
#include "app/plan_with_history.h"
#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/run_flags.h"
#include "cli/spec_errors.h"
#include "cli/table.h"
#include "plan/plan_summary.h"

namespace burst {
namespace {

nlohmann::json curve_json(const std::vector<WidthPoint>& curve) {
  nlohmann::json out = nlohmann::json::array();
  for (const WidthPoint& p : curve)
    out.push_back({{"workers", p.workers},
                   {"seconds", p.seconds},
                   {"usd", p.usd},
                   {"allowed", p.allowed},
                   {"over", p.over}});
  return out;
}

int print_json(const PipelineSpec& spec, const Result<Plan>& plan,
               const std::vector<Candidate>& candidates, bool all) {
  nlohmann::json out = {{"pipeline", spec.name},
                        {"chosen", nullptr},
                        {"notes", nlohmann::json::array()},
                        {"candidates", nlohmann::json::array()}};
  if (plan.ok()) {
    const Estimate& e = plan->estimate;
    out["chosen"] = {{"provider", plan->gpu.provider},
                     {"gpu", plan->gpu.gpu_type},
                     {"count", plan->gpu.gpu_count},
                     {"workers", e.workers},
                     {"replicas", plan->layout.replicas},
                     {"gpus_per_replica", plan->layout.per_replica},
                     {"multi_gpu", plan->layout.program ? "program" : "replicas"},
                     {"usd", e.usd},
                     {"seconds", e.total_s},
                     {"billed_seconds", e.billed_s},
                     {"utilization", e.utilization},
                     {"basis", e.basis},
                     {"curve", curve_json(plan->curve)}};
    out["notes"] = plan->notes;
    if (!plan->fallbacks.empty()) {  // Plan::fallbacks: where a worker goes if the chosen is full
      nlohmann::json f = nlohmann::json::array();
      for (const FleetFallback& fb : plan->fallbacks)
        f.push_back({{"provider", fb.offer.provider},
                     {"gpu", fb.offer.gpu_type},
                     {"region", fb.offer.region},
                     {"usd_per_hour", fb.price},
                     {"worker_usd", fb.worker_usd}});
      out["fallbacks"] = f;
    }
    if (plan->prepare && spec.prepare)
      out["prepare"] = {
          {"where", plan->prepare->expect_skip ? "skipped" : to_string(plan->prepare->where)},
          {"seconds", plan->prepare->seconds()},
          {"usd", plan->prepare->usd()},
          {"cpu_pod_usd", plan->prepare->cpu_pod_usd},
          {"gpu_pod_usd", plan->prepare->gpu_pod_usd},
          {"why", plan->prepare->why}};
    if (plan->spot) {  // resources.spot: both prices and the priced risk (plan/spot_risk.h)
      const SpotRisk& r = *plan->spot;
      out["spot"] = {{"offered", r.offered},
                     {"chosen", r.chosen},
                     {"spot_usd_per_hour", r.spot_usd_per_hour},
                     {"on_demand_usd_per_hour", r.on_demand_usd_per_hour},
                     {"spot_usd", r.spot_usd},
                     {"on_demand_usd", r.on_demand_usd},
                     {"expected_usd", r.expected_usd},
                     {"expected_seconds", r.expected_s},
                     {"expected_preemptions", r.restarts},
                     {"restart_seconds", r.restart_s},
                     {"restart_transfer_usd", r.restart_transfer_usd},
                     {"prior_per_pod_hour", r.rate_per_hour},
                     {"prior_source", r.prior_source},
                     {"why", r.why}};
    }
    if (plan->handoff)
      out["handoff"] = {{"where", to_string(plan->handoff->where)},
                        {"why", plan->handoff->why},
                        {"gpu_pod_usd", plan->handoff->gpu_pod_usd},
                        {"local_usd", plan->handoff->local_usd}};
  } else {
    out["error"] = plan.error().message;
  }
  for (const auto& c : candidates) {
    if (!all && !c.rejected.empty()) continue;
    out["candidates"].push_back({{"provider", c.offer.provider},
                                 {"gpu", c.offer.gpu_type},
                                 {"count", c.offer.gpu_count},
                                 {"workers", c.workers},
                                 {"replicas", c.shape ? c.shape->layout.replicas : 1},
                                 {"usd_per_hour", c.offer.usd_per_hour},
                                 {"price_source", c.offer.price_source},
                                 {"need_gib", c.need_gib()},
                                 {"have_gb", c.have_gb()},
                                 {"bound", c.bound()},
                                 {"seconds", c.total_s},
                                 {"billed_seconds", c.billed_s},
                                 {"usd", c.usd},
                                 {"utilization", c.utilization},
                                 {"rejected", c.rejected},
                                 {"why", plan.ok() ? why_not_chosen(*plan, c) : ""}});
  }
  std::cout << out.dump(2) << std::endl;
  if (plan.ok()) return kExitOk;
  return plan.error().code == ErrorCode::kInvalid ? kExitUsage : kExitFailure;
}

void print_curve(const Plan& plan) {
  if (plan.curve.size() < 2) return;
  std::printf("go wide or tall (%s %s, each worker pays its own cold start):\n",
              plan.gpu.provider.c_str(), plan.gpu.gpu_type.c_str());
  const auto r = Table::kRight;
  Table table({{""}, {"WORKERS", r}, {"EST MIN", r}, {"EST $", r}, {""}});
  // Long curves are thinned to about a dozen rows (--json has every point).
  const size_t n = plan.curve.size();
  const size_t stride = n > 12 ? (n + 11) / 12 : 1;
  for (size_t i = 0; i < n; ++i) {
    const WidthPoint& p = plan.curve[i];
    if (i >= 4 && i % stride != 0 && i + 1 != n && p.workers != plan.estimate.workers) continue;
    char minutes[32], usd[32];
    std::snprintf(minutes, sizeof minutes, "%.1f", p.seconds / 60);
    std::snprintf(usd, sizeof usd, "%.4f", p.usd);
    table.add({p.workers == plan.estimate.workers ? "*" : "", std::to_string(p.workers), minutes,
               usd, p.allowed ? "" : "(over " + (p.over.empty() ? "a limit" : p.over) + ")"});
  }
  std::cout << table.render() << std::flush;
}

}  // namespace

int cmd_plan(const PlanArgs& args) {
  auto spec_options = spec_options_from_flags(args.spec_flags.format, args.spec_flags.env,
                                              /*for_run=*/false, args.spec_flags.max_runtime);
  if (!spec_options.ok()) return fail(kExitUsage, spec_options.error().message);
  auto spec = load_spec_or_print(args.spec, *spec_options);
  if (!spec.ok()) return spec_exit_code(spec.error());
  auto config = load_config_or_print();
  if (!config.ok()) return fail(config.error(), ErrorOrigin::kConfig);
  std::string provider;
  if (int code = apply_plan_flags(&*spec, args.providers, args.gpus, *config, &provider))
    return code;
  SystemClock clock;
  auto sources = args.offers.empty()
                     ? gather_offers(*spec, provider, *config, clock, /*offline_table=*/true)
                     : offers_from_file(args.offers, provider, *config);
  if (!sources.ok())
    return fail(sources.error().code == ErrorCode::kAuth ? kExitConfig : kExitUsage,
                sources.error().message);
  // The history `burst run` plans with too (app/plan_with_history.h): the chosen plan's basis then
  // says "calibrated from N runs".
  auto plan = plan_with_history(*spec, &sources->input, *config);
  std::vector<Candidate> fallback;
  if (!plan.ok()) {
    CandidateInput ci;
    ci.catalog = sources->input.catalog;
    ci.calibration = default_calibration();
    fallback = price_candidates(*spec, sources->input.gpu_offers, ci);
  }
  const std::vector<Candidate>& candidates = plan.ok() ? plan->candidates : fallback;
  if (args.json) return print_json(*spec, plan, candidates, args.all);

  const auto r = Table::kRight;
  Table table({{""},
               {"PROVIDER"},
               {"GPU x N"},
               {"LAYOUT"},
               {"PODS", r},
               {"$/HOUR", r},
               {"NEED GiB", r},
               {"HAVE GiB", r},
               {"BOUND"},
               {"EST MIN", r},
               {"EST $", r},
               {"UTIL", r},
               {"VERDICT"}});
  // The verdict is one word; its reason goes on its own line under the row (naming the limit a
  // rejected candidate breaks), so rows stay within 120 columns (Table::kWidth).
  auto num = [](double v, const char* f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, f, v);
    return std::string(buf);
  };
  // A terminal table of thousands of offers helps no one: the best few, the rest on --all.
  constexpr int kShownWithoutAll = 20;
  int hidden = 0;
  int more = 0;
  int shown = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Candidate& c = candidates[i];
    if (!args.all && !c.rejected.empty()) {
      ++hidden;
      continue;
    }
    if (!args.all && shown >= kShownWithoutAll) {
      ++more;
      continue;
    }
    ++shown;
    const bool chosen = plan.ok() && i == 0;
    const std::string why = plan.ok() && !chosen ? why_not_chosen(*plan, c) : "";
    const std::string reason = chosen ? "" : !why.empty() ? why : c.rejected;
    const bool dearer = why.rfind("costs ", 0) == 0;
    const std::string verdict = chosen                ? "chosen"
                                : !c.rejected.empty() ? "rejected"
                                : dearer              ? "dearer"
                                                      : "not chosen";
    table.add({chosen ? "*" : "", c.offer.provider,
               c.offer.gpu_type + " x" + std::to_string(c.offer.gpu_count),
               c.shape ? pod_layout_cell(c.shape->layout) : "-", std::to_string(c.workers),
               num(c.offer.usd_per_hour, "%.2f"), num(c.need_gib(), "%.1f"),
               num(c.have_gb(), "%.1f"), c.bound().empty() ? "-" : c.bound(),
               num(c.total_s / 60, "%.1f"), num(c.usd, "%.4f"), num(c.utilization * 100, "%.0f%%"),
               verdict});
    // Only dearer is plain from the row's own EST $; --all says even that.
    if (!reason.empty() && (args.all || !dearer))
      table.note((c.rejected.empty() ? "why not: " : "rejected: ") + reason);
  }
  std::cout << table.render() << std::flush;
  if (more) std::printf("(%d more candidates that fit, dearer; --all shows them)\n", more);
  if (hidden)
    std::printf("(%d rejected candidates hidden; --all shows them with reasons)\n", hidden);
  if (!sources->table_note.empty()) std::cout << wrap_line(sources->table_note, 2);
  if (!plan.ok())
    return fail(plan.error().code == ErrorCode::kInvalid ? kExitUsage : kExitFailure,
                plan.error().message);
  const Estimate& e = plan->estimate;
  std::cout << wrap_line("chosen: " + plan->gpu.provider + " " + plan->gpu.gpu_type + " x" +
                             std::to_string(plan->gpu.gpu_count) +
                             (e.workers > 1 ? " on " + std::to_string(e.workers) + " pods" : "") +
                             ", " + e.basis +
                             "; the cheapest candidate that fits and meets the limits",
                         2)
            << std::flush;
  print_curve(*plan);
  if (plan->handoff) std::cout << wrap_line("hand-off: " + plan->handoff->why, 2);
  // The block `burst run` prints before it starts (plan/plan_summary.h): the same plan, wrapped
  // the same way (print_plan_lines).
  print_plan_lines(plan_summary_lines(*spec, *plan), std::cout);
  for (const std::string& n : plan->notes)
    if (n.rfind("over-provisioned", 0) == 0) std::cout << wrap_line("note: " + n, 6);
  return kExitOk;
}

int cmd_gpus(bool json) {
  auto config = load_config_or_print();
  if (!config.ok()) return fail(kExitConfig, config.error().message);
  auto catalog = load_gpu_catalog(config->config_dir);
  if (!catalog.ok()) return fail(kExitConfig, catalog.error().message);
  nlohmann::json out = nlohmann::json::array();
  const auto r = Table::kRight;
  Table table({{"GPU"},
               {"VENDOR"},
               {"SEGMENT"},
               {"VRAM GB", r},
               {"BW GB/s", r},
               {"FP16 TF", r},
               {"FP8 TF", r},
               {"TDP W", r},
               {"INTERCONNECT"},
               {"BUY $", r}});
  auto num = [](double v, const char* f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, f, v);
    return std::string(buf);
  };
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
      table.add({g.name, g.vendor, g.segment, num(g.vram_gb, "%.0f"), num(g.mem_bw_gbs, "%.0f"),
                 num(g.fp16_tflops, "%.1f"),
                 g.fp8_tflops ? std::to_string(static_cast<int>(*g.fp8_tflops)) : "-",
                 num(g.tdp_w, "%.0f"), ic,
                 g.purchase_usd ? std::to_string(static_cast<int>(*g.purchase_usd)) : "-"});
    }
  }
  if (json)
    std::cout << out.dump(2) << std::endl;
  else
    std::cout << table.render()
              << "BUY $: the card's purchase price, for rent vs buy; not a rental price ($/hour: "
                 "burst offers, burst plan)\n";
  return kExitOk;
}

}  // namespace burst
