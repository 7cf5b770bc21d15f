// What every emulated-cloud e2e test of `burst run examples/tts-render.yaml` shares: the example
// copied into the test's home, config.yaml pointing a provider at the in-process emulator, and
// the check that the API key appears nowhere a user (or an attacker reading files) could see it.
#pragma once

#include <string>
#include <vector>

#include "e2e/burst_harness.h"
#include "fakecloud/fake_cloud.h"

namespace burst::testing {

// How many of the example's 300 questions the copy keeps (the first ones): the render is the
// example's Python, not burst, and 300 clips at one step cost about 9 CPU seconds where 40 cost 1,
// in each of the dozen tests that run it (E2EDemo renders the example as it ships).
inline constexpr int kExampleQuestionsInTests = 40;

// Copies examples/tts-render{,.yaml} into home.work(), its questions.txt cut to the first
// kExampleQuestionsInTests lines; returns the spec's path.
// `steps`: the example's TTS_STEPS in the copy. One denoising step, not the shipped eight, by
// default: these tests exercise burst's path on a cloud, not the render, and one step is about
// a third of the render's CPU.
std::string copy_tts_example(const BurstHome& home, const std::string& steps = "1");

// Writes home.root()/config/config.yaml with providers.<provider>.base_url, plus `extra`
// settings of that provider, one "key: value" per line (e.g. "ssh_user: root").
void write_provider_config(const BurstHome& home, const std::string& provider,
                           const std::string& base_url, const std::vector<std::string>& extra = {});

// The key is in no output, no file under home (db, logs, reports, emulator state), not in the
// emulator's state or request log, and every logged request carried it only in its header.
void expect_key_nowhere(const BurstHome& home, fakecloud::FakeCloud& cloud, const std::string& out,
                        const std::string& err, const std::string& key);

}  // namespace burst::testing
