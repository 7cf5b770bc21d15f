// The phase table: the happy paths, where each failure goes, and an exhaustive search showing that
// once a pod may exist no sequence of outcomes reaches the report without deleting it.
#include "job/phase_machine.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace burst {
namespace {

constexpr Outcome kAllOutcomes[] = {Outcome::kOk, Outcome::kFailed, Outcome::kInterrupted,
                                    Outcome::kConnectionLost, Outcome::kSkipped};
constexpr Outcome kBadOutcomes[] = {Outcome::kFailed, Outcome::kInterrupted,
                                    Outcome::kConnectionLost};

JobFacts facts(bool has_upload, bool pull_on_failure = true, bool job_failed = false) {
  JobFacts f;
  f.has_upload = has_upload;
  f.pull_on_failure = pull_on_failure;
  f.job_failed = job_failed;
  return f;
}

// Follows the table from kPlan with every phase succeeding; returns the phases visited.
std::vector<Phase> happy_path(const JobFacts& f) {
  std::vector<Phase> seen{Phase::kPlan};
  for (int guard = 0; seen.back() != Phase::kDone && guard < 20; ++guard)
    seen.push_back(next_phase(seen.back(), Outcome::kOk, f));
  return seen;
}

TEST(PhaseMachine, HappyPathWithoutUpload) {
  EXPECT_EQ(happy_path(facts(false)),
            (std::vector<Phase>{Phase::kPlan, Phase::kProvision, Phase::kWaitSsh, Phase::kSync,
                                Phase::kSetup, Phase::kRun, Phase::kPull, Phase::kDeleteGpu,
                                Phase::kReport, Phase::kDone}));
}

TEST(PhaseMachine, HappyPathWithUpload) {
  EXPECT_EQ(happy_path(facts(true)),
            (std::vector<Phase>{Phase::kPlan, Phase::kProvision, Phase::kWaitSsh, Phase::kSync,
                                Phase::kSetup, Phase::kRun, Phase::kPull, Phase::kDeleteGpu,
                                Phase::kCpuProvision, Phase::kUpload, Phase::kDeleteCpu,
                                Phase::kReport, Phase::kDone}));
}

TEST(PhaseMachine, SkippedCountsAsSuccess) {
  // An empty setup script is skipped; the job goes on to run.
  EXPECT_EQ(next_phase(Phase::kSetup, Outcome::kSkipped, facts(false)), Phase::kRun);
  EXPECT_EQ(next_phase(Phase::kRun, Outcome::kSkipped, facts(false)), Phase::kPull);
  EXPECT_EQ(next_phase(Phase::kDeleteGpu, Outcome::kSkipped, facts(true)), Phase::kCpuProvision);
}

TEST(PhaseMachine, EveryFailureBeforeRunDeletesTheGpuPod) {
  for (Phase p : {Phase::kProvision, Phase::kWaitSsh, Phase::kSync, Phase::kSetup}) {
    for (Outcome o : kBadOutcomes) {
      for (bool upload : {false, true}) {
        for (bool pull : {false, true}) {
          SCOPED_TRACE(std::string(to_string(p)) + " " + to_string(o));
          EXPECT_EQ(next_phase(p, o, facts(upload, pull, true)), Phase::kDeleteGpu);
        }
      }
    }
  }
}

TEST(PhaseMachine, FailedRunPullsWhenPullOnFailure) {
  EXPECT_EQ(next_phase(Phase::kRun, Outcome::kFailed, facts(false, true, true)), Phase::kPull);
}

TEST(PhaseMachine, FailedRunDeletesWhenNotPullOnFailure) {
  EXPECT_EQ(next_phase(Phase::kRun, Outcome::kFailed, facts(false, false, true)),
            Phase::kDeleteGpu);
}

TEST(PhaseMachine, ConnectionLostDuringRunDeletesWithoutPull) {
  for (bool pull : {false, true})
    EXPECT_EQ(next_phase(Phase::kRun, Outcome::kConnectionLost, facts(true, pull, true)),
              Phase::kDeleteGpu);
}

TEST(PhaseMachine, InterruptedRunPullsWhatExists) {
  EXPECT_EQ(next_phase(Phase::kRun, Outcome::kInterrupted, facts(false, true, true)), Phase::kPull);
  EXPECT_EQ(next_phase(Phase::kRun, Outcome::kInterrupted, facts(false, false, true)),
            Phase::kDeleteGpu);
}

TEST(PhaseMachine, PullAlwaysGoesOnToDelete) {
  for (Outcome o : kAllOutcomes)
    EXPECT_EQ(next_phase(Phase::kPull, o, facts(true, true, false)), Phase::kDeleteGpu)
        << to_string(o);
}

TEST(PhaseMachine, FailedJobReportsAfterGpuDeleteWithoutCpuHandOff) {
  EXPECT_EQ(next_phase(Phase::kDeleteGpu, Outcome::kOk, facts(true, true, true)), Phase::kReport);
  EXPECT_EQ(next_phase(Phase::kDeleteGpu, Outcome::kOk, facts(false, true, true)), Phase::kReport);
}

TEST(PhaseMachine, FailedGpuDeleteSkipsCpuHandOff) {
  EXPECT_EQ(next_phase(Phase::kDeleteGpu, Outcome::kFailed, facts(true)), Phase::kReport);
}

TEST(PhaseMachine, CpuPodIsDeletedWhateverHappensToTheUpload) {
  EXPECT_EQ(next_phase(Phase::kCpuProvision, Outcome::kOk, facts(true)), Phase::kUpload);
  for (Outcome o : kBadOutcomes)
    EXPECT_EQ(next_phase(Phase::kCpuProvision, o, facts(true, true, true)), Phase::kDeleteCpu)
        << to_string(o);
  for (Outcome o : kAllOutcomes) {
    EXPECT_EQ(next_phase(Phase::kUpload, o, facts(true)), Phase::kDeleteCpu) << to_string(o);
    EXPECT_EQ(next_phase(Phase::kDeleteCpu, o, facts(true)), Phase::kReport) << to_string(o);
  }
}

TEST(PhaseMachine, PlanFailureReportsWithoutDeletingAnything) {
  for (Outcome o : kBadOutcomes)
    EXPECT_EQ(next_phase(Phase::kPlan, o, facts(true, true, true)), Phase::kReport) << to_string(o);
}

TEST(PhaseMachine, ReportEndsTheJob) {
  for (Outcome o : kAllOutcomes) {
    EXPECT_EQ(next_phase(Phase::kReport, o, facts(false)), Phase::kDone);
    EXPECT_EQ(next_phase(Phase::kDone, o, facts(false)), Phase::kDone);
  }
}

TEST(PhaseMachine, NamesAsTheUserSeesThem) {
  EXPECT_STREQ(to_string(Phase::kWaitSsh), "wait-for-ssh");
  EXPECT_STREQ(to_string(Phase::kDeleteGpu), "delete-gpu-pod");
  EXPECT_STREQ(to_string(Phase::kDeleteCpu), "delete-cpu-pod");
  EXPECT_STREQ(to_string(Outcome::kConnectionLost), "connection-lost");
  EXPECT_STREQ(to_string(Outcome::kSkipped), "skipped");
}

// --- Exhaustive search ------------------------------------------------------------------------
// Explores every outcome of every phase, and both values of job_failed at every step (the runner
// sets it; the table must be safe whatever it says), from a start phase until kReport. Records a
// violation whenever kReport is reached while a pod that may exist has not been through its
// delete phase.
using NextFn = Phase (*)(Phase, Outcome, const JobFacts&);

class Explorer {
 public:
  explicit Explorer(JobFacts base, NextFn next = &next_phase) : base_(base), next_(next) {}

  void explore(Phase start) {
    path_ = {to_string(start)};
    dfs(start, /*job_failed=*/false, /*gpu_deleted=*/false, /*cpu_open=*/false, 0);
    path_ = {to_string(start)};
    dfs(start, /*job_failed=*/true, /*gpu_deleted=*/false, /*cpu_open=*/false, 0);
  }

  std::vector<std::string> violations;
  int reports_reached = 0;

 private:
  void dfs(Phase p, bool job_failed, bool gpu_deleted, bool cpu_open, int depth) {
    if (depth > 20) {
      violations.push_back("no end: " + joined());
      return;
    }
    if (!visited_.insert({p, job_failed, gpu_deleted, cpu_open}).second) return;
    // What may exist once `p` has run, whatever its outcome.
    const bool deleted = gpu_deleted || p == Phase::kDeleteGpu;
    const bool cpu = (cpu_open || p == Phase::kCpuProvision) && p != Phase::kDeleteCpu;
    for (Outcome o : kAllOutcomes) {
      JobFacts f = base_;
      f.job_failed = job_failed;
      const Phase next = next_(p, o, f);
      path_.push_back(std::string("-") + to_string(o) + "-> " + to_string(next));
      if (next == Phase::kPlan || next == Phase::kProvision)
        violations.push_back("goes back: " + joined());
      if (next == Phase::kUploadOnGpu && deleted)
        violations.push_back("upload on a deleted GPU pod: " + joined());
      if (next == Phase::kUploadLocal && !deleted)
        violations.push_back("local upload while the GPU pod bills: " + joined());
      if (next == Phase::kDone && p != Phase::kReport && p != Phase::kDone)
        violations.push_back("done without report: " + joined());
      if (next == Phase::kReport) {
        ++reports_reached;
        if (!deleted) violations.push_back("GPU pod not deleted: " + joined());
        if (cpu) violations.push_back("CPU pod not deleted: " + joined());
      } else if (next != Phase::kDone) {
        for (bool jf : {false, true}) dfs(next, jf, deleted, cpu, depth + 1);
      }
      path_.pop_back();
    }
  }

  std::string joined() const {
    std::string s;
    for (const auto& step : path_) s += step + " ";
    return s;
  }

  JobFacts base_;
  NextFn next_;
  std::vector<std::string> path_;
  std::set<std::tuple<Phase, bool, bool, bool>> visited_;
};

TEST(PhaseMachine, NoPathFromProvisionToReportSkipsTheGpuDelete) {
  const Phase starts[] = {Phase::kProvision, Phase::kWaitSsh, Phase::kSync,
                          Phase::kSetup,     Phase::kRun,     Phase::kPull};
  for (Handoff handoff : {Handoff::kCpuPod, Handoff::kGpuPod, Handoff::kLocal}) {
    for (bool upload : {false, true}) {
      for (bool pull : {false, true}) {
        for (Phase start : starts) {
          SCOPED_TRACE(
              std::string("start=") + to_string(start) + " upload=" + (upload ? "yes" : "no") +
              " pull_on_failure=" + (pull ? "yes" : "no") + " handoff=" + to_string(handoff));
          JobFacts f = facts(upload, pull);
          f.handoff = handoff;
          Explorer ex(f);
          ex.explore(start);
          EXPECT_EQ(ex.violations, std::vector<std::string>{});
          EXPECT_GT(ex.reports_reached, 0);  // the search did reach the report
        }
      }
    }
  }
}

JobFacts handoff_facts(Handoff h) {
  JobFacts f = facts(true);
  f.handoff = h;
  return f;
}

TEST(PhaseMachine, GpuPodHandOffUploadsBeforeTheGpuDelete) {
  const std::vector<Phase> want = {Phase::kPlan,   Phase::kProvision,   Phase::kWaitSsh,
                                   Phase::kSync,   Phase::kSetup,       Phase::kRun,
                                   Phase::kPull,   Phase::kUploadOnGpu, Phase::kDeleteGpu,
                                   Phase::kReport, Phase::kDone};
  EXPECT_EQ(happy_path(handoff_facts(Handoff::kGpuPod)), want);
  for (Outcome o : kAllOutcomes)
    EXPECT_EQ(next_phase(Phase::kUploadOnGpu, o, handoff_facts(Handoff::kGpuPod)),
              Phase::kDeleteGpu)
        << to_string(o);
  // A failed job does not upload, whatever the hand-off.
  JobFacts failed = handoff_facts(Handoff::kGpuPod);
  failed.job_failed = true;
  EXPECT_EQ(next_phase(Phase::kPull, Outcome::kOk, failed), Phase::kDeleteGpu);
  EXPECT_EQ(next_phase(Phase::kPull, Outcome::kFailed, handoff_facts(Handoff::kGpuPod)),
            Phase::kDeleteGpu);
}

TEST(PhaseMachine, LocalHandOffUploadsAfterTheGpuDelete) {
  const std::vector<Phase> want = {Phase::kPlan,   Phase::kProvision, Phase::kWaitSsh,
                                   Phase::kSync,   Phase::kSetup,     Phase::kRun,
                                   Phase::kPull,   Phase::kDeleteGpu, Phase::kUploadLocal,
                                   Phase::kReport, Phase::kDone};
  EXPECT_EQ(happy_path(handoff_facts(Handoff::kLocal)), want);
  EXPECT_EQ(next_phase(Phase::kDeleteGpu, Outcome::kFailed, handoff_facts(Handoff::kLocal)),
            Phase::kReport);
}

// The search catches an upload run on the GPU pod after it was deleted.
Phase late_gpu_upload(Phase p, Outcome o, const JobFacts& f) {
  if (p == Phase::kDeleteGpu && o == Outcome::kOk && !f.job_failed) return Phase::kUploadOnGpu;
  return next_phase(p, o, f);
}

TEST(PhaseMachine, ExhaustiveSearchCatchesAnUploadOnADeletedGpuPod) {
  Explorer ex(handoff_facts(Handoff::kGpuPod), &late_gpu_upload);
  ex.explore(Phase::kProvision);
  ASSERT_FALSE(ex.violations.empty());
  EXPECT_NE(ex.violations[0].find("upload on a deleted GPU pod"), std::string::npos)
      << ex.violations[0];
}

// The search must be able to fail: a table where a failed sync jumps to the report is caught.
Phase broken_next(Phase p, Outcome o, const JobFacts& f) {
  if (p == Phase::kSync && o == Outcome::kFailed) return Phase::kReport;
  return next_phase(p, o, f);
}

TEST(PhaseMachine, ExhaustiveSearchCatchesATableThatSkipsTheDelete) {
  Explorer ex(facts(false), &broken_next);
  ex.explore(Phase::kProvision);
  ASSERT_FALSE(ex.violations.empty());
  EXPECT_NE(ex.violations[0].find("GPU pod not deleted: provision -ok-> wait-for-ssh -ok-> sync "
                                  "-failed-> report"),
            std::string::npos)
      << ex.violations[0];
}

}  // namespace
}  // namespace burst

namespace burst {
namespace {

JobFacts prepare_facts(PrepareWhere where, bool upload = false) {
  JobFacts f = facts(upload);
  f.prepare = where;
  return f;
}

TEST(PhaseMachine, PrepareOnACpuPodRunsAndDeletesItBeforeTheGpuPodExists) {
  EXPECT_EQ(happy_path(prepare_facts(PrepareWhere::kCpuPod)),
            (std::vector<Phase>{Phase::kPlan, Phase::kPrepareCpu, Phase::kPrepare,
                                Phase::kDeletePrepareCpu, Phase::kProvision, Phase::kWaitSsh,
                                Phase::kSync, Phase::kSetup, Phase::kRun, Phase::kPull,
                                Phase::kDeleteGpu, Phase::kReport, Phase::kDone}));
  // Whatever the prepare phases do, their pod's delete comes next, and a failure never creates
  // the GPU pod.
  for (Outcome o : kAllOutcomes) {
    SCOPED_TRACE(to_string(o));
    const bool ok = o == Outcome::kOk || o == Outcome::kSkipped;
    JobFacts f = prepare_facts(PrepareWhere::kCpuPod);
    EXPECT_EQ(next_phase(Phase::kPrepareCpu, o, f),
              ok ? Phase::kPrepare : Phase::kDeletePrepareCpu);
    EXPECT_EQ(next_phase(Phase::kPrepare, o, f), Phase::kDeletePrepareCpu);
    EXPECT_EQ(next_phase(Phase::kDeletePrepareCpu, o, f), ok ? Phase::kProvision : Phase::kReport);
    f.job_failed = true;  // the step failed: its pod is deleted, then the report
    EXPECT_EQ(next_phase(Phase::kDeletePrepareCpu, o, f), Phase::kReport);
  }
}

TEST(PhaseMachine, PrepareOnTheGpuPodRunsBeforeTheSyncAndFailsThroughTheDelete) {
  EXPECT_EQ(happy_path(prepare_facts(PrepareWhere::kGpuPod)),
            (std::vector<Phase>{Phase::kPlan, Phase::kProvision, Phase::kWaitSsh, Phase::kPrepare,
                                Phase::kSync, Phase::kSetup, Phase::kRun, Phase::kPull,
                                Phase::kDeleteGpu, Phase::kReport, Phase::kDone}));
  for (Outcome o : kBadOutcomes)
    EXPECT_EQ(next_phase(Phase::kPrepare, o, prepare_facts(PrepareWhere::kGpuPod)),
              Phase::kDeleteGpu)
        << to_string(o);
  // The search of every path from the GPU pod's creation still finds no pod left behind.
  Explorer ex(prepare_facts(PrepareWhere::kGpuPod, true));
  ex.explore(Phase::kProvision);
  EXPECT_EQ(ex.violations, std::vector<std::string>{});
}

}  // namespace
}  // namespace burst
