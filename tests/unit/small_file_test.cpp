// Spec and config files are read only when they are regular files of at most 1 MiB: /dev/zero, a
// fifo, a directory or a 2 MiB file is refused at once with an error naming it.
#include "util/small_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "burst/config.h"
#include "burst/spec.h"
#include "fakes/temp_dir.h"
#include "registry.h"

namespace burst {
namespace {

TEST(SmallFile, OnlyARegularFileUpToOneMebibyte) {
  TempDir t;
  const std::string fifo = t.path() + "/fifo", big = t.path() + "/big.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::ofstream(big) << std::string(2 << 20, '#');
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(read_small_file("/dev/zero").error().message, "/dev/zero: not a regular file");
  EXPECT_EQ(read_small_file(fifo).error().message, fifo + ": not a regular file");
  EXPECT_EQ(read_small_file(t.path()).error().message, t.path() + ": not a regular file");
  EXPECT_EQ(read_small_file(big).error().message,
            big + ": too large (2097152 bytes; the limit is 1 MiB)");
  EXPECT_EQ(read_small_file(t.path() + "/none").error().message,
            t.path() + "/none: cannot read file: No such file or directory");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2)) << "nothing waited";
  std::ofstream(t.path() + "/ok") << std::string(1 << 20, 'a');
  ASSERT_TRUE(read_small_file(t.path() + "/ok").ok()) << "exactly 1 MiB is fine";
  EXPECT_EQ(read_small_file(t.path() + "/ok")->size(), size_t{1} << 20);
  // A symlink to a spec is fine: it is followed.
  std::filesystem::create_symlink(t.path() + "/ok", t.path() + "/link");
  EXPECT_TRUE(read_small_file(t.path() + "/link").ok());
}

TEST(SmallFile, TheSpecLoaderRefusesDevicesFifosAndHugeFiles) {
  TempDir t;
  const std::string fifo = t.path() + "/spec.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::vector<SpecError> errors;
  auto spec = load_spec_file(fifo, &errors, provider_names());
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.error().message, fifo + ": not a regular file");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].text, fifo + ": not a regular file");
  EXPECT_EQ(load_spec_file("/dev/zero", &errors, provider_names()).error().message,
            "/dev/zero: not a regular file");
}

TEST(SmallFile, TheConfigLoaderRefusesANonRegularConfigYaml) {
  TempDir t;
  std::filesystem::create_directories(t.path() + "/config/config.yaml");  // a directory
  auto c = load_config({{"BURST_CONFIG_DIR", t.path() + "/config"}, {"HOME", t.path()}},
                       all_provider_traits());
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().message, t.path() + "/config/config.yaml: not a regular file");
  std::filesystem::remove(t.path() + "/config/config.yaml");
  std::ofstream(t.path() + "/config/config.yaml") << "# " << std::string(3 << 20, 'x') << "\n";
  c = load_config({{"BURST_CONFIG_DIR", t.path() + "/config"}, {"HOME", t.path()}},
                  all_provider_traits());
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("config.yaml: too large (3145731 bytes; the limit is 1 MiB)"),
            std::string::npos)
      << c.error().message;
}

}  // namespace
}  // namespace burst
