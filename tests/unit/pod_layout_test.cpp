// Issue 33: every GPU the plan prices does the work it priced. For every candidate shape the
// planner can choose, the layout it prices (plan/pod_layout.h) is one the run executes (N GPUs
// rented, N / group replicas of the run step, or one program on all of them), and `burst plan`'s
// table (the candidate's basis and LAYOUT cell) and its plan block (plan_summary_lines, also
// printed by `burst run`) say the same count and layout.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "burst/gpu_catalog.h"
#include "fakes/temp_dir.h"
#include "job/replica_step.h"
#include "plan/plan_summary.h"
#include "plan/planner.h"
#include "registry.h"
#include "spec/spec_checks.h"

namespace burst {
namespace {

std::string tts_example_text() {
  std::ifstream f(std::string(BURST_SOURCE_DIR) + "/examples/tts-render.yaml");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

class PodLayoutPlan : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cat = load_gpu_catalog(dir_.path());
    auto table = load_price_table(dir_.path(), offline_price_provider_names());
    ASSERT_TRUE(cat.ok() && table.ok());
    catalog_ = *cat;
    for (const PriceEntry& e : table->entries) {
      const GpuSpec* g = find_gpu(catalog_, e.gpu);
      if (!g) continue;
      offers_.push_back(Offer{e.provider, e.gpu, e.gpu_count, g->vram_gb, e.usd_per_hour,
                              e.spot_usd_per_hour, e.region, true, "offline table"});
    }
    attach_traits(&offers_);
  }
  PipelineSpec example() {
    std::filesystem::create_directory(dir_.path() + "/tts-render");
    dir_.write("tts-render.yaml", tts_example_text());
    std::vector<SpecError> errors;
    auto spec = load_spec_file(dir_.path() + "/tts-render.yaml", &errors, provider_names());
    EXPECT_TRUE(spec.ok()) << (errors.empty() ? "" : errors[0].text);
    if (!spec.ok()) return PipelineSpec{};
    // The example's render.py renders every answer in one process (multi_gpu: program); a render
    // that reads its share of an items file takes the default, one replica per GPU.
    EXPECT_EQ(spec->resources.multi_gpu, "program");
    spec->resources.multi_gpu.clear();
    return *spec;
  }
  std::vector<Offer> of(const std::string& provider) const {
    std::vector<Offer> out;
    for (const Offer& o : offers_)
      if (o.provider == provider) out.push_back(o);
    return out;
  }
  Result<Plan> plan(const PipelineSpec& spec, std::vector<Offer> offers,
                    std::vector<std::string> providers) {
    PlanInput in;
    in.providers = std::move(providers);
    in.gpu_offers = std::move(offers);
    in.catalog = &catalog_;
    return make_plan(spec, in);
  }
  // The block's "GPU pod:" line.
  static std::string gpu_line(const PipelineSpec& spec, const Plan& p) {
    for (const std::string& l : plan_summary_lines(spec, p))
      if (l.find("GPU pod:") != std::string::npos) return l;
    return "";
  }
  // For every candidate that fits: planned alone, the block names its count and layout, and the
  // layout is the one the table's basis names. Returns how many had several GPUs.
  int expect_table_and_block_agree(const PipelineSpec& spec, const Plan& full) {
    int multi = 0;
    std::set<std::string> seen;
    for (const Candidate& c : full.candidates) {
      if (!c.rejected.empty() || !c.shape) continue;
      const std::string key =
          c.offer.provider + " " + c.offer.gpu_type + " x" + std::to_string(c.offer.gpu_count);
      if (!seen.insert(key).second) continue;
      auto alone = plan(spec, {c.offer}, {c.offer.provider});
      if (!alone.ok()) continue;  // over a cap on its own (the deadline, the budget)
      const PodLayout& l = alone->layout;
      EXPECT_EQ(l.gpus, std::max(1, c.offer.gpu_count)) << key;
      const std::string line = gpu_line(spec, *alone);
      EXPECT_NE(line.find(key + " at"), std::string::npos) << key << ": " << line;
      if (l.gpus > 1) {
        ++multi;
        EXPECT_NE(line.find(pod_layout_text(l)), std::string::npos) << key << ": " << line;
        EXPECT_NE(c.basis().find(pod_layout_text(l)), std::string::npos)
            << key << ": " << c.basis();
        EXPECT_EQ(pod_layout_cell(c.shape->layout), pod_layout_cell(l)) << key;
      }
    }
    return multi;
  }

  TempDir dir_;
  std::vector<GpuSpec> catalog_;
  std::vector<Offer> offers_;
};

TEST_F(PodLayoutPlan, VastPricesChooseA10x2AsTwoReplicasAndTheBlockSaysSo) {
  PipelineSpec spec = example();
  // The A10 alone: Vast's RTX 5090 x1 prices within a few percent of two A10s, and which of them
  // wins follows the cost model, not the layout this test is about.
  spec.resources.gpus = {"A10"};
  auto p = plan(spec, of("vast"), {"vast"});
  ASSERT_TRUE(p.ok()) << p.error().message;
  ASSERT_EQ(p->gpu.gpu_type, "A10");
  ASSERT_EQ(p->gpu.gpu_count, 2);
  EXPECT_EQ(p->layout.replicas, 2);
  EXPECT_EQ(p->layout.per_replica, 1);
  EXPECT_FALSE(p->layout.program);
  // The block `burst run` prints: the offer's count (it said x1, the spec's gpu_count) and the
  // two copies of the run step the run starts.
  EXPECT_NE(gpu_line(spec, *p).find("vast A10 x2 at"), std::string::npos) << gpu_line(spec, *p);
  EXPECT_NE(gpu_line(spec, *p).find("2 replicas, 1 GPU each"), std::string::npos);
  EXPECT_NE(p->estimate.basis.find("2 replicas, 1 GPU each"), std::string::npos)
      << p->estimate.basis;
}

TEST_F(PodLayoutPlan, ANamedTensorParallelSizeIsTheGroupEachReplicaOfTheRunStepGets) {
  // An 8B fits one H100, so the model alone would run four replicas of one card; the spec says
  // vLLM shards each copy over two, and the plan, the block and the run say two copies of two.
  dir_.write("tp.yaml",
             "name: tp\nrun: python serve.py\nworkload:\n  kind: llm-inference\n"
             "  model: llama-3-8b\n  engine: vllm\n  tensor_parallel: 2\n  items: 64\n"
             "  tokens: 256\nresources:\n  gpus: [H100_SXM]\n  gpu_count: 4\n");
  std::filesystem::create_directory(dir_.path() + "/tp");
  std::vector<SpecError> errors;
  auto spec = load_spec_file(dir_.path() + "/tp.yaml", &errors, provider_names());
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0].text);
  const GpuSpec* h100 = find_gpu(catalog_, "H100_SXM");
  ASSERT_TRUE(h100);
  Offer four{"runpod", "H100_SXM", 4, h100->vram_gb, 12.0, std::nullopt, "any", true, "test"};
  std::vector<Offer> offers{four};
  attach_traits(&offers);
  auto p = plan(*spec, offers, {"runpod"});
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->layout.per_replica, 2);
  EXPECT_EQ(p->layout.replicas, 2);
  EXPECT_NE(gpu_line(*spec, *p).find("2 replicas, 2 GPUs each"), std::string::npos)
      << gpu_line(*spec, *p);
  EXPECT_EQ(replica_devices(p->layout, 1), "2,3");
}

TEST_F(PodLayoutPlan, ANamedSequenceParallelSizeIsTheGroupEachReplicaOfTheRunStepGets) {
  // Wan 2.1 14B fits one H100, so the model alone would run eight one-card copies; the spec says
  // each clip's tokens are split over four, and the plan, the block and the run say two copies of
  // four.
  dir_.write("sp.yaml",
             "name: sp\nrun: torchrun --nproc_per_node=4 generate.py\nworkload:\n"
             "  kind: diffusion\n  model: wan2.1-t2v-14b\n  sequence_parallel: 4\n  items: 2\n"
             "resources:\n  gpus: [H100_SXM]\n  gpu_count: 8\n");
  std::filesystem::create_directory(dir_.path() + "/sp");
  std::vector<SpecError> errors;
  auto spec = load_spec_file(dir_.path() + "/sp.yaml", &errors, provider_names());
  ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0].text);
  const GpuSpec* h100 = find_gpu(catalog_, "H100_SXM");
  ASSERT_TRUE(h100);
  Offer eight{"runpod", "H100_SXM", 8, h100->vram_gb, 24.0, std::nullopt, "any", true, "test"};
  std::vector<Offer> offers{eight};
  attach_traits(&offers);
  auto p = plan(*spec, offers, {"runpod"});
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->layout.per_replica, 4);
  EXPECT_EQ(p->layout.replicas, 2);
  EXPECT_NE(gpu_line(*spec, *p).find("2 replicas, 4 GPUs each"), std::string::npos)
      << gpu_line(*spec, *p);
  ASSERT_FALSE(p->candidates.empty());
  EXPECT_NE(p->candidates[0].basis().find("4-way sequence parallel"), std::string::npos)
      << p->candidates[0].basis();
  EXPECT_EQ(replica_devices(p->layout, 1), "4,5,6,7");
}

TEST_F(PodLayoutPlan, GuidanceParallelIsNamedInTheBasisAndPricedBelowTheUlyssesSplit) {
  // CogVideoX-5B's guidance 6 runs two passes a step: on four L40S over PCIe, the plan prices the
  // spec's guidance parallel (two halves of two) below the 4-way Ulysses split, and says which.
  const GpuSpec* l40s = find_gpu(catalog_, "L40S");
  ASSERT_TRUE(l40s);
  auto basis_and_run_s = [&](const std::string& extra) -> std::pair<std::string, double> {
    dir_.write("cfg.yaml",
               "name: cfg\nrun: torchrun --nproc_per_node=4 cogvideox_example.py\nworkload:\n"
               "  kind: diffusion\n  model: cogvideox-5b\n  sequence_parallel: 4\n  items: 1\n" +
                   extra + "resources:\n  gpus: [L40S]\n  gpu_count: 4\n");
    std::vector<SpecError> errors;
    auto spec = load_spec_file(dir_.path() + "/cfg.yaml", &errors, provider_names());
    EXPECT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0].text);
    if (!spec.ok()) return {"", 0};
    Offer four{"runpod", "L40S", 4, l40s->vram_gb, 4.0, std::nullopt, "any", true, "test"};
    std::vector<Offer> offers{four};
    attach_traits(&offers);
    auto p = plan(*spec, offers, {"runpod"});
    EXPECT_TRUE(p.ok() && !p->candidates.empty()) << (p.ok() ? "" : p.error().message);
    if (!p.ok() || p->candidates.empty()) return {"", 0};
    return {p->candidates[0].basis(), p->candidates[0].shape->run_s};
  };
  std::filesystem::create_directory(dir_.path() + "/cfg");
  const auto ulysses = basis_and_run_s("");
  const auto halves = basis_and_run_s("  cfg_parallel: true\n");
  EXPECT_NE(halves.first.find("4-way sequence parallel with guidance parallel"), std::string::npos)
      << halves.first;
  EXPECT_EQ(ulysses.first.find("guidance parallel"), std::string::npos) << ulysses.first;
  EXPECT_GT(halves.second, 0);
  EXPECT_LT(halves.second, ulysses.second);
}

TEST_F(PodLayoutPlan, ATensorParallelCopyThatCannotHoldItsSequencesQueuesThemOnlyUnderABatcher) {
  // Llama 3.1 70B in fp16 as two copies of TP 2 on four H100s: the four cards hold 310 GiB and
  // the pooled need is 292 GiB, but each copy keeps its own 131.5 GiB of weights beside 32
  // sequences of 8192 tokens (80 GiB) on its two cards' 155 GiB.
  const std::string head =
      "name: tp\nrun: python serve.py\nworkload:\n  kind: llm-inference\n"
      "  model: llama-3.1-70b\n  precision: fp16\n  tensor_parallel: 2\n"
      "  context_tokens: 8192\n  tokens: 512\n";
  const GpuSpec* h100 = find_gpu(catalog_, "H100_SXM");
  ASSERT_TRUE(h100);
  Offer four{"runpod", "H100_SXM", 4, h100->vram_gb, 12.0, std::nullopt, "any", true, "test"};
  std::vector<Offer> offers{four};
  attach_traits(&offers);
  std::filesystem::create_directory(dir_.path() + "/tp");
  // The plan of `head` under `engine` at `concurrency` sequences on the four cards.
  auto plan_at = [&](const std::string& engine, int concurrency) {
    std::vector<SpecError> errors;
    dir_.write("tp.yaml", head + "  engine: " + engine +
                              "\n  concurrency: " + std::to_string(concurrency) +
                              "\nresources:\n  gpus: [H100_SXM]\n  gpu_count: 4\n");
    auto spec = load_spec_file(dir_.path() + "/tp.yaml", &errors, provider_names());
    EXPECT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0].text);
    return spec.ok() ? plan(*spec, offers, {"runpod"}) : Result<Plan>(spec.error());
  };
  // PyTorch allocates what it is asked for: the copy does not hold 32 sequences, and the plan
  // must not choose it.
  auto refused = plan_at("pytorch", 64);
  ASSERT_FALSE(refused.ok()) << "chose " << refused->estimate.basis;
  EXPECT_NE(refused.error().message.find(
                "does not fit: each copy (tensor_parallel 2) needs 211.5 GiB for its 32 of 64 "
                "sequences, has 155.1 GiB usable on 2 x H100_SXM"),
            std::string::npos)
      << refused.error().message;
  // vLLM's 0.9 share less its workspace (140.6 GiB a copy) holds 3 sequences beside the weights;
  // six, three a copy, fit, and the need is both copies' (278 GiB), under the cards'.
  auto six = plan_at("vllm", 6);
  ASSERT_TRUE(six.ok()) << six.error().message;
  ASSERT_FALSE(six->candidates.empty());
  EXPECT_NEAR(six->candidates[0].need_gib(), 278.0, 0.5);
  EXPECT_LE(six->candidates[0].need_gib(), six->candidates[0].have_gb());
  EXPECT_EQ(six->estimate.basis.find("queue"), std::string::npos) << six->estimate.basis;
  // At 64 vLLM runs those six and queues the rest (its scheduler admits what its KV cache
  // holds): the same memory, and ceil(64 / 6) = 11 rounds of the six's time.
  auto queued = plan_at("vllm", 64);
  ASSERT_TRUE(queued.ok()) << queued.error().message;
  EXPECT_NE(queued->estimate.basis.find("vllm runs 6 of 64 sequences at once, the rest queue"),
            std::string::npos)
      << queued->estimate.basis;
  EXPECT_NEAR(queued->candidates[0].need_gib(), 278.0, 0.5);
  EXPECT_NEAR(queued->estimate.run_s / six->estimate.run_s, 11.0, 0.01 * 11);
}

TEST_F(PodLayoutPlan, AnEngineWhoseShareCannotHoldTheWeightsIsRefusedThoughTheCardCould) {
  // Llama 3.1 8B in bf16 (15.0 GiB) and one 1024-token sequence on a 16 GB card: its usable
  // 15.2 GiB holds them, vLLM's 0.9 share less its workspace (13.7 GiB) does not hold the weights.
  const GpuSpec* card = find_gpu(catalog_, "RTX_4080_SUPER");
  ASSERT_TRUE(card);
  Offer one{"vast", "RTX_4080_SUPER", 1, card->vram_gb, 0.30, std::nullopt, "any", true, "test"};
  std::vector<Offer> offers{one};
  attach_traits(&offers);
  std::vector<SpecError> errors;
  for (const std::string engine : {"vllm", "llama.cpp"}) {
    std::filesystem::create_directories(dir_.path() + "/serve");
    dir_.write("serve.yaml",
               "name: serve\nrun: python serve.py\nworkload:\n  kind: llm-inference\n"
               "  model: llama-3.1-8b\n  precision: bf16\n  context_tokens: 1024\n"
               "  tokens: 512\n  engine: " +
                   engine + "\n");
    auto spec = load_spec_file(dir_.path() + "/serve.yaml", &errors, provider_names());
    ASSERT_TRUE(spec.ok()) << (errors.empty() ? spec.error().message : errors[0].text);
    auto p = plan(*spec, offers, {"vast"});
    if (engine == "llama.cpp") {
      ASSERT_TRUE(p.ok()) << p.error().message;  // no share: the card's usable memory decides
      continue;
    }
    ASSERT_FALSE(p.ok()) << "chose " << p->estimate.basis;
    EXPECT_NE(p.error().message.find("does not fit under vllm: its memory share (0.90) of 1 x "
                                     "RTX_4080_SUPER does not hold the weights and one sequence"),
              std::string::npos)
        << p.error().message;
  }
}

TEST_F(PodLayoutPlan, TableAndBlockAgreeForEveryCandidateShapeOfEveryProvider) {
  const PipelineSpec spec = example();
  for (const std::string provider : {"runpod", "lambda", "vast"}) {
    PipelineSpec any = spec;
    any.resources.gpus.clear();  // every GPU type and count of the table
    any.resources.max_usd_per_hour.reset();
    any.budget.max_usd.reset();
    auto p = plan(any, of(provider), {provider});
    ASSERT_TRUE(p.ok()) << provider << ": " << p.error().message;
    EXPECT_GT(expect_table_and_block_agree(any, *p), 0) << provider << ": no multi-GPU shape";
  }
}

// Workloads of every kind, each layout the planner prices for them on every offline offer.
std::vector<std::pair<std::string, PipelineSpec>> workloads() {
  std::vector<std::pair<std::string, PipelineSpec>> out;
  auto base = [] {
    PipelineSpec s;
    s.name = "layouts";
    s.run = "true";
    return s;
  };
  PipelineSpec d = base();  // diffusion with items (the default: replicas)
  d.workload.kind = "diffusion";
  d.workload.params_b = 2.6;
  d.workload.items = 400;
  d.workload.steps = 30;
  d.workload.batch = 4;
  out.push_back({"diffusion", d});
  PipelineSpec dp = d;
  dp.resources.multi_gpu = "program";
  out.push_back({"diffusion, program", dp});
  PipelineSpec li = base();  // inference with items: replicas; large enough for tensor parallel
  li.workload.kind = "llm-inference";
  li.workload.params_b = 70;
  li.workload.precision = "fp16";
  li.workload.tokens = 256;
  li.workload.items = 2000;
  li.workload.concurrency = 16;
  out.push_back({"llm-inference 70B with items", li});
  PipelineSpec lc = li;  // without items: the program's (burst cannot split it)
  lc.workload.items.reset();
  out.push_back({"llm-inference without items", lc});
  PipelineSpec t = base();
  t.workload.kind = "llm-training";
  t.workload.mode = "full";
  t.workload.params_b = 13;
  t.workload.precision = "bf16";
  t.workload.tokens = 10'000'000;
  out.push_back({"llm-training", t});
  PipelineSpec c = base();  // a measured reference: one copy, unless the spec asks for replicas
  c.workload.kind = "custom";
  c.workload.items = 100;
  c.workload.reference = WorkloadReference{"RTX_4090", 600, "bandwidth"};
  out.push_back({"custom", c});
  PipelineSpec cr = c;
  cr.resources.multi_gpu = "replicas";
  out.push_back({"custom, replicas", cr});
  return out;
}

TEST_F(PodLayoutPlan, EveryLayoutThePlannerCanChooseIsOneTheRunExecutes) {
  int replicated = 0, programs = 0;
  for (const auto& [name, spec] : workloads()) {
    CandidateInput ci;
    ci.catalog = &catalog_;
    ci.calibration = default_calibration();
    for (const Candidate& c : price_candidates(spec, offers_, ci)) {
      if (!c.rejected.empty() || !c.shape) continue;
      const PodLayout& l = c.shape->layout;
      const std::string what = name + " on " + c.offer.provider + " " + c.offer.gpu_type + " x" +
                               std::to_string(c.offer.gpu_count);
      // The run rents the offer's count (rented_gpus, job/job_types.h) and uses no card twice.
      ASSERT_EQ(l.gpus, std::max(1, c.offer.gpu_count)) << what;
      ASSERT_GE(l.replicas, 1) << what;
      ASSERT_LE(l.replicas * l.per_replica, l.gpus) << what;
      if (l.program) {  // one copy that sees every card
        EXPECT_EQ(l.replicas, 1) << what;
        EXPECT_EQ(l.per_replica, l.gpus) << what;
        EXPECT_TRUE(runs_as_program(spec)) << what;
        ++programs;
      }
      if (l.replicas > 1) {  // burst splits the items: there are items, and it is not training
        EXPECT_FALSE(l.program) << what;
        EXPECT_TRUE(spec.workload.items && *spec.workload.items >= l.replicas) << what;
        EXPECT_NE(spec.workload.kind, "llm-training") << what;
        EXPECT_EQ(spec::multi_gpu_refusal(spec.workload, "replicas"), "") << what;
        // The wrapper the run step becomes starts exactly these copies on disjoint cards.
        const std::string w = replica_wrapper(l, "/p", true);
        std::set<std::string> cards;
        for (int i = 0; i < l.replicas; ++i) {
          EXPECT_NE(w.find("BURST_REPLICA_INDEX=" + std::to_string(i) + " "), std::string::npos);
          std::stringstream devs(replica_devices(l, i));
          for (std::string d; std::getline(devs, d, ',');) EXPECT_TRUE(cards.insert(d).second);
        }
        EXPECT_EQ(w.find("BURST_REPLICA_INDEX=" + std::to_string(l.replicas) + " "),
                  std::string::npos);
        ++replicated;
      }
      if (l.gpus > 1) {
        EXPECT_NE(c.basis().find(pod_layout_text(l)), std::string::npos) << what;
      }
    }
  }
  EXPECT_GT(replicated, 0);
  EXPECT_GT(programs, 0);
}

TEST_F(PodLayoutPlan, TheSpecRefusesReplicasForTrainingAndAnUnknownModeNamingTheLine) {
  auto errors_of = [&](const std::string& resources, const std::string& workload) {
    dir_.write("s.yaml", "version: 1\nname: s\nrun: train\nresources:\n" + resources +
                             "workload:\n" + workload);
    std::vector<SpecError> errors;
    auto spec = load_spec_file(dir_.path() + "/s.yaml", &errors, provider_names());
    std::string all;
    for (const SpecError& e : errors) all += e.text + "\n";
    return std::make_pair(spec.ok(), all);
  };
  const std::string training = "  kind: llm-training\n  mode: full\n  params_b: 1\n";
  auto [ok, text] = errors_of("  multi_gpu: replicas\n", training);
  EXPECT_FALSE(ok);
  EXPECT_NE(text.find("s.yaml:5:14: resources.multi_gpu: replicas is not for training"),
            std::string::npos)
      << text;
  std::tie(ok, text) = errors_of("  multi_gpu: both\n", training);
  EXPECT_FALSE(ok);
  EXPECT_NE(text.find("resources.multi_gpu"), std::string::npos) << text;
  std::tie(ok, text) = errors_of("  multi_gpu: program\n", training);
  EXPECT_TRUE(ok) << text;
}

TEST(PodLayout, WordsForEachLayout) {
  EXPECT_EQ(pod_layout_text({1, 1, 1, false}), "1 GPU");
  EXPECT_EQ(pod_layout_text({2, 1, 2, false}), "2 replicas, 1 GPU each");
  EXPECT_EQ(pod_layout_text({8, 2, 4, false}), "4 replicas, 2 GPUs each");
  EXPECT_EQ(pod_layout_text({3, 2, 1, false}), "1 replica on 2 of 3 GPUs");
  EXPECT_EQ(pod_layout_text({8, 8, 1, true}), "one program on all 8 GPUs");
  EXPECT_EQ(pod_layout_cell({8, 2, 4, false}), "4x2");
  EXPECT_EQ(pod_layout_cell({8, 8, 1, true}), "program");
  EXPECT_EQ(replica_devices({8, 2, 4, false}, 2), "4,5");
}

TEST(PodLayout, MultiGpuReplicasIsRefusedWhereBurstCannotSplitTheWork) {
  Workload w;
  w.kind = "llm-training";
  w.items = 10;
  EXPECT_NE(spec::multi_gpu_refusal(w, "replicas").find("not for training"), std::string::npos);
  w.kind = "llm-inference";
  w.items.reset();
  EXPECT_NE(spec::multi_gpu_refusal(w, "replicas").find("workload.items"), std::string::npos);
  EXPECT_EQ(spec::multi_gpu_refusal(w, "program"), "");
  w.items = 10;
  EXPECT_EQ(spec::multi_gpu_refusal(w, "replicas"), "");
}

}  // namespace
}  // namespace burst
