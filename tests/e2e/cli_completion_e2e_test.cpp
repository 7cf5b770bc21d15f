// `burst completion bash|zsh|fish`, generated from the command table: bash's own `complete -p`
// and the completion function, run as bash runs it on Tab, offer subcommands, flags, provider
// names and job ids (the latter two through `burst __complete`).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <fstream>

#include "e2e/burst_harness.h"

namespace burst::testing {
namespace {

// Runs `script` under bash with burst's completion loaded; returns its stdout.
std::string bash_with_completion(const BurstHome& home, const std::string& script) {
  const std::string out_path = home.root() + "/bash.out";
  const pid_t pid = spawn_logged({"/bin/bash", "--norc", "-c", script}, home.env(), out_path,
                                 home.root() + "/bash.err");
  int status = 0;
  if (pid <= 0 || waitpid(pid, &status, 0) != pid) return "";
  return read_file(out_path);
}

// What Tab offers after `words` (the last one being completed).
std::string tab(const BurstHome& home, const std::string& completion_file,
                const std::string& words) {
  return bash_with_completion(home, "source '" + completion_file + "'\nCOMP_WORDS=('" +
                                        BURST_BINARY + "' " + words +
                                        ")\nCOMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n_burst\n"
                                        "echo \"${COMPREPLY[*]}\"\n");
}

TEST(E2ECompletion, BashCompletesCommandsFlagsProvidersAndJobIds) {
  BurstHome home;
  std::string script, err;
  ASSERT_EQ(run_burst(home, {"completion", "bash"}, &script, &err), 0) << err;
  const std::string file = home.root() + "/burst.bash";
  std::ofstream(file) << script;
  EXPECT_EQ(bash_with_completion(home, "source '" + file + "'\ncomplete -p burst\n"),
            "complete -o default -F _burst burst\n");
  EXPECT_EQ(tab(home, file, "ru"), "run\n");
  const std::string all = tab(home, file, "''");
  for (const char* cmd : {"run", "ssh", "exec", "logs", "completion", "volumes"})
    EXPECT_NE((" " + all).find(std::string(" ") + cmd + " "), std::string::npos) << all;
  EXPECT_EQ(all.find("__complete"), std::string::npos) << "the helper stays hidden";
  EXPECT_EQ(tab(home, file, "run job.yaml --dr"), "--dry-run\n");
  EXPECT_EQ(tab(home, file, "plan job.yaml --provider lo"), "local\n");
  EXPECT_EQ(tab(home, file, "completion z"), "zsh\n");

  // Job ids come from the store.
  const std::string spec =
      home.write("j.yaml", "name: j\nresources: {providers: [local]}\nrun: echo hi\n");
  ASSERT_EQ(run_burst(home, {"run", spec}, nullptr, &err), 0) << err;
  std::string jobs;
  ASSERT_EQ(run_burst(home, {"__complete", "jobs"}, &jobs, &err), 0) << err;
  ASSERT_EQ(std::count(jobs.begin(), jobs.end(), '\n'), 1) << jobs;  // one id, one line
  ASSERT_GT(jobs.size(), 5u) << jobs;
  EXPECT_EQ(tab(home, file, "logs " + jobs.substr(0, 4)), jobs);
}

TEST(E2ECompletion, ZshAndFishScriptsNameEveryCommand) {
  BurstHome home;
  std::string zsh, fish, err;
  ASSERT_EQ(run_burst(home, {"completion", "zsh"}, &zsh, &err), 0) << err;
  ASSERT_EQ(run_burst(home, {"completion", "fish"}, &fish, &err), 0) << err;
  EXPECT_EQ(zsh.rfind("#compdef burst\n", 0), 0u) << zsh;
  for (const char* cmd : {"run", "ssh", "exec", "logs", "report"}) {
    EXPECT_NE(zsh.find(std::string(" ") + cmd), std::string::npos) << cmd;
    EXPECT_NE(fish.find(std::string("-a ") + cmd + " -d "), std::string::npos) << cmd;
  }
  EXPECT_NE(fish.find("-l provider"), std::string::npos);
  EXPECT_NE(fish.find("(burst __complete jobs)"), std::string::npos);
}

}  // namespace
}  // namespace burst::testing
