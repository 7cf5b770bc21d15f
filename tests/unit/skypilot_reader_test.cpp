// SkyPilot task files read as SkyPilot reads them (src/spec/skypilot_*): the files under
// tests/data/skypilot/, each with what it maps to, the notes a user sees, and the exact error of
// every refused feature; then `burst convert`'s output read back as a burst spec.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "burst/gpu_catalog.h"
#include "burst/spec.h"
#include "burst/spec_formats.h"
#include "registry.h"
#include "spec/skypilot_accelerators.h"

namespace burst {
namespace {

using Lines = std::vector<std::string>;

const std::string kDir = std::string(BURST_SOURCE_DIR) + "/tests/data/skypilot/";

struct Loaded {
  Result<PipelineSpec> spec;
  Lines errors;
  SpecReadInfo info;
};

Loaded load(const std::string& name) {
  SpecLoadOptions options;
  options.for_run = false;  // as validate and plan read it
  options.providers = provider_names();
  std::vector<SpecError> errors;
  SpecReadInfo info;
  Result<PipelineSpec> spec = load_spec_file(kDir + name, &errors, options, &info);
  Lines lines;
  for (const SpecError& e : errors) lines.push_back(e.text);
  return {std::move(spec), lines, info};
}

// The spec of a file that must load; the last one's notes are kept for has_note().
SpecReadInfo g_info;
Result<PipelineSpec> load_ok(const std::string& name) {
  Loaded l = load(name);
  EXPECT_TRUE(l.spec.ok()) << name << ": " << (l.errors.empty() ? "" : l.errors.front());
  g_info = l.info;
  return l.spec;
}

// Whether the last load_ok() noted `text` ("line:col: field: message") for `spec`.
bool has_note(const PipelineSpec& spec, const std::string& text) {
  return std::any_of(g_info.notes.begin(), g_info.notes.end(),
                     [&](const std::string& n) { return n == spec.path + ":" + text; });
}

TEST(SkyPilotReader, MinimalTaskIsReadAsItIs) {
  auto spec = load_ok("minimal.yaml");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->name, "hello");
  EXPECT_EQ(spec->setup, "echo setting up");
  EXPECT_EQ(spec->run, "echo hello from SkyPilot");
}

TEST(SkyPilotReader, AcceleratorStringWithCountIsCaseInsensitive) {
  auto spec = load_ok("accel_string.yaml");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(g_info.format, "skypilot");
  EXPECT_EQ(spec->resources.gpus, Lines{"H100_SXM"});
  EXPECT_EQ(spec->resources.gpu_count, 4);
  EXPECT_EQ(spec->env.at("SKYPILOT_NUM_GPUS_PER_NODE"), "4");
  EXPECT_EQ(spec->env.at("SKYPILOT_NODE_RANK"), "0");
  EXPECT_EQ(spec->env.at("SKYPILOT_NUM_NODES"), "1");
  EXPECT_EQ(spec->env.at("SKYPILOT_NODE_IPS"), "127.0.0.1");
  // No workload facts: price x an assumed run time, and the user is told.
  EXPECT_EQ(spec->workload.kind, "custom");
  ASSERT_TRUE(spec->workload.reference);
  EXPECT_EQ(spec->workload.reference->runtime_seconds, 3600);
  EXPECT_TRUE(has_note(*spec,
                       "1:1: workload: a SkyPilot file has no workload facts: the plan prices "
                       "each offer as its $/hour x 1 h, an assumed run time (burst convert, then "
                       "set workload to model it)"));
}

TEST(SkyPilotReader, AcceleratorListSetDictAndMemoryForms) {
  auto list = load_ok("accel_list.yaml");
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->resources.gpus, (Lines{"A100_40GB", "A100_80GB"}));
  auto set = load_ok("accel_set.yaml");
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->resources.gpus, (Lines{"L4", "T4", "A10G"}));
  EXPECT_EQ(set->resources.gpu_count, 1);
  auto dict = load_ok("accel_dict.yaml");
  ASSERT_TRUE(dict.ok());
  EXPECT_EQ(dict->resources.gpus, Lines{"A100_80GB"});
  EXPECT_EQ(dict->resources.gpu_count, 8);
  EXPECT_TRUE(dict->resources.spot);
  EXPECT_EQ(dict->resources.disk_gb, 512);  // the pod's own disk, not the kept volume
  EXPECT_EQ(dict->volume.size_gb, 50);
  EXPECT_TRUE(has_note(*dict, "6:14: resources.disk_tier: not used: providers set the disk"));
  auto mem = load_ok("accel_memory.yaml");
  ASSERT_TRUE(mem.ok());
  EXPECT_TRUE(mem->resources.gpus.empty());
  EXPECT_EQ(mem->resources.min_vram_gb, 40);
  EXPECT_TRUE(has_note(
      *mem, "4:9: resources.cpus: not used: burst chooses GPU offers, not CPU or memory sizes"));
}

TEST(SkyPilotReader, LlmServingKeepsImageNotesServiceAndPortsAndNeedsTheNullEnv) {
  auto spec = load_ok("llm_serving.yaml");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->name, "llm-serving");  // from the file name
  EXPECT_EQ(spec->image, "vllm/vllm-openai:latest");
  EXPECT_EQ(spec->resources.gpus, (Lines{"L4", "A10G", "A100_40GB"}));
  EXPECT_EQ(spec->env.at("MODEL_NAME"), "meta-llama/Llama-3.1-8B-Instruct");
  EXPECT_FALSE(spec->env.contains("HF_TOKEN"));
  ASSERT_EQ(spec->secrets.size(), 1u);
  EXPECT_EQ(spec->secrets[0].name, "HF_TOKEN");
  EXPECT_TRUE(has_note(*spec,
                       "7:3: service: not served: burst runs the task as one job, with no "
                       "replicas, load balancer or endpoint; it runs until budget.max_runtime"));
  EXPECT_TRUE(has_note(*spec,
                       "12:10: resources.ports: not opened: burst opens no ports (reach the "
                       "server through SSH); the job runs until its run step exits or "
                       "budget.max_runtime"));
  // `burst run` refuses the null env unless --env gives it.
  SpecLoadOptions run;
  run.for_run = true;
  std::vector<SpecError> errors;
  EXPECT_FALSE(load_spec_file(kDir + "llm_serving.yaml", &errors, run, nullptr).ok());
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].text, kDir +
                                "llm_serving.yaml:4:3: envs.HF_TOKEN: null: a value must be "
                                "supplied; pass --env HF_TOKEN=VALUE");
  run.env["HF_TOKEN"] = "hf_abc";
  auto given = load_spec_file(kDir + "llm_serving.yaml", &errors, run, nullptr);
  ASSERT_TRUE(given.ok()) << errors.front().text;
  EXPECT_EQ(given->env.at("HF_TOKEN"), "hf_abc");
  EXPECT_TRUE(given->secrets.empty());
}

TEST(SkyPilotReader, NullEnvWrittenAsAnEmptyKeyIsAlsoRequired) {
  auto spec = load_ok("null_env.yaml");
  ASSERT_TRUE(spec.ok());
  EXPECT_TRUE(has_note(*spec,
                       "5:3: envs.HF_TOKEN: null: supply it when you run: --env HF_TOKEN=VALUE "
                       "(or export it: it is read as a secret)"));
  EXPECT_EQ(spec->env.at("MODEL"), "gpt2");
}

TEST(SkyPilotReader, FineTuneMapsWorkdirMountsSecretsAndNodesToWorkers) {
  auto spec = load_ok("finetune.yaml");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->name, "llama-finetune");
  EXPECT_EQ(spec->code.dir, kDir + "code");
  EXPECT_EQ(spec->resources.providers, Lines{"runpod"});
  EXPECT_EQ(g_info.nodes, 2);
  EXPECT_EQ(spec->resources.workers, 2);
  EXPECT_EQ(spec->env.at("SKYPILOT_NUM_NODES"), "2");
  EXPECT_EQ(spec->env.at("SKYPILOT_NUM_GPUS_PER_NODE"), "8");
  // Per node, from the worker's index: not in env, which every worker shares.
  EXPECT_FALSE(spec->env.contains("SKYPILOT_NODE_RANK"));
  EXPECT_FALSE(spec->env.contains("SKYPILOT_NODE_IPS"));
  EXPECT_EQ(spec->env.at("EPOCHS"), "3");
  EXPECT_EQ(spec->resources.disk_gb, 1024);
  EXPECT_EQ(spec->volume.size_gb, 50);
  ASSERT_EQ(spec->secrets.size(), 2u);
  EXPECT_EQ(spec->secrets[0].name, "WANDB_API_KEY");
  const std::string preamble =
      "# SkyPilot's per-node variables: this worker is node $BURST_WORKER_INDEX of 2\n"
      "export SKYPILOT_NODE_RANK=\"${BURST_WORKER_INDEX:-0}\"\n"
      "export SKYPILOT_NODE_IPS=\"$(yes 127.0.0.1 | head -n 2)\"\n";
  EXPECT_EQ(
      spec->setup,
      preamble +
          "mkdir -p \"$(dirname '/data/sample.txt')\" && { [ 'data/sample.txt' -ef "
          "'/data/sample.txt' ] || cp -a 'data/sample.txt' '/data/sample.txt'; }\n"
          "mkdir -p \"$(dirname \"$HOME\"/'configs')\" && { [ 'data' -ef \"$HOME\"/'configs' ] "
          "|| cp -a 'data' \"$HOME\"/'configs'; }\n"
          "pip install torch transformers\n");
  EXPECT_EQ(spec->run.rfind(preamble + "torchrun ", 0), 0u) << spec->run;
  EXPECT_TRUE(has_note(*spec,
                       "3:12: num_nodes: 2 workers (resources.workers: 2), one pod each, each "
                       "running setup and run with SKYPILOT_NODE_RANK = its index"));
  // The run connects its nodes through SKYPILOT_NODE_IPS: the user is told it will not work.
  EXPECT_TRUE(has_note(*spec,
                       "3:12: num_nodes: burst's workers are independent pods that cannot reach "
                       "each other: SKYPILOT_NODE_IPS lists 127.0.0.1 for every node, so a "
                       "program that connects its nodes (torchrun --nnodes, mpirun) will not; "
                       "use num_nodes: 1 with more GPUs, or split the work by "
                       "SKYPILOT_NODE_RANK"));
  EXPECT_TRUE(has_note(*spec,
                       "1:7: name: \"Llama_Finetune\" becomes \"llama-finetune\" (burst's name "
                       "rules)"));
  // `burst run` reads it too: num_nodes is no longer refused.
  SpecLoadOptions run;
  run.for_run = true;
  run.providers = provider_names();
  run.env = {{"WANDB_API_KEY", "w"}, {"HF_TOKEN", "h"}};
  std::vector<SpecError> errors;
  EXPECT_TRUE(load_spec_file(kDir + "finetune.yaml", &errors, run, nullptr).ok())
      << (errors.empty() ? "" : errors[0].text);
}

TEST(SkyPilotReader, NodePreambleGivesEachWorkerItsRankAndOneIpLinePerNode) {
  auto spec = load_ok("finetune.yaml");
  ASSERT_TRUE(spec.ok());
  // The run script's variables as bash sees them on worker 1 of 2.
  const std::string script = spec->run.substr(0, spec->run.find("torchrun")) +
                             "printf '%s|%s' \"$SKYPILOT_NODE_RANK\" \"$SKYPILOT_NODE_IPS\"";
  const std::string path = ::testing::TempDir() + "/sky_preamble.sh";
  {
    std::ofstream f(path);
    f << script;
  }
  FILE* p = popen(("BURST_WORKER_INDEX=1 sh -e " + path).c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[256];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0);
  EXPECT_EQ(out, "1|127.0.0.1\n127.0.0.1");
}

TEST(SkyPilotReader, ChainMapsCpuTaskBeforeIntoSetupAndAfterIntoUpload) {
  auto spec = load_ok("pipeline.yaml");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->name, "train-pipeline");
  EXPECT_EQ(spec->resources.gpus, Lines{"L4"});
  EXPECT_EQ(spec->setup,
            "# SkyPilot task preprocess (line 4)\n(\necho preparing\necho preprocess > "
            "prepared.txt\n)\n");
  EXPECT_EQ(spec->run, "echo train on $(cat prepared.txt)");
  ASSERT_TRUE(spec->upload);
  EXPECT_EQ(spec->upload->image, "amazon/aws-cli");
  EXPECT_EQ(spec->upload->run, "# SkyPilot task publish (line 17)\n(\necho publish\n)\n");
  EXPECT_TRUE(has_note(*spec,
                       "17:1: (task): a task after the GPU task becomes the upload step: a CPU "
                       "pod once the GPU pod is gone (hand-off)"));
}

TEST(SkyPilotReader, AnyOfAndOrderedPoolTheChoices) {
  auto any = load_ok("any_of.yaml");
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(any->resources.gpus, (Lines{"H100_SXM", "A100_80GB", "H200"}));
  EXPECT_EQ(any->resources.gpu_count, 2);
  EXPECT_EQ(any->resources.providers, (Lines{"lambda", "vast"}));
  EXPECT_TRUE(any->resources.spot);
  EXPECT_TRUE(has_note(*any,
                       "9:14: resources.any_of[2].infra: \"aws\" is not a burst provider: "
                       "ignored; burst chooses among its own providers (local, ssh, runpod, "
                       "lambda, vast; pick with --provider)"));
  auto ordered = load_ok("ordered.yaml");
  ASSERT_TRUE(ordered.ok());
  EXPECT_EQ(ordered->resources.gpus, (Lines{"RTX_4090", "L4"}));
  EXPECT_EQ(ordered->resources.providers, Lines{"runpod"});
}

TEST(SkyPilotReader, SecretsListLegacyCloudAndConfig) {
  auto spec = load_ok("secrets_list.yaml");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->resources.providers, Lines{"lambda"});
  EXPECT_EQ(spec->resources.gpus, Lines{"A10"});
  ASSERT_EQ(spec->secrets.size(), 2u);
  EXPECT_EQ(spec->secrets[1].name, "WANDB_API_KEY");
  EXPECT_TRUE(has_note(*spec, "11:3: config: ignored: SkyPilot's own settings"));
}

TEST(SkyPilotReader, VolumesBecomeTheVolume) {
  auto spec = load_ok("volume_task.yaml");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->volume.name, "hf-cache");
  EXPECT_EQ(spec->volume.mount, "/mnt/cache");
  EXPECT_EQ(spec->resources.gpus, Lines{"RTX_4090"});
}

TEST(SkyPilotReader, RefusedFeaturesNameTheLineAndWhatToUse) {
  // Buckets are read (tests/unit/skypilot_features_test.cpp); a store burst cannot read is not.
  EXPECT_TRUE(load("bucket_mount.yaml").spec.ok());
  EXPECT_TRUE(load("mount_mode.yaml").spec.ok());
  EXPECT_EQ(
      load("two_gpu_tasks.yaml").errors,
      Lines{kDir + "two_gpu_tasks.yaml:8:3: resources.accelerators: not supported: a second GPU "
                   "task; burst runs one GPU step per pipeline: split the chain into two files"});
}

TEST(SkyPilotReader, InlineErrorsCarryLineColumnAndField) {
  std::vector<SpecError> errors;
  SpecLoadOptions check;
  check.for_run = false;
  auto spec = parse_spec(
      "name: x\nresources:\n  accelerators: TPU-v4-8\n  image_id: ami-123\n  cpus: lots\n"
      "envs:\n  BURST_X: 1\nrun: echo\n",
      "p.yaml", &errors, check, nullptr);
  ASSERT_FALSE(spec.ok());
  Lines lines;
  for (const SpecError& e : errors) lines.push_back(e.text);
  EXPECT_EQ(lines,
            (Lines{"p.yaml:3:17: resources.accelerators: not supported: TPUs (\"TPU-v4-8\"); "
                   "burst rents GPUs: use a GPU name such as H100",
                   "p.yaml:4:13: resources.image_id: not supported: VM image \"ami-123\" (burst "
                   "runs containers); use image_id: docker:IMAGE",
                   "p.yaml:5:9: resources.cpus: expected a number, optionally with '+', got "
                   "\"lots\"",
                   "p.yaml:7:3: envs.BURST_X: names starting with BURST_ are reserved for burst"}));
  // Different counts per GPU are kept per GPU (resources.gpu_counts); by memory they cannot be.
  auto counts = parse_spec("resources:\n  accelerators: [40GB+:1, L4:2]\nrun: echo\n", "p.yaml",
                           &errors, check, nullptr);
  ASSERT_FALSE(counts.ok());
  EXPECT_EQ(errors.at(0).text,
            "p.yaml:2:27: resources.accelerators: not supported: a memory form (40GB+) among "
            "choices of different counts (1 and 2); name the GPUs, or use the same count");
  auto unknown = parse_spec("resources:\n  accelerators: K80:2\nrun: echo\n", "p.yaml", &errors,
                            check, nullptr);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(errors.at(0).text,
            "p.yaml:2:17: resources.accelerators: unknown GPU \"K80\": not in burst's GPU "
            "catalog (`burst gpus` lists it)");
  auto typo = parse_spec("resources:\n  accelerators: T4\n  use_sopt: true\nrun: echo\n", "p.yaml",
                         &errors, check, nullptr);
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(errors.at(0).text,
            "p.yaml:3:3: resources.use_sopt: unknown field (did you mean \"use_spot\"?)");
}

// image_id: docker:IMAGE is held to the rule a burst spec's `image` is (no blank or control
// byte), so `burst convert` never writes an image its own reader refuses (the skypilot fuzzer's
// find: "docker:vllm/v 8000 --max-model-len 4096", an image with a command line run into it).
TEST(SkyPilotReader, ADockerImageWithABlankIsRefusedAtImageId) {
  std::vector<SpecError> errors;
  SpecLoadOptions sky;
  sky.format = SpecFormat::kSkyPilot;
  sky.for_run = false;
  auto spec = parse_spec(
      "resources:\n  accelerators: L4\n  image_id: docker:vllm/v 8000 --max-model-len 4096\n"
      "run: echo\n",
      "p.yaml", &errors, sky, nullptr);
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(errors.at(0).text,
            "p.yaml:3:13: resources.image_id: must not contain blanks or control characters");
  errors.clear();
  EXPECT_TRUE(
      parse_spec("resources:\n  accelerators: L4\n  image_id: docker:vllm/vllm-openai:v0.9\n"
                 "run: echo\n",
                 "p.yaml", &errors, sky, nullptr)
          .ok());
}

// One name is a value in the file or a secret supplied when you run, never both: the reader says
// so at the second place, so `burst convert` never writes a spec its own reader refuses (the
// skypilot fuzzer's find: envs.HF_TOKEN null beside secrets.HF_TOKEN with a value).
TEST(SkyPilotReader, ANameLeftNullAndGivenAValueIsRefusedWhereverTheTwoAre) {
  SpecLoadOptions sky;
  sky.format = SpecFormat::kSkyPilot;
  sky.for_run = false;
  auto first_error = [&](const std::string& text) {
    std::vector<SpecError> errors;
    auto spec = parse_spec(text, "p.yaml", &errors, sky, nullptr);
    EXPECT_FALSE(spec.ok()) << text;
    return errors.empty() ? std::string("no error") : errors.front().text;
  };
  EXPECT_EQ(first_error("envs:\n  HF_TOKEN: null\nsecrets:\n  HF_TOKEN: abc\nrun: echo\n"),
            "p.yaml:4:3: secrets.HF_TOKEN: HF_TOKEN is also left null (supplied when you run); "
            "give it once");
  EXPECT_EQ(first_error("secrets:\n  K: null\nrun: echo\n---\nenvs:\n  K: v\nrun: echo\n"),
            "p.yaml:6:3: envs.K: left null (supplied when you run) in an earlier task; burst runs "
            "the chain with one environment: give it once");
  EXPECT_EQ(first_error("secrets:\n  K: v\nrun: echo\n---\nenvs:\n  K: null\nrun: echo\n"),
            "p.yaml:6:3: envs.K: null here, but given a value in an earlier task; burst runs the "
            "chain with one environment: give it once");
  EXPECT_EQ(first_error("secrets:\n  SKYPILOT_NUM_NODES: null\nrun: echo\n"),
            "p.yaml:2:3: SKYPILOT_NUM_NODES: SkyPilot sets SKYPILOT_NUM_NODES itself; use another "
            "name");
  // Both null, or both with one value: still fine.
  std::vector<SpecError> errors;
  auto both_null = parse_spec("envs:\n  K: null\nsecrets:\n  K: null\nrun: echo\n", "p.yaml",
                              &errors, sky, nullptr);
  ASSERT_TRUE(both_null.ok());
  ASSERT_EQ(both_null->secrets.size(), 1u);
  EXPECT_FALSE(both_null->env.contains("K"));
}

TEST(SkyPilotReader, FormatFlagForcesEitherReader) {
  SpecLoadOptions sky;
  sky.format = SpecFormat::kSkyPilot;
  sky.for_run = false;
  std::vector<SpecError> errors;
  SpecReadInfo info;
  auto spec = parse_spec("name: hi\nrun: echo\n", "p.yaml", &errors, sky, &info);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(info.format, "skypilot");
  SpecLoadOptions burst_format;
  burst_format.format = SpecFormat::kBurst;
  EXPECT_FALSE(
      parse_spec("name: hi\nenvs: {A: b}\nrun: echo\n", "p.yaml", &errors, burst_format, nullptr)
          .ok());
  EXPECT_EQ(errors.at(0).text, "p.yaml:2:1: envs: unknown field (did you mean \"env\"?)");
}

TEST(SkyPilotReader, EnvFlagOverridesEitherFormat) {
  SpecLoadOptions options;
  options.env["A"] = "from-flag";
  std::vector<SpecError> errors;
  auto spec =
      parse_spec("name: hi\nenv: {A: file}\nrun: echo\n", "p.yaml", &errors, options, nullptr);
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->env.at("A"), "from-flag");
}

TEST(SkyPilotAccelerators, AliasesMapOntoTheCatalog) {
  EXPECT_EQ(spec::catalog_gpu_name("A100"), "A100_40GB");
  EXPECT_EQ(spec::catalog_gpu_name("a100-80gb"), "A100_80GB");
  EXPECT_EQ(spec::catalog_gpu_name("H100"), "H100_SXM");
  EXPECT_EQ(spec::catalog_gpu_name("l4"), "L4");
  EXPECT_EQ(spec::catalog_gpu_name("RTX4090"), "RTX_4090");
  EXPECT_EQ(spec::catalog_gpu_name("A6000"), "RTX_A6000");
  EXPECT_EQ(spec::catalog_gpu_name("K80"), std::nullopt);
  // Every name the aliases produce is in the compiled-in catalog.
  auto catalog = load_gpu_catalog("/nonexistent-burst-config");
  ASSERT_TRUE(catalog.ok());
  for (const std::string& name : spec::known_catalog_gpu_names()) {
    EXPECT_TRUE(std::any_of(catalog->begin(), catalog->end(), [&](const GpuSpec& g) {
      return g.name == name;
    })) << name;
  }
}

// `burst convert`: what it prints reads back (as a burst spec, next to the original) to the
// same values, for every file the SkyPilot reader accepts.
TEST(SkyPilotConvert, OutputReadsBackToTheSameSpec) {
  for (const char* name :
       {"accel_string.yaml", "accel_list.yaml", "accel_set.yaml", "accel_dict.yaml",
        "accel_memory.yaml", "llm_serving.yaml", "null_env.yaml", "finetune.yaml", "pipeline.yaml",
        "any_of.yaml", "ordered.yaml", "secrets_list.yaml", "volume_task.yaml", "local_run.yaml",
        "minimal.yaml"}) {
    auto spec = load_ok(name);
    ASSERT_TRUE(spec.ok()) << name;
    std::string text = write_spec_yaml(*spec, g_info);
    std::vector<SpecError> errors;
    SpecLoadOptions burst_format;
    burst_format.format = SpecFormat::kBurst;
    burst_format.for_run = false;
    burst_format.providers = provider_names();
    auto back = parse_spec(text, kDir + "converted.yaml", &errors, burst_format, nullptr);
    ASSERT_TRUE(back.ok()) << name << ": " << errors.front().text << "\n" << text;
    EXPECT_EQ(back->name, spec->name) << name;
    EXPECT_EQ(back->resources.gpus, spec->resources.gpus) << name;
    EXPECT_EQ(back->resources.gpu_count, spec->resources.gpu_count) << name;
    EXPECT_EQ(back->resources.min_vram_gb, spec->resources.min_vram_gb) << name;
    EXPECT_EQ(back->resources.providers, spec->resources.providers) << name;
    EXPECT_EQ(back->resources.spot, spec->resources.spot) << name;
    EXPECT_EQ(back->env, spec->env) << name;
    EXPECT_EQ(back->secrets.size(), spec->secrets.size()) << name;
    EXPECT_EQ(back->image, spec->image) << name;
    EXPECT_EQ(back->volume.name, spec->volume.name) << name;
    EXPECT_EQ(back->volume.mount, spec->volume.mount) << name;
    EXPECT_EQ(back->volume.size_gb, spec->volume.size_gb) << name;
    EXPECT_EQ(back->resources.disk_gb, spec->resources.disk_gb) << name;
    EXPECT_EQ(back->resources.multi_gpu, spec->resources.multi_gpu) << name;
    EXPECT_EQ(back->resources.merge_flat, spec->resources.merge_flat) << name;
    EXPECT_EQ(back->code.dir, spec->code.dir) << name;
    EXPECT_EQ(back->run, spec->run) << name;
    EXPECT_EQ(back->setup, spec->setup) << name;
    EXPECT_EQ(back->upload.has_value(), spec->upload.has_value()) << name;
    if (back->upload) {
      EXPECT_EQ(back->upload->run, spec->upload->run) << name;
    }
    EXPECT_EQ(back->workload.kind, spec->workload.kind) << name;
  }
}

}  // namespace
}  // namespace burst
