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

Result<HttpResponse> call_api(const ApiCaller& api, const std::string& base_url,
                              const std::string& method, const std::string& path, std::string body,
                              bool idempotent) {
  return api_call(
      api, bearer_request(method, base_url + path, api.api_key, std::move(body), idempotent));
}

}  // namespace burst
