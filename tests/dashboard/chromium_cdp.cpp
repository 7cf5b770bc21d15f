#include "dashboard/chromium_cdp.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace burst::testing {
namespace {

using nlohmann::json;

std::string cdp_base64_decode(const std::string& in) {
  static const std::string kChars =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int val = 0, bits = -8;
  for (char c : in) {
    const size_t pos = kChars.find(c);
    if (pos == std::string::npos) continue;  // '=' and whitespace
    val = (val << 6) + static_cast<int>(pos);
    bits += 6;
    if (bits >= 0) {
      out.push_back(static_cast<char>((val >> bits) & 0xff));
      bits -= 8;
    }
  }
  return out;
}

}  // namespace

std::string ChromiumCdp::find() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const char* path = getenv("PATH");
    std::stringstream dirs(path ? path : "");
    for (std::string d; std::getline(dirs, d, ':');)
      if (!d.empty() && access((d + "/" + name).c_str(), X_OK) == 0) return d + "/" + name;
  }
  return "";
}

ChromiumCdp::ChromiumCdp(const std::string& binary, const std::string& profile_dir) {
  int in[2], out[2];  // in: we write, the browser reads fd 3; out: it writes fd 4, we read
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
    why_ = "pipe failed";
    return;
  }
  signal(SIGPIPE, SIG_IGN);  // a browser that exits must not take the test with it
  const std::string log = profile_dir + ".log";
  pid_ = fork();
  if (pid_ == 0) {
    // Move both ends above 4 first (either may be 3 or 4), then onto 3 and 4, inheritable.
    const int read_end = fcntl(in[0], F_DUPFD, 10), write_end = fcntl(out[1], F_DUPFD, 10);
    dup2(read_end, 3);
    dup2(write_end, 4);
    fcntl(3, F_SETFD, 0);
    fcntl(4, F_SETFD, 0);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    int logfd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(logfd, 1);
    dup2(logfd, 2);
    const std::string profile = "--user-data-dir=" + profile_dir;
    execl(binary.c_str(), binary.c_str(), "--headless=new", "--no-sandbox", "--disable-gpu",
          "--disable-dev-shm-usage", "--no-first-run", "--disable-extensions",
          "--disable-background-networking", "--disable-sync", "--mute-audio",
          "--remote-debugging-pipe", "--window-size=1000,1400", profile.c_str(), "about:blank",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  to_browser_ = in[1];
  from_browser_ = out[0];
  if (pid_ < 0) {
    why_ = "fork failed";
    return;
  }
  json targets = call("Target.getTargets", json::object(), false, 60);
  std::string target;
  if (targets.contains("targetInfos"))
    for (const auto& t : targets["targetInfos"])
      if (t.value("type", "") == "page") target = t.value("targetId", "");
  if (target.empty()) {
    json made = call("Target.createTarget", {{"url", "about:blank"}}, false);
    target = made.value("targetId", "");
  }
  if (target.empty()) {
    why_ = "no page target (is chromium working? see " + log + ")";
    return;
  }
  json attached = call("Target.attachToTarget", {{"targetId", target}, {"flatten", true}}, false);
  session_ = attached.value("sessionId", "");
  if (session_.empty()) {
    why_ = "attach failed: " + attached.dump();
    return;
  }
  call("Page.enable", json::object(), true);
  call("Runtime.enable", json::object(), true);
  call("Log.enable", json::object(), true);
}

ChromiumCdp::~ChromiumCdp() {
  if (pid_ > 0) {
    if (to_browser_ >= 0) (void)call("Browser.close", json::object(), false, 5);
    for (int i = 0; i < 50; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  if (to_browser_ >= 0) close(to_browser_);
  if (from_browser_ >= 0) close(from_browser_);
}

bool ChromiumCdp::read_message(json* out, int timeout_ms) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    const size_t nul = buf_.find('\0');
    if (nul != std::string::npos) {
      *out = json::parse(buf_.substr(0, nul), nullptr, false);
      buf_.erase(0, nul + 1);
      return true;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          end - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) return false;
    pollfd p{from_browser_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
    char chunk[65536];
    ssize_t n = read(from_browser_, chunk, sizeof chunk);
    if (n <= 0) {
      closed_ = true;  // the browser exited
      return false;
    }
    buf_.append(chunk, static_cast<size_t>(n));
  }
}

void ChromiumCdp::on_event(const json& m) {
  const std::string method = m.value("method", "");
  const json& p = m.contains("params") ? m["params"] : json::object();
  if (method == "Page.loadEventFired") ++loads_;
  if (method == "Runtime.consoleAPICalled" && p.value("type", "") == "error")
    errors_.push_back("console.error: " + p.dump());
  if (method == "Runtime.exceptionThrown") errors_.push_back("exception: " + p.dump());
  if (method == "Log.entryAdded" && p.contains("entry") && p["entry"].value("level", "") == "error")
    errors_.push_back("log: " + p["entry"].value("text", "") + " " + p["entry"].value("url", ""));
}

json ChromiumCdp::call(const std::string& method, const json& params, bool on_page, int timeout_s) {
  if (to_browser_ < 0) return nullptr;
  const int id = next_id_++;
  json msg = {{"id", id}, {"method", method}, {"params", params}};
  if (on_page) msg["sessionId"] = session_;
  std::string wire = msg.dump();
  wire.push_back('\0');
  for (size_t done = 0; done < wire.size();) {
    ssize_t n = write(to_browser_, wire.data() + done, wire.size() - done);
    if (n <= 0) return nullptr;
    done += static_cast<size_t>(n);
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (std::chrono::steady_clock::now() < end && !closed_) {
    json m;
    if (!read_message(&m, 200)) continue;
    if (m.contains("id") && m["id"] == id) {
      if (m.contains("error")) return json{{"__error", m["error"]}};
      return m.value("result", json::object());
    }
    on_event(m);
  }
  return nullptr;
}

bool ChromiumCdp::navigate(const std::string& url, int timeout_s) {
  const int before = loads_;
  json r = call("Page.navigate", {{"url", url}}, true, timeout_s);
  if (r.is_null() || r.contains("__error") || r.contains("errorText")) {
    errors_.push_back("navigate " + url + ": " + (r.is_null() ? "no answer" : r.dump()));
    return false;
  }
  return wait_for_load_after(before, timeout_s);
}

bool ChromiumCdp::wait_for_load_after(int before, int timeout_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (loads_ <= before && std::chrono::steady_clock::now() < end && !closed_) {
    json m;
    if (read_message(&m, 200)) on_event(m);
  }
  return loads_ > before;
}

json ChromiumCdp::eval(const std::string& expression, int timeout_s) {
  json r = call("Runtime.evaluate",
                {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}}, true,
                timeout_s);
  if (r.is_null() || r.contains("__error") || r.contains("exceptionDetails")) return nullptr;
  return r["result"].value("value", json(nullptr));
}

bool ChromiumCdp::eval_and_wait_load(const std::string& expression, int timeout_s) {
  const int before = loads_;
  (void)eval(expression, timeout_s);
  return wait_for_load_after(before, timeout_s);
}

bool ChromiumCdp::wait_for(const std::string& predicate, int timeout_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  while (std::chrono::steady_clock::now() < end) {
    if (eval("!!(" + predicate + ")") == json(true)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

bool ChromiumCdp::screenshot(const std::string& path) {
  json r = call("Page.captureScreenshot", {{"format", "png"}, {"captureBeyondViewport", true}},
                true, 30);
  if (r.is_null() || !r.contains("data")) return false;
  std::ofstream(path, std::ios::binary) << cdp_base64_decode(r["data"].get<std::string>());
  return true;
}

}  // namespace burst::testing
