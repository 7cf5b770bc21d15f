// A spec's or `burst estimate`'s model name as users paste it (docs/cost-model.md, "Model
// shapes"): a quantized repository prices its weights at the precision its name says, a name the
// tables do not know is refused at its line and column by `burst validate` and `burst plan`
// before anything is planned.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

// The entry `burst estimate --json` printed in `out` gives for `gpu`; an empty object, and a
// failure naming the output, when that card was not priced.
nlohmann::json card_entry(const std::string& out, const std::string& gpu) {
  const auto j = nlohmann::json::parse(out);
  for (const auto& g : j["gpus"])
    if (g["gpu"] == gpu) return g;
  ADD_FAILURE() << gpu << " not priced: " << out;
  return nlohmann::json::object();
}

std::string spec_naming(const std::string& model) {
  return "name: named\nrun: echo hi\nworkload:\n  kind: llm-inference\n  model: " + model +
         "\n  engine: vllm\n  tokens: 1000\n";
}

TEST(E2ECli, AQuantizedRepositorysNameSetsThePrecisionEstimatePrices) {
  BurstHome home;
  std::string out, err;
  ASSERT_EQ(
      run_burst(home, {"estimate", "--mode", "infer", "--model", "Qwen/Qwen3-8B-FP8"}, &out, &err),
      0)
      << err;
  // Qwen3 8B's 8.19B parameters at one byte: 7.6 GiB, half its bf16 weights.
  EXPECT_NE(out.find("8.19 B params): weights 7.6 GiB"), std::string::npos) << out;
  ASSERT_EQ(
      run_burst(home, {"estimate", "--mode", "infer", "--model", "deepseek-ai/DeepSeek-R1-0528"},
                &out, &err),
      0)
      << err;
  EXPECT_NE(out.find("671 B params): weights 624.9 GiB"), std::string::npos) << out;
}

TEST(E2ECli, AModelNameTheTablesCannotPriceIsRefusedAtItsLineByValidateAndPlan) {
  BurstHome home;
  const std::string unknown = home.write("unknown.yaml", spec_naming("llama-9"));
  const std::string gptq = home.write("gptq.yaml", spec_naming("TheBloke/Llama-2-7B-Chat-GPTQ"));
  std::string out, err;
  EXPECT_EQ(run_burst(home, {"validate", unknown}, &out, &err), 2) << out;
  EXPECT_NE(err.find("unknown.yaml:5:10: workload.model: unknown model \"llama-9\""),
            std::string::npos)
      << err;
  EXPECT_EQ(run_burst(home, {"plan", gptq}, &out, &err), 2) << out;
  EXPECT_NE(err.find("gptq.yaml:5:10: workload.model: model \"TheBloke/Llama-2-7B-Chat-GPTQ\" is "
                     "a quantized release whose name does not say its precision"),
            std::string::npos)
      << err;
  EXPECT_EQ(out.find("PROVIDER"), std::string::npos) << out;  // nothing planned
  EXPECT_EQ(run_burst(home, {"validate", "--json", unknown}, &out, &err), 2);
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["errors"][0]["line"], 5) << out;
  EXPECT_EQ(j["errors"][0]["column"], 10) << out;
  // With the precision given the same repository validates.
  const std::string given = home.write(
      "given.yaml", spec_naming("TheBloke/Llama-2-7B-Chat-GPTQ") + "  precision: int4\n");
  EXPECT_EQ(run_burst(home, {"validate", given}, &out, &err), 0) << err;
}

TEST(E2ECli, AFrameCountTheDenoiserCannotTakeIsRefusedAtItsLineByValidateAndPlan) {
  BurstHome home;
  auto clip = [](const std::string& model) {
    return "name: clip\nrun: echo hi\nworkload:\n  kind: diffusion\n  model: " + model +
           "\n  items: 2\n  steps: 50\n  frames: 81\n";
  };
  const std::string image = home.write("image.yaml", clip("sdxl"));
  std::string out, err;
  EXPECT_EQ(run_burst(home, {"validate", image}, &out, &err), 2) << out;
  EXPECT_NE(err.find("image.yaml:8:11: workload.frames: \"sdxl\" is an image or audio denoiser; "
                     "frames are for a video one"),
            std::string::npos)
      << err;
  EXPECT_EQ(run_burst(home, {"plan", image}, &out, &err), 2) << out;
  EXPECT_EQ(out.find("PROVIDER"), std::string::npos) << out;  // nothing planned
  // A video model takes it, and its Hugging Face id and ComfyUI file name are the same row.
  for (const char* video : {"wan2.1-t2v-1.3b", "Wan-AI/Wan2.1-T2V-1.3B-Diffusers",
                            "wan2.1_t2v_1.3B_fp16.safetensors"}) {
    const std::string ok = home.write("video.yaml", clip(video));
    EXPECT_EQ(run_burst(home, {"validate", ok}, &out, &err), 0) << video << ": " << err;
  }
  ASSERT_EQ(run_burst(home,
                      {"estimate", "--mode", "diffusion", "--model", "wan2.1-t2v-14b", "--items",
                       "1", "--steps", "50", "--resolution", "832x480", "--json"},
                      &out, &err),
            0)
      << err;
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["diffusion"]["latent_tokens"], 21 * 52 * 30) << out;  // 81 frames by default
  // The text says what it priced, defaults resolved.
  ASSERT_EQ(run_burst(home,
                      {"estimate", "--mode", "diffusion", "--model", "wan2.1-t2v-14b", "--items",
                       "1", "--steps", "50"},
                      &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("diffusion: dit, 1280x720, 81 frames, 50 steps, 75600 latent tokens a pass, "
                     "2 passes a step in 2 calls, attention fa2"),
            std::string::npos)
      << out;
  EXPECT_EQ(j["diffusion"]["calls_per_step"], 2) << out;  // Wan guides by a second call
}

// `--attention-kernel` reaches the estimate: FlashAttention 3 on an H100 prices a video faster
// than the default FA2, not on an A100; a kernel burst does not price is refused. Without
// `--steps`, the model's own 50 steps are priced (docs/cost-model.md, "Default steps"); copies
// with no clip to run are named.
TEST(E2ECli, TheAttentionKernelAndTheModelsStepsReachTheVideoEstimate) {
  BurstHome home;
  std::string out, err;
  // `burst estimate` of Wan 2.1 1.3B clips (its default size, frames and steps), plus `more`.
  auto estimate_clip = [&](std::vector<std::string> more, const char* items = "1") {
    std::vector<std::string> args = {"estimate",        "--mode",  "diffusion", "--model",
                                     "wan2.1-t2v-1.3b", "--items", items};
    args.insert(args.end(), more.begin(), more.end());
    return run_burst(home, args, &out, &err);
  };
  auto seconds_on = [&](const char* kernel, const char* gpu) {
    EXPECT_EQ(estimate_clip({"--attention-kernel", kernel, "--json"}), 0) << err;
    auto j = nlohmann::json::parse(out);
    EXPECT_EQ(j["diffusion"]["attention_kernel"], kernel) << out;
    for (const auto& g : j["gpus"])
      if (g["gpu"] == gpu) return g["seconds"].get<double>();
    ADD_FAILURE() << gpu << " not priced: " << out;
    return 0.0;
  };
  EXPECT_LT(seconds_on("fa3", "H100_SXM"), seconds_on("fa2", "H100_SXM") * 0.9);
  EXPECT_DOUBLE_EQ(seconds_on("fa3", "A100_80GB"), seconds_on("fa2", "A100_80GB"));
  ASSERT_EQ(estimate_clip({}), 0) << err;
  EXPECT_NE(out.find("81 frames, 50 steps,"), std::string::npos) << out;
  // One clip on two cards: one copy a card, and the second has nothing to run; two clips use both.
  ASSERT_EQ(estimate_clip({"--gpus", "2"}), 0) << err;
  EXPECT_NE(out.find("idle copies: "), std::string::npos) << out;
  EXPECT_NE(out.find(" x2 (1 of 2)"), std::string::npos) << out;
  ASSERT_EQ(estimate_clip({"--gpus", "2"}, "2"), 0) << err;
  EXPECT_EQ(out.find("idle copies"), std::string::npos) << out;
  EXPECT_NE(estimate_clip({"--attention-kernel", "sage"}), 0);
  EXPECT_NE(err.find("--attention-kernel: \"sage\" is not one of fa2, fa3"), std::string::npos)
      << err;
}

// A diffusion estimate names what its peak holds: the pipeline's text encoders and VAE beside the
// denoiser, and the offload (docs/cost-model.md, "Diffusion memory").
TEST(E2ECli, EstimateShowsTheDiffusionPipelinesPartsAndItsOffload) {
  BurstHome home;
  std::string out, err;
  ASSERT_EQ(
      run_burst(home, {"estimate", "--mode", "diffusion", "--model", "flux-dev", "--items", "1"},
                &out, &err),
      0)
      << err;
  // FLUX.1 dev: its 11.9B transformer and T5-XXL with CLIP-L (4.88B) in 16 bits.
  EXPECT_NE(out.find("pipeline: denoiser 22.2 GiB, text encoders 9.1 GiB, VAE 0.2 GiB"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("offload none (--offload model holds one component at a time)"),
            std::string::npos)
      << out;
  ASSERT_EQ(run_burst(home,
                      {"estimate", "--mode", "diffusion", "--model", "wan2.2-t2v-a14b", "--items",
                       "1", "--offload", "model"},
                      &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("denoiser 26.6 GiB x 2 experts"), std::string::npos) << out;
  EXPECT_NE(out.find("; offload model (each part copied to the card once a round)\n"),
            std::string::npos)
      << out;
  EXPECT_NE(run_burst(home,
                      {"estimate", "--mode", "diffusion", "--model", "sdxl", "--items", "1",
                       "--offload", "disk"},
                      &out, &err),
            0);
  EXPECT_NE(err.find("--offload: \"disk\" is not one of none, model, sequential"),
            std::string::npos)
      << err;
}

TEST(E2ECli, EstimatePricesAnOffloadsCopiesSequentialSlowestAndSaysHowLong) {
  BurstHome home;
  std::string out, err;
  // CogVideoX-5b's 49 frames at 720x480, 50 steps, on an A100 80GB: (run seconds, copies).
  auto a100 = [&](const char* offload) {
    std::vector<std::string> args = {"estimate", "--mode", "diffusion", "--model", "cogvideox-5b",
                                     "--items",  "1",      "--steps",   "50",      "--json"};
    if (*offload) args.insert(args.end(), {"--offload", offload});
    EXPECT_EQ(run_burst(home, args, &out, &err), 0) << err;
    const auto g = card_entry(out, "A100_80GB");
    return std::make_pair(
        g.value("seconds", 0.0),
        g.contains("offload_s") && !g["offload_s"].is_null() ? g["offload_s"].get<double>() : 0.0);
  };
  const auto none = a100(""), model = a100("model"), sequential = a100("sequential");
  EXPECT_EQ(none.second, 0) << "nothing is copied without an offload";
  EXPECT_GT(model.second, 0);
  // Model offload copies each component once; sequential the denoiser at every one of 50 steps.
  EXPECT_GT(sequential.second, 40 * model.second / 2);
  EXPECT_NEAR(model.first - none.first, model.second, 1e-6 * model.first);
  EXPECT_NEAR(sequential.first - none.first, sequential.second, 1e-6 * sequential.first);
  EXPECT_GT(sequential.first, 2 * none.first) << "sequential offload is priced as the slow setting";
}

TEST(E2ECli, SequenceParallelSplitsOneClipOverTheCardsItNames) {
  BurstHome home;
  std::string out, err;
  auto h100_seconds = [&](std::vector<std::string> more) {
    std::vector<std::string> args = {"estimate",       "--mode",  "diffusion", "--model",
                                     "wan2.1-t2v-14b", "--items", "1",         "--json"};
    args.insert(args.end(), more.begin(), more.end());
    EXPECT_EQ(run_burst(home, args, &out, &err), 0) << err;
    return std::make_pair(card_entry(out, "H100_SXM").value("seconds", 0.0), out);
  };
  // One clip on eight H100s: one busy card and seven idle (with --offload model, as Wan's README
  // runs one card), or the clip's tokens over all eight.
  const double one = h100_seconds({"--gpus", "8", "--offload", "model"}).first;
  const double split = h100_seconds({"--gpus", "8", "--sequence-parallel", "8"}).first;
  EXPECT_LT(split, one / 5) << out;
  EXPECT_GT(split, one / 8) << out;
  ASSERT_EQ(run_burst(home,
                      {"estimate", "--mode", "diffusion", "--model", "wan2.1-t2v-14b", "--items",
                       "1", "--sequence-parallel", "4"},
                      &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("sequence parallel 4: each item's tokens are split over 4 GPUs"),
            std::string::npos)
      << out;
  EXPECT_EQ(out.find("idle copies"), std::string::npos) << out;
  EXPECT_NE(run_burst(home,
                      {"estimate", "--mode", "infer", "--model", "llama-3-8b",
                       "--sequence-parallel", "2"},
                      &out, &err),
            0);
  EXPECT_NE(err.find("--sequence-parallel, --cfg-parallel and --offload only apply to --mode "
                     "diffusion"),
            std::string::npos)
      << err;
  EXPECT_NE(run_burst(home,
                      {"estimate", "--mode", "diffusion", "--model", "sdxl", "--items", "1",
                       "--sequence-parallel", "2"},
                      &out, &err),
            0);
  EXPECT_NE(err.find("--sequence-parallel splits a transformer denoiser's tokens; sdxl is a unet"),
            std::string::npos)
      << err;
  // One SDXL image on two cards: the idle copy is named, and no flag that cannot apply is offered.
  ASSERT_EQ(run_burst(home,
                      {"estimate", "--mode", "diffusion", "--model", "sdxl", "--items", "1",
                       "--gpus", "2"},
                      &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("and a unet never splits one item over cards;"), std::string::npos) << out;
}

TEST(E2ECli, GuidanceParallelRunsEachPassOnItsOwnCard) {
  BurstHome home;
  std::string out, err;
  auto l40_seconds = [&](std::vector<std::string> more) {
    std::vector<std::string> args = {
        "estimate", "--mode", "diffusion", "--model", "cogvideox-2b",        "--items",
        "1",        "--gpus", "2",         "--json",  "--sequence-parallel", "2"};
    args.insert(args.end(), more.begin(), more.end());
    EXPECT_EQ(run_burst(home, args, &out, &err), 0) << err;
    return card_entry(out, "L40").value("seconds", 0.0);
  };
  // Two L40s over PCIe: the Ulysses all-to-alls of both passes, or one pass a card and none.
  const double ulysses = l40_seconds({});
  const double halves = l40_seconds({"--cfg-parallel"});
  EXPECT_LT(halves, ulysses * 0.95) << out;
  ASSERT_EQ(run_burst(home,
                      {"estimate", "--mode", "diffusion", "--model", "cogvideox-2b", "--items", "1",
                       "--sequence-parallel", "2", "--cfg-parallel"},
                      &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("sequence parallel 2 with guidance parallel: guidance's two passes run one "
                     "on each GPU"),
            std::string::npos)
      << out;
  // HunyuanVideo embeds guidance in one pass: nothing for a second half to run.
  EXPECT_NE(run_burst(home,
                      {"estimate", "--mode", "diffusion", "--model", "hunyuanvideo", "--items", "1",
                       "--sequence-parallel", "2", "--cfg-parallel"},
                      &out, &err),
            0);
  EXPECT_NE(err.find("--cfg-parallel runs guidance's two passes on two halves of the group; "
                     "hunyuanvideo runs one pass a step"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace burst::testing
