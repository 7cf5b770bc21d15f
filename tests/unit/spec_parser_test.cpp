// The pipeline spec parser: the shipped example, defaults, and the exact text of every kind of
// error (one "file:line:col: field: message" per problem, in file order). Anything written to disk
// lives in a mkdtemp directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "burst/spec.h"
#include "fakes/temp_dir.h"
#include "registry.h"
#include "spec/spec_checks.h"
#include "util/duration.h"

namespace burst {
namespace {

namespace fs = std::filesystem;
using Lines = std::vector<std::string>;

// Every problem parse_spec reports for `yaml`, read as "p.yaml".
Lines errors_of(const std::string& yaml, const std::string& path = "p.yaml") {
  std::vector<SpecError> errors;
  Result<PipelineSpec> spec = parse_spec(yaml, path, &errors, provider_names());
  Lines out;
  for (const SpecError& e : errors) out.push_back(e.text);
  if (spec.ok()) {
    EXPECT_TRUE(out.empty());
  } else {
    EXPECT_EQ(spec.error().code, ErrorCode::kInvalid);
    EXPECT_FALSE(out.empty());
    if (!out.empty()) {
      EXPECT_EQ(spec.error().message, out.front());
    }
  }
  return out;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The 1-based line of the first line containing `needle`.
int line_of(const std::string& text, const std::string& needle) {
  size_t at = text.find(needle);
  return at == std::string::npos
             ? 0
             : 1 + static_cast<int>(std::count(text.begin(), text.begin() + at, '\n'));
}

std::string example_path() { return std::string(BURST_SOURCE_DIR) + "/examples/tts-render.yaml"; }

// The values of examples/tts-render.yaml, whose text is `text`.
void expect_example_values(const PipelineSpec& spec, const std::string& text) {
  EXPECT_EQ(spec.version, 1);
  EXPECT_EQ(spec.name, "tts-render");
  EXPECT_EQ(spec.workload.kind, "diffusion");
  EXPECT_EQ(spec.workload.params_b, 0.5);
  EXPECT_EQ(spec.workload.precision, "bf16");
  EXPECT_EQ(spec.workload.items, 300);
  EXPECT_EQ(spec.workload.architecture, "flow-tts");
  EXPECT_EQ(spec.workload.audio_seconds, 40);
  EXPECT_EQ(spec.workload.steps, 32);
  EXPECT_EQ(spec.workload.guidance, 2);
  EXPECT_EQ(spec.workload.batch, 8);
  EXPECT_FALSE(spec.workload.concurrency.has_value());
  ASSERT_TRUE(spec.workload.reference.has_value());
  EXPECT_EQ(spec.workload.reference->gpu, "local");
  EXPECT_EQ(spec.workload.reference->runtime_seconds, 20);
  EXPECT_EQ(spec.workload.reference->bound, "bandwidth");
  EXPECT_EQ(spec.resources.providers, Lines{"local"});
  EXPECT_EQ(spec.resources.gpus, (Lines{"RTX_4090", "RTX_5090", "L4", "A10G", "A10"}));
  EXPECT_EQ(spec.resources.gpu_count, 1);
  EXPECT_EQ(spec.resources.min_vram_gb, 16);
  EXPECT_EQ(spec.resources.max_usd_per_hour, 1.5);
  EXPECT_FALSE(spec.resources.spot);
  EXPECT_EQ(spec.volume.name, "tts-cache");
  EXPECT_EQ(spec.volume.size_gb, 50);
  EXPECT_EQ(spec.volume.mount, "/workspace");
  EXPECT_EQ(spec.image, "python:3.11-slim");
  EXPECT_EQ(spec.env,
            (std::map<std::string, std::string>{{"TTS_SAMPLE_RATE", "16000"}, {"TTS_STEPS", "8"}}));
  ASSERT_EQ(spec.secrets.size(), 1u);
  EXPECT_EQ(spec.secrets[0].name, "HF_TOKEN");
  EXPECT_TRUE(spec.secrets[0].optional);
  EXPECT_EQ(spec.secrets[0].pos.line, line_of(text, "{name: HF_TOKEN"));
  EXPECT_EQ(spec.code.exclude, (Lines{"out/", "*.pyc"}));
  EXPECT_TRUE(spec.code.gitignore);
  EXPECT_EQ(spec.code.remote_dir, "$BURST_VOLUME/tts-render");
  EXPECT_EQ(spec.setup, "python3 --version\npython3 render.py --check\n");
  EXPECT_EQ(spec.run, "python3 render.py --questions questions.txt --out out\n");
  ASSERT_EQ(spec.artefacts.size(), 2u);
  EXPECT_EQ(spec.artefacts[0].remote, "out/render.wav");
  EXPECT_EQ(spec.artefacts[0].local, spec.dir + "/tts-output");
  EXPECT_EQ(spec.artefacts[1].remote, "out/manifest.json");
  EXPECT_EQ(spec.artefacts[1].pos.line, line_of(text, "remote: out/manifest.json"));
  EXPECT_EQ(spec.artefacts[1].pos.column, 5);
  EXPECT_TRUE(spec.pull_on_failure);
  ASSERT_TRUE(spec.upload.has_value());
  EXPECT_EQ(spec.upload->image, "python:3.11-slim");
  EXPECT_EQ(spec.upload->run, "python3 upload.py --from out --to \"$BURST_VOLUME/published\"\n");
  EXPECT_EQ(spec.budget.max_usd, 5.0);
  EXPECT_EQ(spec.budget.max_runtime_seconds, 2700);
  ASSERT_TRUE(spec.schedule.has_value());
  EXPECT_EQ(spec.schedule->cron, "0 3 * * *");
  EXPECT_EQ(spec.schedule->timezone, "UTC");
  EXPECT_EQ(spec.schedule->missed, "run-once");
  EXPECT_FALSE(spec.schedule->overlap);
}

TEST(SpecParser, ExampleFileParses) {
  std::string examples = std::string(BURST_SOURCE_DIR) + "/examples";
  if (!fs::is_directory(examples + "/tts-render")) GTEST_SKIP() << "examples/tts-render missing";
  std::vector<SpecError> errors;
  Result<PipelineSpec> spec =
      load_spec_file(examples + "/tts-render.yaml", &errors, provider_names());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(spec->path, examples + "/tts-render.yaml");
  EXPECT_EQ(fs::path(spec->dir), fs::path(examples).lexically_normal());
  EXPECT_TRUE(fs::path(spec->code.dir).is_absolute());
  EXPECT_TRUE(spec->code.dir.ends_with("examples/tts-render")) << spec->code.dir;
  expect_example_values(*spec, read_text(example_path()));
}

// The same text beside a code dir of our own, so it runs whatever the tree holds.
TEST(SpecParser, ExampleTextResolvesDirsAgainstTheSpecFile) {
  TempDir tmp;
  fs::create_directory(tmp.path() + "/tts-render");
  std::string text = read_text(example_path());
  ASSERT_FALSE(text.empty());
  std::string path = tmp.path() + "/tts-render.yaml";
  std::ofstream(path) << text;
  Result<PipelineSpec> spec = load_spec_file(path, nullptr, provider_names());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->dir, tmp.path());
  EXPECT_EQ(spec->code.dir, tmp.path() + "/tts-render");
  EXPECT_EQ(spec->artefacts[0].local, tmp.path() + "/tts-output");
  expect_example_values(*spec, text);
}

TEST(SpecParser, MinimalSpecGetsDefaults) {
  Result<PipelineSpec> spec =
      parse_spec("name: x\nrun: echo hi\n", "p.yaml", nullptr, provider_names());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->path, "p.yaml");
  EXPECT_EQ(spec->dir, fs::current_path().string());
  EXPECT_EQ(spec->version, 1);
  EXPECT_EQ(spec->name, "x");
  EXPECT_EQ(spec->run, "echo hi");
  EXPECT_EQ(spec->setup, "");
  EXPECT_EQ(spec->workload.kind, "");
  EXPECT_FALSE(spec->workload.reference.has_value());
  EXPECT_TRUE(spec->resources.providers.empty());
  EXPECT_TRUE(spec->resources.gpus.empty());
  EXPECT_EQ(spec->resources.gpu_count, 1);
  EXPECT_FALSE(spec->resources.min_vram_gb.has_value());
  EXPECT_FALSE(spec->resources.max_usd_per_hour.has_value());
  EXPECT_FALSE(spec->resources.spot);
  EXPECT_EQ(spec->volume.name, "x");
  EXPECT_EQ(spec->volume.size_gb, 50);
  EXPECT_EQ(spec->volume.mount, "/workspace");
  EXPECT_EQ(spec->image, "ubuntu:22.04");
  EXPECT_TRUE(spec->env.empty());
  EXPECT_TRUE(spec->secrets.empty());
  EXPECT_EQ(spec->code.dir, "");
  EXPECT_EQ(spec->code.remote_dir, "$BURST_VOLUME/x");
  EXPECT_TRUE(spec->code.gitignore);
  EXPECT_TRUE(spec->artefacts.empty());
  EXPECT_TRUE(spec->pull_on_failure);
  EXPECT_FALSE(spec->upload.has_value());
  EXPECT_FALSE(spec->budget.max_usd.has_value());
  EXPECT_FALSE(spec->budget.max_runtime_seconds.has_value());
  EXPECT_FALSE(spec->schedule.has_value());
}

TEST(SpecParser, AcceptsAlternativeForms) {
  TempDir tmp;
  std::string path = tmp.path() + "/sub/../p.yaml";
  Result<PipelineSpec> spec = parse_spec(R"(name: alt-1
image: debian:12
env: {N: 16000, B: true, EMPTY: }
secrets: [API_KEY, {name: OTHER}]
setup: [apt-get update, apt-get install -y curl]
run: [./a.sh, ./b.sh]
artefacts:
  - {remote: "$BURST_VOLUME/cache/*.bin", local: /abs/out/}
  - {remote: "out/**/*.wav", local: out}
upload: {run: ./up.sh}
budget: {max_runtime: 1h30m}
workload: {kind: custom, reference: {gpu: H100, runtime: 90}}
schedule: {cron: "@daily"}
)",
                                         path, nullptr, provider_names());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->dir, tmp.path());
  EXPECT_EQ(spec->env,
            (std::map<std::string, std::string>{{"N", "16000"}, {"B", "true"}, {"EMPTY", ""}}));
  ASSERT_EQ(spec->secrets.size(), 2u);
  EXPECT_EQ(spec->secrets[0].name, "API_KEY");
  EXPECT_FALSE(spec->secrets[0].optional);
  EXPECT_EQ(spec->secrets[1].name, "OTHER");
  EXPECT_EQ(spec->setup, "apt-get update\napt-get install -y curl");
  EXPECT_EQ(spec->run, "./a.sh\n./b.sh");
  EXPECT_EQ(spec->artefacts[0].local, "/abs/out");
  EXPECT_EQ(spec->artefacts[1].local, tmp.path() + "/out");
  EXPECT_EQ(spec->upload->image, "debian:12");
  EXPECT_EQ(spec->budget.max_runtime_seconds, 5400);
  EXPECT_EQ(spec->workload.reference->runtime_seconds, 90);
  EXPECT_EQ(spec->schedule->cron, "@daily");
}

TEST(SpecParser, ReadsYamlNumbers) {
  Result<PipelineSpec> spec = parse_spec(
      "name: x\nrun: a\nresources: {min_vram_gb: 1e1, max_usd_per_hour: .5, gpu_count: 0x2}\n"
      "workload: {kind: custom, params_b: +7}\n",
      "p.yaml", nullptr, provider_names());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->resources.min_vram_gb, 10);
  EXPECT_EQ(spec->resources.max_usd_per_hour, 0.5);
  EXPECT_EQ(spec->resources.gpu_count, 2);
  EXPECT_EQ(spec->workload.params_b, 7);
  EXPECT_EQ(errors_of("name: x\nrun: a\nbudget: {max_usd: .inf}\n"),
            Lines{"p.yaml:3:19: budget.max_usd: expected a number, got \".inf\""});
}

TEST(SpecParser, ReadsWorkersAndTheItemsFile) {
  Result<PipelineSpec> spec = parse_spec(
      "name: x\nrun: a\nresources: {max_workers: 4, worker_retries: 0, merge: flat}\n"
      "workload: {kind: custom, items_file: data/prompts.txt}\n",
      "p.yaml", nullptr, provider_names());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->resources.max_workers, 4);
  EXPECT_EQ(spec->resources.worker_retries, 0);
  EXPECT_TRUE(spec->resources.merge_flat);
  EXPECT_EQ(spec->workload.items_file, "data/prompts.txt");
  EXPECT_EQ(spec->workload.items_file_pos.line, 4);
  Result<PipelineSpec> plain = parse_spec("name: x\nrun: a\n", "p.yaml", nullptr, provider_names());
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->resources.max_workers.has_value()) << "the plan chooses";
  EXPECT_EQ(plain->resources.worker_retries, 1);
  EXPECT_FALSE(plain->resources.merge_flat) << "per-worker subdirectories by default";
  EXPECT_EQ(plain->workload.items_file, "");
}

TEST(SpecParser, ReadsAFixedWidthAndRefusesItWithMaxWorkers) {
  Result<PipelineSpec> spec =
      parse_spec("name: x\nrun: a\nresources: {workers: 2}\n", "p.yaml", nullptr, provider_names());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->resources.workers, 2);
  EXPECT_FALSE(spec->resources.max_workers.has_value());
  EXPECT_EQ(errors_of("name: x\nrun: a\nresources: {max_workers: 4, workers: 2}\n"),
            Lines{"p.yaml:3:38: resources.workers: give workers (a fixed width) or max_workers "
                  "(the plan's choice up to it), not both"});
}

// resources.disk_gb: the pod's own disk (issue 34), 1..65536 GB, with file, line and column.
TEST(SpecParser, ReadsThePodsOwnDisk) {
  Result<PipelineSpec> spec = parse_spec("name: x\nrun: a\nresources: {disk_gb: 200}\n", "p.yaml",
                                         nullptr, provider_names());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->resources.disk_gb, 200);
  EXPECT_EQ(spec->volume.size_gb, 50) << "the kept volume is another thing";
  EXPECT_EQ(errors_of("name: x\nrun: a\nresources:\n  disk_gb: 0\n"),
            Lines{"p.yaml:4:12: resources.disk_gb: must be at least 1, got 0"});
}

TEST(SpecErrors, WorkersAndItemsFile) {
  EXPECT_EQ(errors_of("name: x\nrun: a\nresources:\n  max_workers: 0\n  worker_retries: 11\n"
                      "workload:\n  kind: custom\n  items_file: ../x.txt\n"),
            (Lines{"p.yaml:4:16: resources.max_workers: must be at least 1, got 0",
                   "p.yaml:5:19: resources.worker_retries: must be at most 10, got 11",
                   "p.yaml:8:15: workload.items_file: must be a path relative to code.dir without "
                   "\"..\", got \"../x.txt\""}));
  EXPECT_EQ(errors_of("name: x\nrun: a\nworkload: {kind: custom, items_file: /etc/x}\n"),
            Lines{"p.yaml:3:38: workload.items_file: must be a path relative to code.dir without "
                  "\"..\", got \"/etc/x\""});
}

TEST(SpecDuration, ParsesUnitsAndRejectsTheRest) {
  EXPECT_EQ(parse_duration("45s"), 45);
  EXPECT_EQ(parse_duration("30m"), 1800);
  EXPECT_EQ(parse_duration("1h30m"), 5400);
  EXPECT_EQ(parse_duration("1.5h"), 5400);
  EXPECT_EQ(parse_duration("2d"), 172800);
  EXPECT_EQ(parse_duration("0s"), 0);
  for (const char* bad : {"", "90", "soon", "1x", "h", "1.h", "-5s", "1h 30m", "1hh"}) {
    EXPECT_FALSE(parse_duration(bad).has_value()) << bad;
  }
}

TEST(SpecChecks, SuggestsCloseFields) {
  constexpr std::string_view kKnown[] = {"providers", "gpus", "gpu_count", "max_usd_per_hour"};
  EXPECT_EQ(spec::suggest_field("gpu", kKnown), "gpus");
  EXPECT_EQ(spec::suggest_field("provider", kKnown), "providers");
  EXPECT_EQ(spec::suggest_field("max_usd", kKnown), "max_usd_per_hour");
  EXPECT_EQ(spec::suggest_field("colour", kKnown), std::nullopt);
  EXPECT_EQ(spec::suggest_field("x", kKnown), std::nullopt);
}

// --- One malformed spec per kind of problem, each with its exact text. ---

TEST(SpecErrors, NumberGotWord) {
  EXPECT_EQ(errors_of("name: x\nresources:\n  max_usd_per_hour: cheap\nrun: echo hi\n"),
            Lines{"p.yaml:3:21: resources.max_usd_per_hour: expected a number, got \"cheap\""});
}

TEST(SpecErrors, StringGotListOrMapping) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nimage: [a, b]\nworkload:\n  kind: {a: 1}\n"),
            (Lines{"p.yaml:3:8: image: expected a string, got a list",
                   "p.yaml:5:9: workload.kind: expected a string, got a mapping"}));
}

TEST(SpecErrors, BoolGotWords) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nresources:\n  spot: yes please\n"),
            Lines{"p.yaml:4:9: resources.spot: expected true or false, got \"yes please\""});
}

TEST(SpecErrors, MappingGotStringOrList) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nresources: lots\nbudget: [1]\n"),
            (Lines{"p.yaml:3:12: resources: expected a mapping, got a string",
                   "p.yaml:4:9: budget: expected a mapping, got a list"}));
}

TEST(SpecErrors, ListGotString) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nresources:\n  gpus: A100\n"),
            Lines{"p.yaml:4:9: resources.gpus: expected a list, got a string"});
}

TEST(SpecErrors, IntegerGotFloatOrQuoted) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nresources:\n  gpu_count: 1.5\nvolume:\n"
                      "  size_gb: \"50\"\n"),
            (Lines{"p.yaml:4:14: resources.gpu_count: expected an integer, got \"1.5\"",
                   "p.yaml:6:12: volume.size_gb: expected an integer, got \"50\""}));
}

TEST(SpecErrors, UnknownFieldWithSuggestion) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nresources:\n  gpu: [A100]\nartifacts: []\n"),
            (Lines{"p.yaml:4:3: resources.gpu: unknown field (did you mean \"gpus\"?)",
                   "p.yaml:5:1: artifacts: unknown field (did you mean \"artefacts\"?)"}));
}

TEST(SpecErrors, UnknownFieldWithoutSuggestion) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\ncolour: blue\n"),
            Lines{"p.yaml:3:1: colour: unknown field"});
}

TEST(SpecErrors, DuplicateField) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nenv:\n  A: 1\n  A: 2\nname: y\n"),
            (Lines{"p.yaml:5:3: env.A: duplicate field", "p.yaml:6:1: name: duplicate field"}));
}

TEST(SpecErrors, MissingRequiredAtTopLevel) {
  EXPECT_EQ(errors_of("# a comment first\nname: x\n"),
            Lines{"p.yaml:1:1: run: required field is missing"});
  EXPECT_EQ(errors_of("name: x\nrun:\n"), Lines{"p.yaml:2:1: run: required field is missing"});
}

TEST(SpecErrors, MissingRequiredNested) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nworkload:\n  params_b: 1\n  reference: {gpu: A10}\n"),
            (Lines{"p.yaml:4:3: workload.kind: required field is missing",
                   "p.yaml:5:14: workload.reference.runtime: required field is missing"}));
}

TEST(SpecErrors, EnumValues) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nworkload:\n  kind: difusion\n  precision: fp64\n"
                      "resources:\n  providers: [local, aws]\n"),
            (Lines{"p.yaml:4:9: workload.kind: must be one of diffusion, llm-inference, "
                   "llm-training, custom; got \"difusion\"",
                   "p.yaml:5:14: workload.precision: must be one of fp32, fp16, bf16, fp8, int8, "
                   "int4, q8_0, q4_k_m, q4_0; got \"fp64\"",
                   "p.yaml:7:22: resources.providers[1]: must be one of local, runpod, "
                   "lambda, vast, ssh; got \"aws\""}));
}

TEST(SpecErrors, Ranges) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nresources:\n  gpu_count: 0\n  min_vram_gb: -2\n"),
            (Lines{"p.yaml:4:14: resources.gpu_count: must be at least 1, got 0",
                   "p.yaml:5:16: resources.min_vram_gb: must be greater than 0, got -2"}));
}

TEST(SpecErrors, BadNames) {
  const std::string rule =
      "must be lower-case letters, digits and '-', starting with a letter or digit, at most 63 "
      "characters; got ";
  EXPECT_EQ(errors_of("name: My Render\nrun: echo hi\nvolume: {name: -cache}\n"),
            (Lines{"p.yaml:1:7: name: " + rule + "\"My Render\"",
                   "p.yaml:3:16: volume.name: " + rule + "\"-cache\""}));
}

TEST(SpecErrors, BadDurations) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nbudget:\n  max_runtime: soon\n"
                      "workload: {kind: custom, reference: {gpu: A10, runtime: 0s}}\n"),
            (Lines{"p.yaml:4:16: budget.max_runtime: expected a duration like \"90s\", \"30m\" or "
                   "\"2h\", got \"soon\"",
                   "p.yaml:5:57: workload.reference.runtime: must be greater than 0, got 0s"}));
}

TEST(SpecErrors, BadArtefactPaths) {
  const std::string rule = "must be relative to the code dir or start with $BURST_VOLUME/, got ";
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nartefacts:\n  - {remote: out/a.wav, local: o}\n"
                      "  - {remote: /etc/passwd, local: o}\n  - {remote: out/../../x, local: o}\n"
                      "  - {local: o}\n"),
            (Lines{"p.yaml:5:14: artefacts[1].remote: " + rule + "\"/etc/passwd\"",
                   "p.yaml:6:14: artefacts[2].remote: " + rule + "\"out/../../x\"",
                   "p.yaml:7:5: artefacts[3].remote: required field is missing"}));
}

TEST(SpecErrors, EnvNames) {
  EXPECT_EQ(
      errors_of("name: x\nrun: echo hi\nenv:\n  BURST_VOLUME: /x\n  1BAD: y\n"),
      (Lines{"p.yaml:4:3: env.BURST_VOLUME: names starting with BURST_ are reserved for burst",
             "p.yaml:5:3: env.1BAD: not a valid environment variable name"}));
}

TEST(SpecErrors, Secrets) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nenv: {HF_TOKEN: abc}\nsecrets:\n  - HF_TOKEN\n"
                      "  - {name: BURST_KEY}\n  - [A]\n"),
            (Lines{"p.yaml:5:5: secrets[0]: HF_TOKEN is also set in env; a secret's value comes "
                   "only from your environment",
                   "p.yaml:6:12: secrets[1].name: names starting with BURST_ are reserved for "
                   "burst",
                   "p.yaml:7:5: secrets[2]: expected a string or a mapping, got a list"}));
}

TEST(SpecErrors, CronFieldCount) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nschedule:\n  cron: \"0 3 *\"\n"),
            Lines{"p.yaml:4:9: schedule.cron: expected 5 fields (minute hour day-of-month month "
                  "day-of-week) or @hourly/@daily/@weekly/@monthly/@yearly, got 3 fields"});
}

// A bad field is reported at its own column: past the opening quote, or in a plain value.
TEST(SpecErrors, CronFieldColumn) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nschedule:\n  cron: \"0 25 * * *\"\n"),
            Lines{"p.yaml:4:12: schedule.cron: hour: 25 is out of range 0-23"});
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nschedule:\n  cron: '0 0 * * MOND'\n"),
            Lines{"p.yaml:4:18: schedule.cron: day-of-week: unknown name \"MOND\" (use SUN-SAT "
                  "or 0-7)"});
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nschedule: {cron: 0 0 31 2 1-99}\n"),
            Lines{"p.yaml:3:29: schedule.cron: day-of-week: 99 is out of range 0-7 (0 and 7 are "
                  "Sunday)"});
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nschedule:\n  cron: \"@reboot\"\n"),
            Lines{"p.yaml:4:9: schedule.cron: @reboot runs a job when cron starts, which is not a "
                  "schedule; use five fields or @hourly, @daily, @weekly, @monthly or @yearly"});
}

TEST(SpecErrors, ScheduleFields) {
  std::string zone_hint = fs::exists("/usr/share/zoneinfo")
                              ? "expected an IANA name such as Europe/London"
                              : "no time zone database at /usr/share/zoneinfo; install "
                                "tzdata";
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nschedule:\n  cron: \"@daily\"\n"
                      "  timezone: Mars/Olympus\n  missed: never\n  overlap: sometimes\n"),
            (Lines{"p.yaml:5:13: schedule.timezone: unknown time zone \"Mars/Olympus\" (" +
                       zone_hint + ")",
                   "p.yaml:6:11: schedule.missed: must be one of skip, run-once; got \"never\"",
                   "p.yaml:7:12: schedule.overlap: expected true or false, got \"sometimes\""}));
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nschedule:\n  cron: \"@daily\"\n"
                      "  timezone: ../../etc/passwd\n"),
            Lines{"p.yaml:5:13: schedule.timezone: not a time zone name: \"../../etc/passwd\""});
}

TEST(SpecParser, ScheduleOptions) {
  if (!fs::exists("/usr/share/zoneinfo/Europe/London")) {
    GTEST_SKIP() << "no tzdata in /usr/share/zoneinfo (scripts/setup installs it)";
  }
  Result<PipelineSpec> spec = parse_spec(
      "name: x\nrun: a\nschedule:\n  cron: \"*/15 9-17 * * MON-FRI\"\n"
      "  timezone: Europe/London\n  missed: skip\n  overlap: true\n",
      "p.yaml", nullptr, provider_names());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->schedule->cron, "*/15 9-17 * * MON-FRI");
  EXPECT_EQ(spec->schedule->timezone, "Europe/London");
  EXPECT_EQ(spec->schedule->missed, "skip");
  EXPECT_TRUE(spec->schedule->overlap);
  EXPECT_EQ(spec->schedule->pos.line, 4);
}

TEST(SpecErrors, YamlSyntaxError) {
  // libyaml's words, and where the unclosed list starts.
  EXPECT_EQ(errors_of("name: x\nrun: [echo hi\nimage: y\n"),
            Lines{"p.yaml:3:6: YAML syntax error: did not find expected ',' or ']' (while parsing "
                  "a flow sequence at 2:6)"});
}

TEST(SpecErrors, TopLevelNotAMapping) {
  EXPECT_EQ(errors_of("- name: x\n- run: echo hi\n"),
            Lines{"p.yaml:1:1: (top level): expected a mapping, got a list"});
}

TEST(SpecErrors, EmptyFile) {
  EXPECT_EQ(errors_of(""), Lines{"p.yaml:1:1: (top level): the file is empty"});
  EXPECT_EQ(errors_of("# nothing yet\n"), Lines{"p.yaml:1:1: (top level): the file is empty"});
}

TEST(SpecErrors, CodeDirNotFound) {
  TempDir tmp;
  std::string path = tmp.path() + "/p.yaml";
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\ncode:\n  dir: ./nope\n", path),
            Lines{path + ":4:8: code.dir: directory not found: " + tmp.path() + "/nope"});
}

TEST(SpecErrors, CodeAddNeedsAnExistingSourceAndAPlaceTheCodeDirDoesNotHave) {
  TempDir tmp;
  fs::create_directories(tmp.path() + "/code/src");
  std::ofstream(tmp.path() + "/secret") << "s";
  const std::string path = tmp.path() + "/p.yaml";
  const std::string head = "name: x\nrun: echo hi\ncode:\n  dir: ./code\n  add:\n";
  EXPECT_EQ(errors_of(head + "    - {from: ./nope, to: a}\n", path),
            Lines{path + ":6:14: code.add[0].from: not found: " + tmp.path() + "/nope"});
  EXPECT_EQ(errors_of(head + "    - {from: ./secret, to: ../a}\n", path),
            Lines{path + ":6:28: code.add[0].to: must be a path relative to the code dir, "
                         "without \"..\" or .git; got \"../a\""});
  EXPECT_EQ(errors_of(head + "    - {from: ./secret, to: src/secret}\n", path),
            Lines{path + ":6:28: code.add[0].to: \"src\" is already in code.dir; give a path "
                         "whose first part code.dir does not have (e.g. .burst-add/secret)"});
  std::vector<SpecError> errors;
  Result<PipelineSpec> spec = parse_spec(head + "    - {from: ./secret, to: .burst-add/s}\n", path,
                                         &errors, provider_names());
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? "" : errors.front().text);
  ASSERT_EQ(spec->code.add.size(), 1u);
  EXPECT_EQ(spec->code.add[0].from, tmp.path() + "/secret");
  EXPECT_EQ(spec->code.add[0].to, ".burst-add/s");
}

TEST(SpecErrors, UnsupportedVersion) {
  EXPECT_EQ(errors_of("version: 2\nname: x\nrun: echo hi\n"),
            Lines{"p.yaml:1:10: version: unsupported version 2 (this burst reads version 1)"});
}

TEST(SpecErrors, MountMustBeAbsoluteAndRunNotBlank) {
  EXPECT_EQ(errors_of("name: x\nrun: \"  \"\nvolume:\n  mount: workspace\nupload: {image: a}\n"),
            (Lines{"p.yaml:2:6: run: must not be blank",
                   "p.yaml:4:10: volume.mount: must be an absolute path, got \"workspace\"",
                   "p.yaml:5:9: upload.run: required field is missing"}));
}

TEST(SpecPrepare, ReadsTheStepAndWhatItCreates) {
  std::vector<SpecError> errors;
  Result<PipelineSpec> spec = parse_spec(R"(name: x
image: debian:12
run: ./render.sh
prepare:
  run: [mkdir -p "$BURST_VOLUME/models", ./fetch.sh]
  creates: [models/weights.bin, models/config.json]
  download_gb: 14
)",
                                         "p.yaml", &errors, provider_names());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  ASSERT_TRUE(spec->prepare.has_value());
  EXPECT_EQ(spec->prepare->run, "mkdir -p \"$BURST_VOLUME/models\"\n./fetch.sh");
  EXPECT_EQ(spec->prepare->creates, (Lines{"models/weights.bin", "models/config.json"}));
  EXPECT_EQ(spec->prepare->download_gb, 14);
  EXPECT_EQ(spec->prepare->image, "debian:12");  // the spec's image unless it names one
  EXPECT_EQ(spec->prepare->pos.line, 5);
}

TEST(SpecErrors, PrepareNeedsRunAndCreatesStaysOnTheVolume) {
  EXPECT_EQ(errors_of("name: x\nrun: a\nprepare: {creates: [ok, /etc/x, a/../../b, 3]}\n"),
            (Lines{"p.yaml:3:10: prepare.run: required field is missing",
                   "p.yaml:3:25: prepare.creates[1]: must be a path relative to the volume, "
                   "without \"..\"; got \"/etc/x\"",
                   "p.yaml:3:33: prepare.creates[2]: must be a path relative to the volume, "
                   "without \"..\"; got \"a/../../b\""}));
  EXPECT_EQ(errors_of("name: x\nrun: a\nprepare: {run: b, creates: x, downloads: 1}\n"),
            (Lines{"p.yaml:3:28: prepare.creates: expected a list, got a string",
                   "p.yaml:3:31: prepare.downloads: unknown field"}));
}

TEST(SpecErrors, UnreadableFile) {
  TempDir tmp;
  std::string path = tmp.path() + "/missing.yaml";
  std::vector<SpecError> errors;
  Result<PipelineSpec> spec = load_spec_file(path, &errors, provider_names());
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().message, path + ": cannot read file: No such file or directory");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].text, spec.error().message);
}

TEST(SpecErrors, ReportsEveryProblemInFileOrder) {
  EXPECT_EQ(errors_of("budget: {max_usd: 0}\nname: x\nresources:\n  gpus: [A100]\n"
                      "  spot: maybe\n"),
            (Lines{"p.yaml:1:1: run: required field is missing",
                   "p.yaml:1:19: budget.max_usd: must be greater than 0, got 0",
                   "p.yaml:5:9: resources.spot: expected true or false, got \"maybe\""}));
}

TEST(SpecParser, ReadsCostModelFields) {
  std::vector<SpecError> errors;
  Result<PipelineSpec> spec = parse_spec(
      "name: x\nrun: echo hi\nworkload:\n  kind: llm-training\n  mode: qlora\n  layers: 32\n"
      "  hidden: 4096\n  heads: 32\n  kv_heads: 8\nbudget: {deadline: 6h}\n",
      "p.yaml", &errors, provider_names());
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->workload.mode, "qlora");
  EXPECT_EQ(spec->workload.layers, 32);
  EXPECT_EQ(spec->workload.hidden, 4096);
  EXPECT_EQ(spec->workload.heads, 32);
  EXPECT_EQ(spec->workload.kv_heads, 8);
  EXPECT_EQ(spec->budget.deadline_seconds, 6 * 3600);
  Result<PipelineSpec> bare =
      parse_spec("name: x\nrun: echo hi\n", "p.yaml", &errors, provider_names());
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->workload.mode, "");
  EXPECT_FALSE(bare->workload.layers.has_value());
  EXPECT_FALSE(bare->budget.deadline_seconds.has_value());
}

TEST(SpecParser, ReadsModelShapeAndMemoryFields) {
  std::vector<SpecError> errors;
  Result<PipelineSpec> spec = parse_spec(
      "name: x\nrun: echo hi\nworkload:\n  kind: llm-training\n  mode: lora\n"
      "  model: llama-3-8b\n  lora_rank: 64\n  gradient_checkpointing: false\n"
      "  active_params_b: 12.9\n  head_dim: 128\n  vocab: 128256\n  intermediate: 14336\n"
      "  tied_embeddings: true\n",
      "p.yaml", &errors, provider_names());
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0].text);
  const Workload& w = spec->workload;
  EXPECT_EQ(w.model, "llama-3-8b");
  EXPECT_EQ(w.lora_rank, 64);
  EXPECT_EQ(w.gradient_checkpointing, false);
  EXPECT_EQ(w.active_params_b, 12.9);
  EXPECT_EQ(w.head_dim, 128);
  EXPECT_EQ(w.vocab, 128256);
  EXPECT_EQ(w.intermediate, 14336);
  EXPECT_EQ(w.tied_embeddings, true);
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nworkload:\n  kind: llm-inference\n"
                      "  kv_precision: int3\n"),
            (Lines{"p.yaml:5:17: workload.kv_precision: must be one of fp16, bf16, fp8; got "
                   "\"int3\""}));
}

TEST(SpecErrors, WeightsFromValues) {
  // Where the weights come from (docs/pipeline-spec.md): one of four; anything else is refused
  // at its file, line and column.
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nworkload:\n  kind: llm-inference\n"
                      "  params_b: 8\n  weights_from: nfs\n"),
            (Lines{"p.yaml:6:17: workload.weights_from: must be one of hub, s3, volume, "
                   "local-disk; got \"nfs\""}));
  std::vector<SpecError> errors;
  Result<PipelineSpec> spec = parse_spec(
      "name: x\nrun: echo hi\nworkload:\n  kind: llm-inference\n  params_b: 8\n"
      "  weights_from: local-disk\n",
      "p.yaml", &errors, provider_names());
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0].text);
  EXPECT_EQ(spec->workload.weights_from, "local-disk");
}

TEST(SpecErrors, TrainingModeValues) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nworkload: {kind: llm-training, mode: dora}\n"),
            (Lines{"p.yaml:3:38: workload.mode: must be one of full, lora, qlora; got \"dora\""}));
}

TEST(SpecErrors, ModeOnlyForTraining) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nworkload:\n  kind: llm-inference\n  mode: lora\n"),
            (Lines{"p.yaml:5:9: workload.mode: only applies to workload kind llm-training"}));
}

TEST(SpecErrors, ModelShapeIntegers) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nworkload:\n  kind: llm-training\n  layers: 0\n"
                      "  hidden: 4096.5\n  heads: many\n  kv_heads: -1\n"),
            (Lines{"p.yaml:5:11: workload.layers: must be at least 1, got 0",
                   "p.yaml:6:11: workload.hidden: expected an integer, got \"4096.5\"",
                   "p.yaml:7:10: workload.heads: expected an integer, got \"many\"",
                   "p.yaml:8:13: workload.kv_heads: must be at least 1, got -1"}));
}

TEST(SpecErrors, BadDeadline) {
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nbudget:\n  deadline: tomorrow\n  deadlin: 2h\n"),
            (Lines{"p.yaml:4:13: budget.deadline: expected a duration like \"90s\", \"30m\" or "
                   "\"2h\", got \"tomorrow\"",
                   "p.yaml:5:3: budget.deadlin: unknown field (did you mean \"deadline\"?)"}));
  EXPECT_EQ(errors_of("name: x\nrun: echo hi\nbudget: {deadline: 0}\n"),
            (Lines{"p.yaml:3:20: budget.deadline: must be greater than 0, got 0"}));
}

}  // namespace
}  // namespace burst
