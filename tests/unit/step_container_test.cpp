// Steps in the spec's image on a VM (job/step_container.h): the docker command line carries paths
// and names only, never a value; the env file holds values verbatim and refuses what docker's
// format cannot carry; a failed pull keeps docker's message and says whose fault it is.
#include "job/step_container.h"

#include <gtest/gtest.h>

#include <string>

namespace burst {
namespace {

StepContainer sample() {
  StepContainer c;
  c.image = "python:3.11-slim";
  c.prefix = container_prefix("job-1");
  c.mounts = {"/lambda/nfs/v/code", "/lambda/nfs/v", "/home/ubuntu/.burst-pod", "/lambda/nfs/v"};
  c.workdir = "/lambda/nfs/v/code";
  c.env_file = "/home/ubuntu/.burst-pod/env.docker";
  return c;
}

TEST(StepContainer, RunCommandBindsEachPathAtItselfAndNamesTheEnvFileNotItsValues) {
  const std::string cmd = container_run_command(sample(), "/home/ubuntu/.burst-pod", "run");
  EXPECT_EQ(cmd,
            "$D run --rm --init --name 'burst-job-1-run' --gpus all --env-file "
            "'/home/ubuntu/.burst-pod/env.docker' -v '/lambda/nfs/v/code:/lambda/nfs/v/code' -v "
            "'/lambda/nfs/v:/lambda/nfs/v' -v '/home/ubuntu/.burst-pod:/home/ubuntu/.burst-pod' "
            "-w '/lambda/nfs/v/code' 'python:3.11-slim' sh -c 'if command -v bash >/dev/null "
            "2>&1; then exec bash -e '\\''/home/ubuntu/.burst-pod/run.sh'\\''; else exec sh -e "
            "'\\''/home/ubuntu/.burst-pod/run.sh'\\''; fi'");
  StepContainer cpu = sample();
  cpu.gpus = false;
  EXPECT_EQ(container_run_command(cpu, "/p", "upload").find("--gpus"), std::string::npos);
}

TEST(StepContainer, NamesKeepOnlyWhatDockerAllows) {
  EXPECT_EQ(container_prefix("20261126-ab_c.d"), "burst-20261126-ab_c.d");
  EXPECT_EQ(container_prefix("a b/c'd"), "burst-a-b-c-d");
}

TEST(StepContainer, EnvFileHoldsValuesVerbatimAndRefusesLineBreaksWithoutTheValue) {
  auto text = docker_env_file({{"A", "x y 'z' $HOME"}, {"B", ""}});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "# written by burst; mode 0600\nA=x y 'z' $HOME\nB=\n");
  for (const char* bad : {"line1\nline2", "ends\r"}) {
    auto refused = docker_env_file({{"PEM_KEY", bad}});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kInvalid);
    EXPECT_NE(refused.error().message.find("env PEM_KEY holds a line break"), std::string::npos);
    EXPECT_EQ(refused.error().message.find(bad), std::string::npos);
  }
}

TEST(StepContainer, PullErrorsKeepDockersMessageAndClassifyAMissingImage) {
  Error missing = pull_error(
      "python:0.0", 1,
      "Error response from daemon: manifest for python:0.0 not found: manifest unknown\n");
  EXPECT_EQ(missing.code, ErrorCode::kInvalid);
  EXPECT_EQ(missing.message,
            "cannot pull the spec's image python:0.0 on the pod: Error response from daemon: "
            "manifest for python:0.0 not found: manifest unknown");
  EXPECT_EQ(pull_error("x/y", 1, "pull access denied for x/y, repository does not exist").code,
            ErrorCode::kInvalid);
  Error net =
      pull_error("python:3.11-slim", 1, "Get \"https://registry-1.docker.io/v2/\": i/o timeout");
  EXPECT_EQ(net.code, ErrorCode::kRemoteFailed);
  EXPECT_NE(net.message.find("i/o timeout"), std::string::npos);
  EXPECT_EQ(pull_error("i", 127, "").message,
            "cannot pull the spec's image i on the pod: docker exited 127");
}

}  // namespace
}  // namespace burst
