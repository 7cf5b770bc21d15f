// The CLI's output contracts in process: the table printer's display width, the exit-code
// mapping, --json error objects, and the flags that change a spec (--provider, --gpus, --secret).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cli/run_flags.h"
#include "cli/table.h"

namespace burst {
namespace {

TEST(CliTable, DisplayWidthCountsWhatATerminalShows) {
  EXPECT_EQ(display_width("RTX_4090"), 8u);
  EXPECT_EQ(display_width("caf\xc3\xa9"), 4u);               // é: two bytes, one column
  EXPECT_EQ(display_width("e\xcc\x81"), 1u);                 // e + combining acute
  EXPECT_EQ(display_width("\xe6\x97\xa5\xe6\x9c\xac"), 4u);  // 日本: wide, two columns each
  EXPECT_EQ(display_width("\xf0\x9f\x9a\x80"), 2u);          // 🚀
  EXPECT_EQ(display_width("\xff"), 1u);                      // an invalid byte
}

TEST(CliTable, ColumnsAlignOnDisplayWidthNotBytes) {
  Table t({{"NAME"}, {"USD", Table::kRight}});
  t.add({"\xe6\x97\xa5\xe6\x9c\xac-job", "1.50"});  // 日本-job: 8 columns, 10 bytes
  t.add({"long-pipeline-name", "12.00"});
  t.add({"x"});
  EXPECT_EQ(t.render(),
            "NAME                  USD\n"
            "\xe6\x97\xa5\xe6\x9c\xac-job             1.50\n"
            "long-pipeline-name  12.00\n"
            "x\n");
}

// A row's note (plan's reason) sits on its own line under it, wrapped to 120 columns, and does
// not widen the columns; text with the table's own double spaces is kept as written.
TEST(CliTable, NotesGoUnderTheirRowWrappedAndLeaveTheColumnsAlone) {
  Table t({{"GPU"}, {"VERDICT"}});
  t.add({"L4", "rejected"});
  t.note(std::string(30, 'a') + " " + std::string(60, 'b') + " " + std::string(40, 'c'));
  t.add({"A100", "chosen"});
  EXPECT_EQ(t.render(),
            "GPU   VERDICT\n"
            "L4    rejected\n"
            "     " +
                std::string(30, 'a') + " " + std::string(60, 'b') +
                "\n"
                "     " +
                std::string(40, 'c') +
                "\n"
                "A100  chosen\n");
  EXPECT_EQ(wrap_line("  volume:  x (50 GB), cold", 11), "  volume:  x (50 GB), cold\n");
  EXPECT_EQ(wrap_line("note: aaaa bbbb cccc", 6, 12), "note: aaaa\n      bbbb\n      cccc\n");
}

TEST(CliExitCodes, ClassifiedErrorsMapOntoTheTable) {
  auto code = [](ErrorCode c, ErrorOrigin o = ErrorOrigin::kCommand) {
    return exit_code_for(make_error(c, "x"), o);
  };
  EXPECT_EQ(code(ErrorCode::kInvalid), 2);
  EXPECT_EQ(code(ErrorCode::kAuth), 3);
  EXPECT_EQ(code(ErrorCode::kNotFound), 4);
  EXPECT_EQ(code(ErrorCode::kInterrupted), 130);
  EXPECT_EQ(code(ErrorCode::kNoCapacity), 1);
  EXPECT_EQ(code(ErrorCode::kRemoteFailed), 1);
  EXPECT_EQ(code(ErrorCode::kConnection), 1) << "a provider's connection is no daemon's";
  EXPECT_EQ(code(ErrorCode::kConnection, ErrorOrigin::kDaemon), 5);
  EXPECT_EQ(code(ErrorCode::kInvalid, ErrorOrigin::kDaemon), 2);
  EXPECT_EQ(code(ErrorCode::kInvalid, ErrorOrigin::kConfig), 3) << "a bad config.yaml";
  std::set<int> codes;
  for (const ExitCodeRow& row : exit_code_table()) codes.insert(row.code);
  EXPECT_EQ(codes, (std::set<int>{0, 1, 2, 3, 4, 5, 130}));
  EXPECT_STREQ(exit_code_name(5), "daemon_unreachable");
}

TEST(CliExitCodes, JsonModePrintsOneErrorObjectOnStdout) {
  set_json_errors(true);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int rc = fail(make_error(ErrorCode::kNotFound, "no job x"));
  const std::string out = ::testing::internal::GetCapturedStdout();
  const std::string err = ::testing::internal::GetCapturedStderr();
  set_json_errors(false);
  EXPECT_EQ(rc, 4);
  EXPECT_EQ(err, "");
  auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["error"]["code"], "not_found");
  EXPECT_EQ(j["error"]["message"], "no job x");
  EXPECT_EQ(j["error"]["exit"], 4);
}

TEST(CliRunFlags, ProviderListReplacesTheSpecsProviders) {
  PipelineSpec spec;
  spec.resources.providers = {"vast"};
  auto one = apply_provider_flag(&spec, {"runpod"});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, "runpod");
  auto two = apply_provider_flag(&spec, {"runpod", "local"});
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(*two, "");
  EXPECT_EQ(spec.resources.providers, (std::vector<std::string>{"runpod", "local"}));
  auto bad = apply_provider_flag(&spec, {"runpod", "nope"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("unknown provider \"nope\""), std::string::npos);
}

TEST(CliRunFlags, GpusMatchesTheCatalogIgnoringCaseAndByPrefix) {
  std::vector<GpuSpec> catalog(3);
  catalog[0].name = "H100_SXM";
  catalog[1].name = "H100_PCIE";
  catalog[2].name = "RTX_4090";
  PipelineSpec spec;
  ASSERT_TRUE(apply_gpus_flag(&spec, "rtx-4090:4", catalog).ok());
  EXPECT_EQ(spec.resources.gpus, (std::vector<std::string>{"RTX_4090"}));
  EXPECT_EQ(spec.resources.gpu_count, 4);
  ASSERT_TRUE(apply_gpus_flag(&spec, "h100", catalog).ok());
  EXPECT_EQ(spec.resources.gpus, (std::vector<std::string>{"H100_SXM", "H100_PCIE"}));
  EXPECT_EQ(spec.resources.gpu_count, 1);
  EXPECT_FALSE(apply_gpus_flag(&spec, "A100", catalog).ok());
  EXPECT_FALSE(apply_gpus_flag(&spec, "RTX_4090:0", catalog).ok());
  EXPECT_FALSE(apply_gpus_flag(&spec, "RTX_4090:", catalog).ok());
}

TEST(CliRunFlags, SecretsAreRequiredAndAValueNeverComesFromTheSpec) {
  PipelineSpec spec;
  spec.secrets.push_back({"HF_TOKEN", true, {}});
  std::map<std::string, std::string> env = {{"HF_TOKEN", "hf-abc"}};
  ASSERT_TRUE(apply_secret_flags(&spec, {"HF_TOKEN", "API_KEY=k-123"}, &env).ok());
  ASSERT_EQ(spec.secrets.size(), 2u);
  EXPECT_FALSE(spec.secrets[0].optional) << "--secret makes an optional secret required";
  EXPECT_EQ(spec.secrets[1].name, "API_KEY");
  EXPECT_EQ(env["API_KEY"], "k-123");
  EXPECT_FALSE(apply_secret_flags(&spec, {"UNSET_ONE"}, &env).ok());
  EXPECT_FALSE(apply_secret_flags(&spec, {"bad name=1"}, &env).ok());
}

}  // namespace
}  // namespace burst
