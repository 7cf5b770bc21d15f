// The spec's image means the same thing on Lambda (issue 17): Lambda rents VMs, so burst runs
// every step inside the image with docker on the VM (job/step_container.h). Against the Lambda
// emulator, whose VMs carry a strict docker shim that gives a step the catalogue image's identity
// (fakecloud/docker_shim.h): the step sees the image's Python, not the VM's; the image is pulled
// once, shown in the output; a secret travels in a 0600 --env-file, never on docker's command
// line nor in any log; an image docker cannot pull fails the job with docker's message and the
// VM deleted and verified gone; Ctrl-C stops a step that ignores SIGTERM through `docker kill`.
#include <gtest/gtest.h>
#include <pwd.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>

#include "e2e/cloud_e2e.h"

namespace burst::testing {
namespace {

constexpr const char* kLambdaImageKey = "secret_E2EKEY_lambda_image_never_seen_7";
constexpr const char* kSecret = "hf_IMAGE_SECRET_must_never_be_seen_9173";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

int image_count_of(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

class LambdaImage : public ::testing::Test {
 protected:
  void SetUp() override {
    spec_ = copy_tts_example(home_);
    ASSERT_TRUE(cloud_.start().ok());
    // Lambda's login user is ubuntu; the emulator's loopback sshd only accepts its own user.
    write_provider_config(home_, "lambda", cloud_.provider_url("lambda"),
                          {std::string("ssh_user: ") + getpwuid(getuid())->pw_name});
  }
  // Rewrites the example: its image, and `from` in its text replaced by `to`.
  void edit_spec(const std::string& image, const std::string& from = "",
                 const std::string& to = "") {
    std::string text = replaced(read_file(spec_), "image: python:3.11-slim", "image: " + image);
    if (!from.empty()) text = replaced(text, from, to);
    std::ofstream(spec_, std::ios::trunc) << text;
  }
  void edit(const std::string& from, const std::string& to) {
    const std::string text = replaced(read_file(spec_), from, to);
    std::ofstream(spec_, std::ios::trunc) << text;
  }
  int run(std::string* out, std::string* err) {
    return run_burst(home_, {"run", spec_, "--provider", "lambda", "--yes"}, out, err,
                     {{"LAMBDA_API_KEY", kLambdaImageKey}, {"HF_TOKEN", kSecret}});
  }
  std::string calls() { return read_file(cloud_.state().docker_calls_log()); }
  void expect_pod_deleted_and_gone(const std::string& out) {
    auto pods = cloud_.state().all_pods();
    ASSERT_EQ(pods.size(), 1u) << out;
    EXPECT_EQ(pods[0].phase, fakecloud::Phase::kTerminated);
    EXPECT_NE(out.find(pods[0].id + " deleted (confirmed)"), std::string::npos) << out;
    EXPECT_TRUE(cloud_.state().live_pods().empty());
  }

  BurstHome home_;
  std::string spec_;
  SystemClock clock_;
  fakecloud::FakeCloud cloud_{
      {home_.root() + "/fakecloud", Duration(0), {{"lambda", kLambdaImageKey}}},
      clock_,
      {"lambda"}};
};

TEST_F(LambdaImage, StepsSeeTheImagesPythonAndEnvAndTheSecretStaysOffCommandLinesAndLogs) {
  edit_spec("python:3.12-slim");  // copy_tts_example renders one step: a quick render
  edit("run: |\n",
       "run: |\n  echo \"image-python: $(python3 --version)\"\n"
       "  echo \"image-env: PYTHON_VERSION=$PYTHON_VERSION\"\n"
       "  echo \"secret-length: ${#HF_TOKEN}\"\n  echo \"cwd: $(pwd)\"\n"
       "  mkdir -p out && python3 --version > out/python-version.txt\n");
  edit("  - remote: out/manifest.json\n",
       "  - remote: out/manifest.json\n    local: ./tts-output\n"
       "  - remote: out/python-version.txt\n");
  std::string out, err;
  ASSERT_EQ(run(&out, &err), 0) << out << err;

  // The image's identity, not the VM's; the secret arrived (its length, never its value).
  EXPECT_NE(out.find("image-python: Python 3.12.12"), std::string::npos) << out;
  EXPECT_NE(out.find("image-env: PYTHON_VERSION=3.12.12"), std::string::npos) << out;
  EXPECT_NE(out.find("secret-length: " + std::to_string(std::string(kSecret).size())),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("cwd: " + cloud_.state().volumes("lambda")[0].dir), std::string::npos)
      << "the synced workdir, at the path it has on the VM:\n"
      << out;
  EXPECT_EQ(read_file(home_.work() + "/tts-output/python-version.txt"), "Python 3.12.12\n");
  std::string log;
  for (const auto& f : files_under(home_.state() + "/logs")) log += read_file(f);
  EXPECT_NE(log.find("image-python: Python 3.12.12"), std::string::npos) << log;

  // Pulled once, and the pull is in the output.
  EXPECT_NE(out.find("pulling the spec's image python:3.12-slim on pod "), std::string::npos)
      << out;
  EXPECT_NE(out.find("Status: Downloaded newer image for python:3.12-slim"), std::string::npos)
      << out;
  const std::string c = calls();
  EXPECT_EQ(image_count_of(c, "docker pull "), 1) << c;
  // setup and run (and the upload when the hand-off put it on the VM) each in a container.
  EXPECT_GE(image_count_of(c, "docker run --rm --init --name burst-"), 2) << c;
  EXPECT_NE(c.find(" --gpus all --env-file "), std::string::npos) << c;
  EXPECT_EQ(c.find("HF_TOKEN"), std::string::npos) << "no variable on docker's command line:\n"
                                                   << c;
  EXPECT_EQ(image_count_of(c, "env-file-mode 600"), image_count_of(c, "docker run ")) << c;

  // The secret's value: in no output, no file under the home (logs, db, reports, the emulator's
  // state and its record of every docker command line), nowhere in the API traffic.
  for (const std::string& where : {out, err, c}) EXPECT_EQ(where.find(kSecret), std::string::npos);
  for (const auto& f : files_under(home_.root()))
    EXPECT_EQ(read_file(f).find(kSecret), std::string::npos) << f;
  expect_pod_deleted_and_gone(out);
  expect_key_nowhere(home_, cloud_, out, err, kLambdaImageKey);
}

TEST_F(LambdaImage, AnImageDockerCannotPullFailsTheJobWithDockersMessageAndThePodIsDeleted) {
  edit_spec("python:0.0-no-such-tag");
  std::string out, err;
  EXPECT_NE(run(&out, &err), 0) << out << err;
  const std::string all = out + err;
  EXPECT_NE(all.find("pull image: cannot pull the spec's image python:0.0-no-such-tag on the pod: "
                     "Error response from daemon: manifest for python:0.0-no-such-tag not found"),
            std::string::npos)
      << all;
  EXPECT_EQ(image_count_of(calls(), "docker run "), 0) << "no step ran";
  expect_pod_deleted_and_gone(out);
}

TEST_F(LambdaImage, CtrlCStopsAStepThatIgnoresSigtermByKillingItsContainerAndDeletesThePod) {
  edit_spec("python:3.11-slim", "run: |\n",
            "run: |\n  trap '' TERM INT\n  echo started\n  sleep 60\n");
  BurstProcess p(home_, {"run", spec_, "--provider", "lambda", "--yes"},
                 {{"LAMBDA_API_KEY", kLambdaImageKey}, {"HF_TOKEN", kSecret}});
  ASSERT_TRUE(p.wait_for_stdout("| started")) << p.out() << p.err();
  kill(p.pid(), SIGINT);
  EXPECT_EQ(p.wait(60), 130) << p.out() << p.err();
  EXPECT_NE(p.out().find("stopping the remote run command"), std::string::npos) << p.out();
  const std::string c = calls();
  EXPECT_NE(c.find("docker kill burst-"), std::string::npos) << c;
  EXPECT_NE(c.find("-run"), std::string::npos) << c;
  expect_pod_deleted_and_gone(p.out());
}

}  // namespace
}  // namespace burst::testing
