// A pod that answers the artefact pull's command with scripted bytes (issue 15's hostile pod,
// without sshd): open_stream returns a stream that replays `script`, then bytes from `endless`
// when set, and records what the client wrote to the command's stdin (the pull's plan).
#pragma once

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "burst/remote.h"

namespace burst {

class ScriptedPod : public RemoteSession {
 public:
  std::string script;
  // When set, called for more bytes once the script is exhausted; returns 0 to end the stream.
  std::function<size_t(char*, size_t)> endless;
  std::string stdin_seen;
  uint64_t bytes_read = 0;  // stdout bytes the client took
  int streams = 0;

  Result<int> exec(const std::string&, const OutputSink&, const std::function<bool()>&) override {
    return make_error(ErrorCode::kInternal, "scripted pod: exec");
  }
  Result<std::string> run_capture(const std::string&) override {
    return make_error(ErrorCode::kInternal, "scripted pod: run_capture");
  }
  Status upload(const std::string&, const std::string&, uint32_t, int64_t) override {
    return make_error(ErrorCode::kInternal, "scripted pod: upload");
  }
  Status write_file(const std::string&, const std::string&, uint32_t) override {
    return make_error(ErrorCode::kInternal, "scripted pod: write_file");
  }
  Status mkdirs(const std::string&, uint32_t) override {
    return make_error(ErrorCode::kInternal, "scripted pod: mkdirs");
  }
  Result<RemoteFileInfo> stat(const std::string&) override {
    return make_error(ErrorCode::kInternal, "scripted pod: stat");
  }
  Status download(const std::string&, const std::string&) override {
    return make_error(ErrorCode::kInternal, "scripted pod: download");
  }
  Result<std::unique_ptr<RemoteStream>> open_stream(const std::string&) override {
    streams++;
    return std::unique_ptr<RemoteStream>(std::make_unique<Stream>(*this));
  }

 private:
  struct Stream : RemoteStream {
    explicit Stream(ScriptedPod& p) : pod(p) {}
    Status write(const char* d, size_t n) override {
      pod.stdin_seen.append(d, n);
      return Status::Ok();
    }
    Status close_stdin() override { return Status::Ok(); }
    Result<size_t> read(char* d, size_t n) override {
      n = std::min<size_t>(n, 64 * 1024);
      size_t k = 0;
      if (pos < pod.script.size()) {
        k = std::min(n, pod.script.size() - pos);
        std::memcpy(d, pod.script.data() + pos, k);
        pos += k;
      } else if (pod.endless) {
        k = pod.endless(d, n);
      }
      pod.bytes_read += k;
      return k;
    }
    Result<int> finish(std::string* err) override {
      if (err) err->clear();
      return 0;
    }
    ScriptedPod& pod;
    size_t pos = 0;
  };
};

}  // namespace burst
