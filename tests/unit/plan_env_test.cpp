// What a provider's pods cannot carry is refused by the planner, before anything is created
// (issue 29): a Lambda VM takes the job's env through docker's --env-file, one NAME=VALUE a line,
// so an env value with a line break used to fail only once the VM existed. The knowledge is the
// provider's registry row (ProviderTraits::env_line_break_why); the planner reads it per offer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "plan/planner.h"
#include "registry.h"

namespace burst {
namespace {

Offer env_offer(const std::string& provider, double usd_per_hour) {
  Offer o;
  o.provider = provider;
  o.traits = find_provider_traits(provider);
  o.gpu_type = "RTX_4090";
  o.gpu_count = 1;
  o.vram_gb = 24;
  o.usd_per_hour = usd_per_hour;
  o.region = "us";
  o.price_source = "live offer";
  return o;
}

PipelineSpec env_spec(const std::string& value) {
  PipelineSpec s;
  s.name = "pem";
  s.run = "python serve.py";
  s.workload.kind = "custom";
  s.workload.reference = WorkloadReference{"RTX_4090", 600, ""};
  s.env["CERT"] = value;
  return s;
}

PlanInput env_input(std::vector<Offer> offers) {
  PlanInput in;
  in.providers = {"lambda", "runpod"};
  in.gpu_offers = std::move(offers);
  return in;
}

TEST(PlanEnv, TheRegistryRowSaysWhatItsPodsCannotCarry) {
  const ProviderTraits* lambda = find_provider_traits("lambda");
  ASSERT_NE(lambda, nullptr);
  EXPECT_EQ(env_refusal(*lambda, {{"A", "one line"}}), "");
  EXPECT_EQ(env_refusal(*lambda, {{"A", "ok"}, {"CERT", "a\nb"}}),
            "env CERT holds a line break, which lambda cannot carry: its steps run in the "
            "spec's image with docker, whose --env-file takes one NAME=VALUE a line; put the "
            "value in a file under code.dir instead");
  EXPECT_NE(env_refusal(*lambda, {{"CR", "a\rb"}}), "");
  for (const char* other : {"runpod", "vast", "local"})
    EXPECT_EQ(env_refusal(*find_provider_traits(other), {{"CERT", "a\nb"}}), "") << other;
}

TEST(PlanEnv, AnOfferWhosePodsCannotCarryTheEnvIsRejectedWithTheReason) {
  // Lambda is cheaper, but cannot carry the value: the plan goes to RunPod and says why.
  auto plan = make_plan(env_spec("-----BEGIN-----\nabc\n-----END-----"),
                        env_input({env_offer("lambda", 0.50), env_offer("runpod", 0.69)}));
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->gpu.provider, "runpod");
  bool said = false;
  for (const std::string& n : plan->notes)
    said |= n.find("lambda RTX_4090: env CERT holds a line break") != std::string::npos;
  EXPECT_TRUE(said);
  // A one-line value: Lambda, the cheaper, is chosen.
  auto one_line =
      make_plan(env_spec("abc"), env_input({env_offer("lambda", 0.50), env_offer("runpod", 0.69)}));
  ASSERT_TRUE(one_line.ok()) << one_line.error().message;
  EXPECT_EQ(one_line->gpu.provider, "lambda");
  // Lambda alone: no plan, so `burst run` creates nothing.
  auto none = make_plan(env_spec("a\nb"), env_input({env_offer("lambda", 0.50)}));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("env CERT holds a line break"), std::string::npos)
      << none.error().message;
}

}  // namespace
}  // namespace burst
