// The SkyPilot features real task files use (issue 34): buckets in file_mounts through rclone
// (COPY, MOUNT, MOUNT_CACHED; the scripts run here with a stand-in rclone on a pod without FUSE),
// a VM image that goes with a cloud burst drops, GPU choices of different counts priced per
// choice, the default image named, and a default max_runtime for a task that runs until stopped.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "burst/spec.h"
#include "burst/spec_formats.h"
#include "plan/plan_summary.h"
#include "plan/planner.h"
#include "registry.h"

namespace burst {
namespace {

namespace fs = std::filesystem;
using Lines = std::vector<std::string>;

struct Read {
  Result<PipelineSpec> spec;
  Lines errors;
  SpecReadInfo info;
  bool noted(const std::string& text) const {
    return std::any_of(info.notes.begin(), info.notes.end(),
                       [&](const std::string& n) { return n == "t.yaml:" + text; });
  }
};

Read read(const std::string& yaml, std::optional<double> max_runtime = std::nullopt) {
  SpecLoadOptions options;
  options.max_runtime_seconds = max_runtime;
  options.format = SpecFormat::kSkyPilot;
  options.for_run = false;
  options.providers = provider_names();
  std::vector<SpecError> errors;
  SpecReadInfo info;
  Result<PipelineSpec> spec = parse_spec(yaml, "t.yaml", &errors, options, &info);
  Lines lines;
  for (const SpecError& e : errors) lines.push_back(e.text);
  return {std::move(spec), lines, info};
}

const SecretRef* secret(const PipelineSpec& s, const std::string& name) {
  for (const SecretRef& r : s.secrets)
    if (r.name == name) return &r;
  return nullptr;
}

TEST(SkyPilotBuckets, CopyAndMountBecomeRcloneLinesWithCredentialsAsOptionalSecrets) {
  Read r = read(R"(name: b
resources:
  accelerators: T4
envs:
  CKPT: my-ckpts
file_mounts:
  /data: s3://bkt/imagenet
  /ckpt:
    name: $CKPT
    store: r2
    mode: MOUNT
  /cache:
    source: gs://shards
    mode: MOUNT_CACHED
run: python train.py
)");
  ASSERT_TRUE(r.spec.ok()) << (r.errors.empty() ? "" : r.errors.front());
  const PipelineSpec& s = *r.spec;
  EXPECT_NE(s.setup.find("rclone copyto \":s3,provider=AWS,env_auth=true:bkt/imagenet\" '/data'"),
            std::string::npos)
      << s.setup;
  // The bucket's name comes from envs on the pod, as SkyPilot fills it in.
  EXPECT_NE(s.setup.find("rclone mount \":s3,provider=Cloudflare:$CKPT\" '/ckpt' --daemon "
                         "--vfs-cache-mode writes"),
            std::string::npos)
      << s.setup;
  EXPECT_NE(s.setup.find("'/cache' --daemon --vfs-cache-mode full"), std::string::npos);
  EXPECT_EQ(s.run.rfind("(\npython train.py\n)\nburst_rc=$?\n", 0), 0u) << s.run;
  for (const char* name : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "R2_ACCOUNT_ID",
                           "R2_SECRET_ACCESS_KEY", "RCLONE_GCS_SERVICE_ACCOUNT_CREDENTIALS"}) {
    const SecretRef* ref = secret(s, name);
    ASSERT_NE(ref, nullptr) << name;
    EXPECT_TRUE(ref->optional) << name;
  }
  // Credentials are named, never their values, in what the user reads.
  EXPECT_TRUE(
      r.noted("7:10: file_mounts./data: copied from s3://bkt/imagenet onto the pod with "
              "rclone before setup"));
  EXPECT_TRUE(r.noted(
      "9:5: file_mounts./ckpt: mounted from r2://$CKPT with rclone where the pod allows FUSE; "
      "elsewhere copied in before setup and copied back when run ends (the job's log says which)"));
  EXPECT_TRUE(
      r.noted("7:10: file_mounts./data: credentials for s3:// come from your shell when "
              "set: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN (optional "
              "secrets: passed to the pod, never logged)"));
}

// The scripts themselves, run by bash with a stand-in rclone that records its arguments, on a
// "pod" with no fusermount: MOUNT copies in before setup and copies back after run, keeping
// run's exit status.
TEST(SkyPilotBuckets, WithoutFuseAMountIsCopiedInAndCopiedBackWhenRunEnds) {
  const fs::path dir = fs::temp_directory_path() / ("sky-bucket-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  const std::string mnt = (dir / "mnt").string();
  Read r = read("resources:\n  accelerators: T4\nfile_mounts:\n  " + mnt +
                ":\n    source: s3://bkt/out\n    mode: MOUNT\nrun: |\n  echo hi > " + mnt +
                "/x\n  exit 3\n");
  ASSERT_TRUE(r.spec.ok()) << (r.errors.empty() ? "" : r.errors.front());
  const std::string log = (dir / "rclone.log").string();
  {
    std::ofstream f(dir / "bin/rclone");
    f << "#!/bin/sh\necho \"$*\" >> " << log << "\n";
  }
  fs::permissions(dir / "bin/rclone", fs::perms::owner_all);
  // Only what the scripts call, so no fusermount is found.
  for (const char* tool : {"mkdir", "dirname", "touch", "cat", "sh"})
    for (const char* at : {"/usr/bin/", "/bin/"})
      if (fs::exists(std::string(at) + tool) && !fs::exists(dir / "bin" / tool)) {
        fs::create_symlink(std::string(at) + tool, dir / "bin" / tool);
        break;
      }
  std::ofstream(dir / "setup.sh") << r.spec->setup;
  std::ofstream(dir / "run.sh") << r.spec->run;
  const std::string env = "env -i HOME=" + dir.string() + " TMPDIR=" + dir.string() +
                          " PATH=" + (dir / "bin").string() + " /bin/bash ";
  ASSERT_EQ(std::system((env + (dir / "setup.sh").string() + " 2>/dev/null").c_str()), 0);
  EXPECT_EQ(WEXITSTATUS(std::system((env + (dir / "run.sh").string() + " 2>/dev/null").c_str())),
            3);
  std::ifstream in(log);
  std::stringstream got;
  got << in.rdbuf();
  EXPECT_EQ(got.str(),
            "mkdir :s3,provider=AWS,env_auth=true:bkt/out\n"
            "copy :s3,provider=AWS,env_auth=true:bkt/out " +
                mnt +
                "\n"
                "copy " +
                mnt + " :s3,provider=AWS,env_auth=true:bkt/out\n");
  fs::remove_all(dir);
}

TEST(SkyPilotBuckets, AStoreBurstCannotReadIsRefusedNamingTheLine) {
  Read r = read("resources:\n  accelerators: T4\nfile_mounts:\n  /d: cos://bkt/x\nrun: ls\n");
  EXPECT_EQ(r.errors, Lines{"t.yaml:4:7: file_mounts./d: not supported: bucket source "
                            "\"cos://bkt/x\"; burst reads s3://, gs://, r2:// and https:// "
                            "sources: fetch it in setup, or put the files under workdir"});
}

TEST(SkyPilotImages, AVmImageForACloudBurstDropsGoesWithThatCloud) {
  Read r = read("resources:\n  cloud: aws\n  accelerators: A10G\n  image_id: ami-0abc\nrun: ls\n");
  ASSERT_TRUE(r.spec.ok()) << (r.errors.empty() ? "" : r.errors.front());
  EXPECT_EQ(r.spec->image, "ubuntu:22.04");
  EXPECT_TRUE(
      r.noted("4:13: resources.image_id: ignored with the cloud it is for (aws): burst "
              "runs containers; give image_id: docker:IMAGE to choose one"));
  // A container image is kept whatever the cloud.
  Read d = read("resources:\n  infra: gcp\n  image_id: docker:nvcr.io/x:1\nrun: ls\n");
  ASSERT_TRUE(d.spec.ok());
  EXPECT_EQ(d.spec->image, "nvcr.io/x:1");
}

TEST(SkyPilotImages, NoImageNamesTheDefaultAndWhatItHolds) {
  Read r = read("resources:\n  accelerators: T4\nrun: uv pip install torch\n");
  ASSERT_TRUE(r.spec.ok());
  EXPECT_TRUE(r.noted(
      "1:1: image_id: none given: burst runs its default image ubuntu:22.04 (Ubuntu 22.04 with "
      "bash, coreutils and apt, run as root; no Python, pip, conda, uv, curl or CUDA toolkit (the "
      "GPU driver comes from the host)); give image_id: docker:IMAGE when setup or run needs "
      "more"));
}

TEST(SkyPilotCounts, ChoicesOfDifferentCountsKeepEachCountAndConvertBack) {
  Read r = read("resources:\n  accelerators: {L4: 8, A100-80GB: 2}\nrun: ls\n");
  ASSERT_TRUE(r.spec.ok()) << (r.errors.empty() ? "" : r.errors.front());
  EXPECT_EQ(r.spec->resources.gpu_count, 2);
  EXPECT_EQ(r.spec->resources.gpu_counts,
            (std::map<std::string, int>{{"A100_80GB", 2}, {"L4", 8}}));
  EXPECT_EQ(r.spec->env.at("SKYPILOT_NUM_GPUS_PER_NODE"), "2");
  Read any = read(
      "resources:\n  any_of:\n    - accelerators: H100:1\n    - accelerators: A100-80GB:2\n"
      "run: ls\n");
  ASSERT_TRUE(any.spec.ok()) << (any.errors.empty() ? "" : any.errors.front());
  EXPECT_EQ(any.spec->resources.gpu_counts,
            (std::map<std::string, int>{{"A100_80GB", 2}, {"H100_SXM", 1}}));
  // burst convert writes resources.gpu_counts, which the burst reader reads back.
  std::string yaml = write_spec_yaml(*any.spec, any.info);
  EXPECT_NE(yaml.find("gpu_counts: {A100_80GB: 2, H100_SXM: 1}"), std::string::npos) << yaml;
  SpecLoadOptions native;
  native.format = SpecFormat::kBurst;
  native.for_run = false;
  native.providers = provider_names();
  std::vector<SpecError> errors;
  auto back = parse_spec(yaml, "t.yaml", &errors, native, nullptr);
  ASSERT_TRUE(back.ok()) << (errors.empty() ? "" : errors.front().text);
  EXPECT_EQ(back->resources.gpu_counts, any.spec->resources.gpu_counts);
  // A choice of any GPU cannot take part in different counts.
  Read bad = read(
      "resources:\n  any_of:\n    - accelerators: H100:1\n    - cpus: 4\n"
      "      accelerators: 40GB+:2\nrun: ls\n");
  ASSERT_FALSE(bad.spec.ok());
}

Offer offer(const std::string& gpu, int count, double usd_per_hour) {
  Offer o;
  o.provider = "p";
  o.gpu_type = gpu;
  o.gpu_count = count;
  o.vram_gb = 24;
  o.usd_per_hour = usd_per_hour;
  o.price_source = "live offer";
  return o;
}

TEST(SkyPilotCounts, EachChoiceIsPricedAtItsOwnCount) {
  PipelineSpec spec;
  spec.name = "mixed";
  spec.run = "true";
  spec.workload.kind = "custom";
  spec.workload.reference = WorkloadReference{kThisMachineGpu, 3600, ""};
  spec.resources.gpus = {"L4", "A100_80GB"};
  spec.resources.gpu_count = 2;
  spec.resources.gpu_counts = {{"L4", 8}, {"A100_80GB", 2}};
  PlanInput in;
  in.providers = {"p"};
  // One L4 is the cheapest offer, but an L4 choice needs 8.
  in.gpu_offers = {offer("L4", 1, 0.5), offer("L4", 8, 4.0), offer("A100_80GB", 2, 3.0)};
  auto plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->gpu.gpu_type, "A100_80GB");
  EXPECT_NE(std::find(plan->notes.begin(), plan->notes.end(),
                      "p L4: fewer GPUs than resources.gpu_counts gives L4"),
            plan->notes.end());
  in.gpu_offers[1].usd_per_hour = 2.0;  // now eight L4s are cheaper than two A100s
  plan = make_plan(spec, in);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  EXPECT_EQ(plan->gpu.gpu_type, "L4");
  EXPECT_EQ(plan_summary_lines(spec, *plan).at(1),
            "  GPU pod: p L4 x8 at $2.00/h (live offer), one program on all 8 GPUs");
}

// disk_size (resources.disk_gb) on the plan's GPU pod line: the size where the provider sets it,
// and where it cannot (a Lambda instance type comes with its disk) that it is not set.
TEST(SkyPilotDisk, ThePlanLineSaysWhereThePodsOwnDiskCannotBeSet) {
  Read r = read("resources:\n  accelerators: A10\n  disk_size: 500\nrun: python train.py\n");
  ASSERT_TRUE(r.spec.ok()) << (r.errors.empty() ? "" : r.errors.front());
  Plan plan;
  plan.gpu = offer("A10", 1, 0.75);
  plan.gpu.provider = "runpod";
  plan.gpu.traits = find_provider_traits("runpod");
  EXPECT_EQ(plan_summary_lines(*r.spec, plan).at(1),
            "  GPU pod: runpod A10 x1 at $0.75/h (live offer), its own disk 500 GB (wiped with "
            "the pod)");
  plan.gpu.provider = "lambda";
  plan.gpu.traits = find_provider_traits("lambda");
  EXPECT_EQ(plan_summary_lines(*r.spec, plan).at(1),
            "  GPU pod: lambda A10 x1 at $0.75/h (live offer), its own disk as lambda rents it "
            "(resources.disk_gb 500 GB is not set there)");
}

TEST(SkyPilotRuntime, ATaskThatRunsUntilStoppedGetsADefaultMaxRuntimeThePlanPrints) {
  Read r = read(
      "resources:\n  accelerators: L4\n  image_id: docker:vllm/vllm-openai\n"
      "service:\n  replicas: 1\nrun: vllm serve m\n");
  ASSERT_TRUE(r.spec.ok()) << (r.errors.empty() ? "" : r.errors.front());
  EXPECT_EQ(r.spec->budget.max_runtime_seconds, 4 * 3600);
  EXPECT_TRUE(
      r.noted("1:1: budget.max_runtime: 4 h by default: a service (service:), so burst "
              "stops it after 4 h rather than bill until someone notices; to change it, "
              "give --max-runtime DURATION (or burst convert the file and set "
              "budget.max_runtime)"));
  Read ray = read("resources:\n  accelerators: L4\nrun: ray start --head --block\n");
  ASSERT_TRUE(ray.spec.ok());
  EXPECT_EQ(ray.spec->budget.max_runtime_default_why,
            "the task would run until stopped: run starts `ray start --head`, which serves until "
            "stopped");
  Plan plan;
  plan.gpu = offer("L4", 1, 1.0);
  const Lines lines = plan_summary_lines(*ray.spec, plan);
  EXPECT_EQ(lines.back(),
            "  max runtime: 4 h (budget.max_runtime, a default: the task would run until "
            "stopped: run starts `ray start --head`, which serves until stopped; --max-runtime "
            "DURATION changes it)");
  // A task that ends by itself gets none.
  Read batch = read("resources:\n  accelerators: L4\nrun: python train.py\n");
  ASSERT_TRUE(batch.spec.ok());
  EXPECT_FALSE(batch.spec->budget.max_runtime_seconds.has_value());
}

// --max-runtime replaces the default (and its note) and any budget.max_runtime; the plan block
// then prints it as the spec's own limit.
TEST(SkyPilotRuntime, MaxRuntimeFlagReplacesTheDefaultAndItsNote) {
  Read r = read("resources:\n  accelerators: L4\nrun: ray start --head --block\n", 1800);
  ASSERT_TRUE(r.spec.ok());
  EXPECT_EQ(r.spec->budget.max_runtime_seconds, 1800);
  EXPECT_TRUE(r.spec->budget.max_runtime_default_why.empty());
  for (const std::string& note : r.info.notes)
    EXPECT_EQ(note.find("max_runtime"), std::string::npos) << note;
  Plan plan;
  plan.gpu = offer("L4", 1, 1.0);
  EXPECT_EQ(plan_summary_lines(*r.spec, plan).back(), "  max runtime: 1800 s (budget.max_runtime)");
  Read given = read("resources:\n  accelerators: L4\nrun: python train.py\n", 7200);
  ASSERT_TRUE(given.spec.ok());
  EXPECT_EQ(given.spec->budget.max_runtime_seconds, 7200);
}

}  // namespace
}  // namespace burst
