// One HTTP request in, one response (or a classified transport failure) out: the seam every cloud
// driver talks through. The libcurl adapter lives in src/http/curl_http_client.h; tests use a fake.
// An HTTP status, even 500, is not an error at this level: api_call (src/http/api_call.h) maps it.
#pragma once

#include <map>
#include <string>

#include "burst/result.h"

namespace burst {

struct HttpRequest {
  std::string method = "GET";                  // GET, POST, PUT, PATCH, DELETE
  std::string url;                             // absolute: base URL + path (+ query)
  std::map<std::string, std::string> headers;  // API keys travel here and nowhere else
  std::string body;
  // Whether sending it twice has the same effect as once. A non-idempotent request (a create)
  // is never retried once it may have reached the server.
  bool idempotent = true;
};

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string>
      headers;  // names lower-cased; a repeated header keeps the last
  std::string body;

  // The header's value, or "" when absent. `lower_name` must be lower case.
  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? "" : it->second;
  }
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // Transport failures only:
  //   kConnection  the request never reached the server (resolve or connect failed): safe to
  //                send again, even a create;
  //   kTimeout     the connect or total timeout passed; the request may have been processed;
  //   kUnavailable the connection broke mid-exchange; the request may have been processed.
  virtual Result<HttpResponse> send(const HttpRequest& request) = 0;
};

}  // namespace burst
