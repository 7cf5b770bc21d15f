#include "driver_common.h"

#include <cctype>

namespace burst {

Status need_api_key(const std::string& provider, const std::string& api_key) {
  if (!api_key.empty()) return Status::Ok();
  std::string var = provider;
  for (auto& c : var) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return make_error(ErrorCode::kAuth, provider + ": no API key (set " + var +
                                          "_API_KEY, or providers." + provider +
                                          ".api_key in config.yaml)");
}

std::string ssh_key_body(const std::string& key) {
  size_t start = key.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) return "";
  size_t sp = key.find(' ', start);
  if (sp == std::string::npos) return key.substr(start);
  size_t sp2 = key.find_first_of(" \t\r\n", sp + 1);
  return key.substr(start, sp2 == std::string::npos ? std::string::npos : sp2 - start);
}

Result<HttpResponse> call_api(const ApiCaller& api, const std::string& base_url,
                              const std::string& method, const std::string& path, std::string body,
                              bool idempotent) {
  return api_call(
      api, bearer_request(method, base_url + path, api.api_key, std::move(body), idempotent));
}

}  // namespace burst
