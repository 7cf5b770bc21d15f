#include "report/job_facts.h"

#include <algorithm>

#include "json/json_value.h"
#include "plan/billing.h"

namespace burst {

namespace {

void put(JsonValue& j, const char* key, const std::optional<double>& v) {
  if (v) j[key] = *v;
}

}  // namespace

ReportFacts report_facts_from_plan(const PipelineSpec& spec, const Plan& plan) {
  ReportFacts f;
  f.gpu_type = plan.gpu.gpu_type;
  f.gpu_count = std::max({1, plan.gpu.gpu_count, spec.resources.count_for(plan.gpu.gpu_type)});
  if (plan.layout.gpus > 1 && plan.layout.gpus == f.gpu_count) {
    f.replicas = plan.layout.replicas;
    f.layout = pod_layout_text(plan.layout);
  }
  f.gpu_usd_per_hour = plan.gpu.usd_per_hour;
  f.price_source = plan.gpu.price_source;
  const BillingRule& rule = traits_of(plan.gpu).billing;
  f.billing_increment_s = rule.increment_s > 0 ? rule.increment_s : 1;
  f.billing_minimum_s = rule.minimum_s;
  f.billing_unit = rule.unit;
  for (const FleetFallback& fb : plan.fallbacks)
    if (fb.offer.provider != plan.gpu.provider) {
      const BillingRule& r = traits_of(fb.offer).billing;
      f.billing_by_provider[fb.offer.provider] = {r.increment_s > 0 ? r.increment_s : 1,
                                                  r.minimum_s};
    }
  f.budget_usd = spec.budget.max_usd;
  f.deadline_s = spec.budget.deadline_seconds;
  f.max_runtime_s = spec.budget.max_runtime_seconds;
  f.workload_kind = spec.workload.kind;
  if (spec.workload.items) {
    f.units = static_cast<double>(*spec.workload.items);
    f.unit_name = "items";
  } else if (spec.workload.tokens) {
    f.units = static_cast<double>(*spec.workload.tokens);
    f.unit_name = "tokens";
  }
  if (!plan.candidates.empty()) f.bound = plan.candidates.front().bound();
  f.calibration_runs = plan.estimate.calibration_runs;
  f.calibration_factor = plan.estimate.calibration_factor;
  f.workers = plan.estimate.workers;
  f.split_items = spec.workload.items.value_or(0);
  if (spec.upload && plan.handoff && plan.handoff->where != Handoff::kCpuPod) {
    f.handoff = to_string(plan.handoff->where);
    f.handoff_why = plan.handoff->why;
  }
  if (spec.prepare && plan.prepare) {
    f.prepare = plan.prepare->expect_skip ? "skipped" : to_string(plan.prepare->where);
    f.prepare_why = plan.prepare->why;
    f.prepare_est_s = plan.prepare->seconds();
    f.prepare_est_usd = plan.prepare->usd();
    f.prepare_download_bytes = plan.prepare->download_bytes;
  }
  f.image_bytes = plan.image_bytes;
  f.image_link_bps = plan.gpu.download_bps;
  if (plan.spot) {
    f.spot = plan.spot->chosen;
    f.on_demand_usd_per_hour = plan.gpu.usd_per_hour;
    f.spot_why = plan.spot->why;
  }
  if (plan_rents_spot(plan)) {  // the price the plan rents at (plan/spot_risk.h)
    f.gpu_usd_per_hour = plan.spot->spot_usd_per_hour;
    f.price_source += ", spot";
  }
  return f;
}

std::string report_facts_to_json(const ReportFacts& f) {
  JsonValue j = {{"gpu_type", f.gpu_type},
                 {"gpu_count", f.gpu_count},
                 {"gpu_usd_per_hour", f.gpu_usd_per_hour},
                 {"price_source", f.price_source},
                 {"billing_increment_s", f.billing_increment_s},
                 {"billing_minimum_s", f.billing_minimum_s},
                 {"billing_unit", f.billing_unit},
                 {"workload_kind", f.workload_kind},
                 {"units", f.units},
                 {"unit_name", f.unit_name},
                 {"bound", f.bound},
                 {"calibration_runs", f.calibration_runs},
                 {"calibration_factor", f.calibration_factor}};
  put(j, "budget_usd", f.budget_usd);
  put(j, "deadline_s", f.deadline_s);
  put(j, "max_runtime_s", f.max_runtime_s);
  for (const auto& [provider, rule] : f.billing_by_provider)
    j["billing_by_provider"][provider] = {{"increment_s", rule.first}, {"minimum_s", rule.second}};
  if (f.on_demand_usd_per_hour > 0 || !f.spot_why.empty()) {
    j["spot"] = f.spot;
    j["on_demand_usd_per_hour"] = f.on_demand_usd_per_hour;
    j["spot_why"] = f.spot_why;
  }
  if (f.workers > 1) {
    j["workers"] = f.workers;
    j["split_items"] = f.split_items;
  }
  if (!f.handoff.empty()) {
    j["handoff"] = f.handoff;
    j["handoff_why"] = f.handoff_why;
  }
  if (!f.prepare.empty()) {
    j["prepare"] = f.prepare;
    j["prepare_why"] = f.prepare_why;
    j["prepare_est_s"] = f.prepare_est_s;
    j["prepare_est_usd"] = f.prepare_est_usd;
    j["prepare_download_bytes"] = f.prepare_download_bytes;
  }
  if (f.image_bytes > 0) j["image_bytes"] = f.image_bytes;
  if (f.image_link_bps > 0) j["image_link_bps"] = f.image_link_bps;
  if (!f.layout.empty()) {
    j["replicas"] = f.replicas;
    j["layout"] = f.layout;
  }
  return j.dump();
}

ReportFacts report_facts_from_json(const std::string& text) {
  ReportFacts f;
  if (text.empty()) return f;
  auto parsed = JsonValue::parse(text);
  if (!parsed || !parsed->is_object()) return f;
  const JsonValue& j = *parsed;
  f.gpu_type = j.string_or("gpu_type", "");
  f.gpu_count = static_cast<int>(j.number_or("gpu_count", 0));
  f.replicas = static_cast<int>(j.number_or("replicas", 1.0));
  f.layout = j.string_or("layout", "");
  f.gpu_usd_per_hour = j.number_or("gpu_usd_per_hour", 0.0);
  f.spot = j.bool_or("spot", false);
  f.on_demand_usd_per_hour = j.number_or("on_demand_usd_per_hour", 0.0);
  f.spot_why = j.string_or("spot_why", "");
  f.price_source = j.string_or("price_source", "");
  f.billing_increment_s = j.number_or("billing_increment_s", 0.0);
  f.billing_minimum_s = j.number_or("billing_minimum_s", 0.0);
  f.billing_unit = j.string_or("billing_unit", "");
  f.budget_usd = j.number("budget_usd");
  f.deadline_s = j.number("deadline_s");
  f.max_runtime_s = j.number("max_runtime_s");
  f.workload_kind = j.string_or("workload_kind", "");
  f.units = j.number_or("units", 0.0);
  f.unit_name = j.string_or("unit_name", "");
  f.bound = j.string_or("bound", "");
  f.calibration_runs = static_cast<int>(j.number_or("calibration_runs", 0));
  f.calibration_factor = j.number_or("calibration_factor", 1.0);
  f.handoff = j.string_or("handoff", "");
  f.handoff_why = j.string_or("handoff_why", "");
  f.workers = static_cast<int>(j.number_or("workers", 1.0));
  f.split_items = static_cast<long>(j.number_or("split_items", 0.0));
  f.prepare = j.string_or("prepare", "");
  f.prepare_why = j.string_or("prepare_why", "");
  f.prepare_est_s = j.number_or("prepare_est_s", 0.0);
  f.prepare_est_usd = j.number_or("prepare_est_usd", 0.0);
  f.prepare_download_bytes = j.number_or("prepare_download_bytes", 0.0);
  f.image_bytes = j.number_or("image_bytes", 0.0);
  f.image_link_bps = j.number_or("image_link_bps", 0.0);
  if (const JsonValue* by = j.find("billing_by_provider"); by && by->is_object())
    for (const auto& [provider, rule] : by->members())
      if (rule.is_object() && rule.number_or("increment_s", 0) > 0)
        f.billing_by_provider[provider] = {rule.number_or("increment_s", 1),
                                           rule.number_or("minimum_s", 0)};
  return f;
}

}  // namespace burst
