// Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
// messages ending in NUL on fds 3 and 4), so a test can load a page, run script in it (click a
// button, read the DOM), wait for a condition, take a screenshot, and collect every console error,
// uncaught exception and failed load. No websocket, no third-party driver.
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace burst::testing {

class ChromiumCdp {
 public:
  // The browser's path on $PATH ("" when none: tests skip, saying so).
  static std::string find();

  ChromiumCdp(const std::string& binary, const std::string& profile_dir);
  ~ChromiumCdp();  // closes the browser (kills it if it does not exit)
  ChromiumCdp(const ChromiumCdp&) = delete;
  ChromiumCdp& operator=(const ChromiumCdp&) = delete;

  bool ok() const { return !session_.empty(); }
  const std::string& why() const { return why_; }

  // Loads `url` and waits for its load event (false after `timeout_s`).
  bool navigate(const std::string& url, int timeout_s = 20);
  // Evaluates `expression` (awaiting a promise) and returns its value as JSON (null on error).
  nlohmann::json eval(const std::string& expression, int timeout_s = 20);
  // Runs `expression` that starts a navigation (a form submit) and waits for the next load.
  bool eval_and_wait_load(const std::string& expression, int timeout_s = 20);
  // Polls `predicate` (an expression) every 100 ms until it is true.
  bool wait_for(const std::string& predicate, int timeout_s);
  // A PNG of the page (the whole document) to `path`.
  bool screenshot(const std::string& path);

  // Console errors, uncaught exceptions and failed loads seen so far, one line each.
  const std::vector<std::string>& errors() const { return errors_; }

 private:
  nlohmann::json call(const std::string& method, const nlohmann::json& params, bool on_page,
                      int timeout_s = 20);
  bool read_message(nlohmann::json* out, int timeout_ms);
  void on_event(const nlohmann::json& m);
  bool wait_for_load_after(int before, int timeout_s);

  pid_t pid_ = -1;
  int to_browser_ = -1, from_browser_ = -1;
  std::string buf_;
  int next_id_ = 1;
  std::string session_;
  std::string why_;
  bool closed_ = false;  // the pipe ended
  int loads_ = 0;        // Page.loadEventFired seen
  std::vector<std::string> errors_;
};

}  // namespace burst::testing
