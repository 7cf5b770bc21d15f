// What the user sees on the terminal while a job runs. The CLI provides a TTY-aware console;
// tests provide one that records. Everything passed here is already redacted, and already made
// terminal-safe (src/util/terminal_text.h: colours kept, other escape sequences shown as text) by
// the job runner; the terminal console applies terminal_safe again (it is idempotent), so no
// caller can put a pod's escape sequence on the user's terminal.
//
// Besides the text, the runner tells the console what it is doing as typed facts
// (phase_started), so a console that reacts to the job (the CLI's live status line) never parses
// the text, which a pod's program could imitate.
#pragma once

#include <optional>
#include <string>

#include "burst/states.h"

namespace burst {

class Console {
 public:
  virtual ~Console() = default;
  virtual void line(const std::string& text) = 0;        // a status line, kept
  virtual void remote_out(const std::string& line) = 0;  // one line of the pod's stdout
  virtual void remote_err(const std::string& line) = 0;  // one line of the pod's stderr
  // A transient progress line ("waiting for SSH 12s"); a no-op when not a TTY.
  virtual void progress(const std::string& text) = 0;
  // Asks a yes/no question; false when there is no one to ask.
  virtual bool confirm(const std::string& question) = 0;
  // A phase began: `worker` is the worker's index in a job of several (its lines carry
  // "[w<worker>] "), nullopt for a job of one pod. Called just before that phase's "==> <phase>"
  // line. Default: nothing.
  virtual void phase_started(std::optional<int> worker, Phase phase) {
    (void)worker;
    (void)phase;
  }
};

}  // namespace burst
