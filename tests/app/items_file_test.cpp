// workload.items_file read when a job starts (app/items_file.h): lines in order, "\r\n" and
// blank lines handled, and each problem named with the spec's file:line:col.
#include "app/items_file.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "fakes/temp_dir.h"

namespace burst {
namespace {

PipelineSpec spec_in(const TempDir& dir) {
  std::filesystem::create_directories(dir.path() + "/code");
  PipelineSpec s;
  s.path = dir.path() + "/job.yaml";
  s.code.dir = dir.path() + "/code";
  s.workload.items_file = "items.txt";
  s.workload.items_file_pos = {7, 15};
  return s;
}

TEST(ItemsFile, ReadsOneItemPerLineSkippingBlankLines) {
  TempDir dir;
  const PipelineSpec spec = spec_in(dir);
  dir.write("code/items.txt", "a cat\r\n\nb dog\nc\n");
  auto items = read_items_file(spec);
  ASSERT_TRUE(items.ok()) << items.error().message;
  EXPECT_EQ(*items, (std::vector<std::string>{"a cat", "b dog", "c"}));
  PipelineSpec none;
  EXPECT_TRUE(read_items_file(none)->empty()) << "no items file: no items";
}

TEST(ItemsFile, MissingOrEmptyFileIsNamedAtItsSpecPosition) {
  TempDir dir;
  auto missing = read_items_file(spec_in(dir));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(missing.error().message.rfind(
                dir.path() + "/job.yaml:7:15: workload.items_file: cannot read", 0),
            0u)
      << missing.error().message;
  dir.write("code/items.txt", "\n\n");
  auto empty = read_items_file(spec_in(dir));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("holds no item"), std::string::npos);
}

}  // namespace
}  // namespace burst
