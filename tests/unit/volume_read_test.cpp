// The warm volume read (job/volume_read.h): the pod's answer is parsed to its exact shape and
// nothing else, and the command, run by a real shell on a directory, reads the largest created
// file (capped) and answers in that shape.
#include "job/volume_read.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fakes/fake_clock.h"
#include "fakes/scripted_pod.h"
#include "fakes/shell_pod.h"
#include "fakes/temp_dir.h"
#include "job/step_answers.h"

namespace burst {
namespace {

TEST(VolumeRead, ParsesTheAnswerLineAndCapsTheBytesAtWhatWasRead) {
  auto r = parse_volume_read("burst-volume-read direct 1000 5000000000 5250000000\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->direct);
  EXPECT_EQ(r->bytes, 1000);
  EXPECT_EQ(r->nanos, 250'000'000);
  EXPECT_EQ(volume_read_millis(*r), 250);
  // A file larger than the cap: only the cap was read.
  r = parse_volume_read("burst-volume-read dropped 16000000000 1 268435457");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->direct);
  EXPECT_EQ(r->bytes, kVolumeReadMaxBytes);
  EXPECT_EQ(volume_read_summary(*r),
            "volume read 256.0 MiB in 0.268 s: 1.00 GB/s (page cache dropped first)");
  // A read faster than a millisecond is recorded as one.
  EXPECT_EQ(volume_read_millis({true, 10, 5}), 1);
}

TEST(VolumeRead, RejectsEveryOtherShape) {
  for (const char* bad :
       {"", "\n", "burst-volume-read direct 1 2", "burst-volume-read direct 1 2 3 4",
        "burst-volume-read cached 1 2 3",              // a page-cache read is no measurement
        "burst-volume-read direct 1 3 2",              // time runs backwards
        "burst-volume-read direct 1 0 3600000000001",  // over an hour
        "burst-volume-read direct -1 2 3", "burst-volume-read direct 1 2 3\n\n",
        "burst-volume-read  direct 1 2 3", "burst-volume-read direct 1 2 3 ",
        "burst-volume-read direct 99999999999999999999 2 3",  // 20 digits
        "burst-volume-read direct 9223372036854775808 2 3",   // past int64
        "other direct 1 2 3", "burst-volume-read direct 1 2 %N"}) {
    EXPECT_FALSE(parse_volume_read(bad).ok()) << bad;
  }
  EXPECT_FALSE(
      parse_volume_read("burst-volume-read direct 1 2 3" + std::string(kMaxAnswer, ' ')).ok());
}

TEST(VolumeRead, TheCommandTimesTheLargestCreatedFileOnAShell) {
  TempDir dir;
  ShellPodConnector pod(dir.path() + "/pod");
  std::filesystem::create_directories(pod.volume() + "/m/sub dir");
  std::ofstream(pod.volume() + "/m/small") << "x";
  std::ofstream(pod.volume() + "/m/sub dir/big file") << std::string(300'000, 'w');
  std::ofstream(pod.volume() + "/other") << std::string(900'000, 'o');  // not a creates: path
  SshTarget target;
  auto session = pod.connect(target);
  ASSERT_TRUE(session.ok()) << session.error().message;
  FakeClock clock;
  auto r = measure_volume_read(**session, pod.volume(), {"m", "absent"}, clock, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->bytes, 300'000);
  EXPECT_GE(r->nanos, 0);
  // Nothing created: nothing measured, said so.
  r = measure_volume_read(**session, pod.volume(), {"absent"}, clock, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("the pod measured nothing"), std::string::npos)
      << r.error().message;
}

// A pod that never answers (its sshd still polls), or floods: the deadline is burst's own clock,
// and the answer is read no further than its limit.
class VolumeReadHostilePod : public ScriptedPod {
 public:
  explicit VolumeReadHostilePod(FakeClock& c) : clock(c) {}
  FakeClock& clock;
  bool flood = false;
  int polls = 0;
  Result<int> exec(const std::string&, const OutputSink& sink,
                   const std::function<bool()>& should_stop) override {
    if (flood) {
      const std::string chunk(4096, 'x');
      for (int i = 0; i < 100; ++i) sink.out(chunk.data(), chunk.size());
      return 0;
    }
    while (!should_stop()) {
      clock.advance(std::chrono::milliseconds(100));
      ++polls;
    }
    return make_error(ErrorCode::kInterrupted, "stopped");
  }
};

TEST(VolumeRead, ASilentPodIsGivenUpAtTheDeadlineAndAFloodAtTheAnswerLimit) {
  FakeClock clock;
  VolumeReadHostilePod pod(clock);
  auto r = measure_volume_read(pod, "/v", {"m"}, clock, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInterrupted);
  EXPECT_EQ(r.error().message, "volume read: no answer within 20 s");
  EXPECT_NEAR(pod.polls, kVolumeReadDeadlineS * 10, 2);
  pod.flood = true;
  r = measure_volume_read(pod, "/v", {"m"}, clock, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "volume read: answer too long");
}

}  // namespace
}  // namespace burst
