// A provider is a folder and a registry row: the test-only "toy" provider (this folder) is added
// to the registry by its row alone, and then the spec accepts its name, `burst run`'s offer
// gathering asks its driver, the planner bills by its traits, and the job runner creates its pod,
// reaches it through the row's connector (not SSH) and deletes it. No file outside this folder
// and the row knows it.
#include "providers/toy/toy_provider.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app/offers.h"
#include "burst/store.h"
#include "fakes/temp_dir.h"
#include "job/job_runner.h"
#include "registry.h"

namespace burst {
namespace {

class QuietConsole : public Console {
 public:
  void line(const std::string& text) override { lines.push_back(text); }
  void remote_out(const std::string&) override {}
  void remote_err(const std::string&) override {}
  void progress(const std::string&) override {}
  bool confirm(const std::string&) override { return true; }
  std::vector<std::string> lines;
};

bool called(const std::string& prefix) {
  const auto& calls = toy_account().calls_;
  return std::any_of(calls.begin(), calls.end(),
                     [&](const std::string& c) { return c.rfind(prefix, 0) == 0; });
}

TEST(ToyProvider, IsAFolderAndARowFromOffersThroughPlanToTheRunnersCreateAndDelete) {
  ToyProviderRow row;
  const ProviderTraits* traits = find_provider_traits(kToyProvider);
  ASSERT_NE(traits, nullptr);

  TempDir dir;
  std::vector<SpecError> errors;
  auto spec = parse_spec("name: toy-job\nrun: echo hi\nresources:\n  providers: [toy]\n",
                         dir.path() + "/job.yaml", &errors, provider_names());
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors.front().text);

  Config config;
  config.state_dir = dir.path() + "/state";
  config.reports_dir = config.state_dir + "/reports";
  config.logs_dir = config.state_dir + "/logs";
  SystemClock clock;
  auto sources = gather_offers(*spec, "", config, clock, /*offline_table=*/false);
  ASSERT_TRUE(sources.ok()) << sources.error().message;
  ASSERT_EQ(sources->input.gpu_offers.size(), 1u);
  EXPECT_EQ(sources->input.gpu_offers[0].traits, traits) << "offers carry the row's traits";
  EXPECT_TRUE(called("offers gpu"));

  auto plan = make_plan(*spec, sources->input);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->gpu.provider, kToyProvider);
  // The row's 30 s boot, billed as one started hour: its billing rule, not a name, priced it.
  ASSERT_FALSE(plan->candidates.empty());
  EXPECT_DOUBLE_EQ(plan->candidates.front().billed_s, 3600);

  auto store = open_sqlite_store(":memory:");
  ASSERT_TRUE(store.ok()) << store.error().message;
  auto connector = make_connector(plan->gpu.provider);
  const int connects_before = toy_connects();
  QuietConsole console;
  JobInput in;
  in.job_id = "toy1";
  in.spec = *spec;
  in.plan = *plan;
  in.ssh_public_key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAItoy toy@test";
  JobDeps deps{**store, clock,  *connector,      *sources->providers.at(kToyProvider),
               console, config, [] { return 0; }};
  JobResult result = JobRunner(deps, std::move(in)).run();

  EXPECT_EQ(result.state, JobState::kFailed);
  EXPECT_NE(result.error.find(kToyConnectRefusal), std::string::npos) << result.error;
  EXPECT_EQ(toy_connects(), connects_before + 1) << "the runner used the row's connector";
  auto installation = (*store)->installation_id();
  ASSERT_TRUE(installation.ok());
  EXPECT_TRUE(called("create " + pod_name(*installation, "toy1", "gpu")));
  EXPECT_TRUE(called("delete "));
  auto pods = (*store)->pods_of_job("toy1");
  ASSERT_TRUE(pods.ok());
  ASSERT_EQ(pods->size(), 1u);
  EXPECT_EQ((*pods)[0].provider, kToyProvider);
  EXPECT_NE((*pods)[0].deleted_ms, 0) << "the pod's deletion was confirmed";
}

}  // namespace
}  // namespace burst
