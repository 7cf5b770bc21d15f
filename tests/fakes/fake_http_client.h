// An HttpClient for tests: answers from a script, in order, and records every request it got.
// When the script runs out it answers 500, so a test that under-scripts fails loudly.
#pragma once

#include <deque>
#include <vector>

#include "burst/http.h"

namespace burst {

class FakeHttpClient : public HttpClient {
 public:
  Result<HttpResponse> send(const HttpRequest& request) override {
    requests_.push_back(request);
    if (script_.empty()) return HttpResponse{500, {}, "fake: script ran out"};
    Result<HttpResponse> r = script_.front();
    script_.pop_front();
    return r;
  }

  FakeHttpClient& respond(int status, std::string body = "",
                          std::map<std::string, std::string> headers = {}) {
    script_.push_back(HttpResponse{status, std::move(headers), std::move(body)});
    return *this;
  }
  FakeHttpClient& fail(ErrorCode code, std::string message) {
    script_.push_back(make_error(code, std::move(message)));
    return *this;
  }

  const std::vector<HttpRequest>& requests() const { return requests_; }
  size_t remaining() const { return script_.size(); }

 private:
  std::deque<Result<HttpResponse>> script_;
  std::vector<HttpRequest> requests_;
};

}  // namespace burst
