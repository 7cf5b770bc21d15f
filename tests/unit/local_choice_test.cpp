// Running on this machine is a choice (app/local_choice.h, issue 29 item 5): which plans land on a
// provider whose pods run here without the user having named it.
#include "app/local_choice.h"

#include <gtest/gtest.h>

#include "registry.h"

namespace burst {
namespace {

Offer choice_offer(const std::string& provider) {
  Offer o;
  o.provider = provider;
  o.gpu_type = "X";
  o.traits = find_provider_traits(provider);
  return o;
}

TEST(LocalChoice, APlanHereIsUnchosenUntilTheUserNamesItsProvider) {
  Plan plan;
  plan.gpu = choice_offer("local");
  EXPECT_EQ(unchosen_here_provider(plan, {}), "local");
  EXPECT_EQ(unchosen_here_provider(plan, {"runpod"}), "local");
  EXPECT_EQ(unchosen_here_provider(plan, {"runpod", "local"}), "");
  plan.gpu = choice_offer("runpod");
  EXPECT_EQ(unchosen_here_provider(plan, {}), "");
  plan.cpu = choice_offer("local");  // the upload's pod counts as much as the GPU pod
  EXPECT_EQ(unchosen_here_provider(plan, {"runpod"}), "local");
}

TEST(LocalChoice, ASkyPilotFilesProvidersAreNeverTheUsersChoice) {
  PipelineSpec spec;
  spec.resources.providers = {"local"};
  EXPECT_EQ(named_providers(spec, {"runpod"}), (std::vector<std::string>{"runpod", "local"}));
  spec.from_skypilot = true;  // its `cloud: local` is no SkyPilot cloud
  EXPECT_EQ(named_providers(spec, {}), std::vector<std::string>{});
  EXPECT_EQ(named_providers(spec, {"local"}), std::vector<std::string>{"local"});
}

TEST(LocalChoice, TheLineNamesThisMachinesUser) {
  EXPECT_EQ(runs_here_line().rfind("runs on THIS machine as ", 0), 0u) << runs_here_line();
  EXPECT_NE(runs_here_line().find(", no GPU"), std::string::npos);
}

}  // namespace
}  // namespace burst
