// Invalid workloads reaching the planner: one clear error up front, never a crash.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plan/planner.h"
#include "registry.h"

namespace burst {
namespace {

std::vector<GpuSpec> invalid_catalog() {
  GpuSpec g;
  g.name = "RTX_4090";
  g.vram_gb = 24;
  g.mem_bw_gbs = 1008;
  g.fp16_tflops = 165;
  g.interconnect = "pcie";
  return {g};
}

PlanInput input(const std::vector<GpuSpec>& cat) {
  Offer o;
  o.provider = "runpod";
  o.traits = find_provider_traits(o.provider);
  o.gpu_type = "RTX_4090";
  o.gpu_count = 1;
  o.vram_gb = 24;
  o.usd_per_hour = 0.69;
  PlanInput in;
  in.providers = {"runpod"};
  in.gpu_offers = {o};
  in.catalog = &cat;
  return in;
}

PipelineSpec diffusion() {
  PipelineSpec s;
  s.name = "x";
  s.run = "true";
  s.workload.kind = "diffusion";
  s.workload.params_b = 0.5;
  s.workload.items = 10;
  return s;
}

std::string error_of(const PipelineSpec& spec) {
  const auto cat = invalid_catalog();
  auto plan = make_plan(spec, input(cat));
  EXPECT_FALSE(plan.ok());
  if (plan.ok()) return "";
  EXPECT_EQ(plan.error().code, ErrorCode::kInvalid);
  return plan.error().message;
}

TEST(PlanInvalid, NegativeParams) {
  PipelineSpec s = diffusion();
  s.workload.params_b = -7;
  EXPECT_EQ(error_of(s), "workload.params_b must be > 0 (got -7)");
}

TEST(PlanInvalid, UnknownPrecision) {
  PipelineSpec s = diffusion();
  s.workload.precision = "fp7";
  EXPECT_EQ(error_of(s),
            "unknown precision \"fp7\" (expected fp32, fp16, bf16, fp8, int8, int4, q8_0, q4_k_m "
            "or q4_0)");
}

TEST(PlanInvalid, GpuNameNotInTheCatalog) {
  PipelineSpec s = diffusion();
  s.resources.gpus = {"RTX_4090", "RTX_9090"};
  EXPECT_EQ(
      error_of(s),
      "resources.gpus: \"RTX_9090\" is not in the GPU catalog (`burst gpus` lists the names)");
  s = diffusion();
  s.workload.kind = "custom";
  s.workload.reference = WorkloadReference{"X100", 60, "bandwidth"};
  EXPECT_EQ(error_of(s), "workload.reference.gpu \"X100\" is not in the GPU catalog");
}

TEST(PlanInvalid, MissingFieldForTheRunTime) {
  PipelineSpec s = diffusion();
  s.workload.items.reset();
  const auto cat = invalid_catalog();
  auto plan = make_plan(s, input(cat));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kNoCapacity);
  EXPECT_EQ(plan.error().message,
            "no offer satisfies the spec's resources\n"
            "  runpod RTX_4090: workload.items is required to estimate the run time of kind "
            "diffusion");
}

TEST(PlanInvalid, BudgetBelowEveryCandidate) {
  PipelineSpec s = diffusion();
  s.budget.max_usd = 0.001;
  const auto cat = invalid_catalog();
  auto plan = make_plan(s, input(cat));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(plan.error().message.rfind("the cheapest plan is estimated at $0.01, over "
                                       "budget.max_usd $0.00",
                                       0),
            0u)
      << plan.error().message;
}

TEST(PlanInvalid, DeadlineNoCandidateMeets) {
  PipelineSpec s = diffusion();
  s.budget.deadline_seconds = 10;  // the cold start alone is 73 s
  const auto cat = invalid_catalog();
  auto plan = make_plan(s, input(cat));
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().code, ErrorCode::kNoCapacity);
  EXPECT_NE(plan.error().message.find("runpod RTX_4090: misses the deadline: 73 s > 10 s"),
            std::string::npos)
      << plan.error().message;
}

}  // namespace
}  // namespace burst
