#include "http/libcurl_api.h"

#include <mutex>

#include "util/dynlib.h"

namespace burst::libcurl_dl {
namespace {

Api g_api;

#ifdef BURST_LIBCURL_DIR
constexpr const char* kBuildDir = BURST_LIBCURL_DIR;
#else
constexpr const char* kBuildDir = "";
#endif

Status load_once() {
  auto lib = DynLib::open(DynLib::names_for("libcurl.so.4", "libcurl.4.dylib", kBuildDir));
  if (!lib.ok()) return make_error(ErrorCode::kInternal, "libcurl: " + lib.error().message);
  std::string why;
#define BURST_LIBCURL_RESOLVE(fn)                                          \
  g_api.fn = reinterpret_cast<decltype(g_api.fn)>(lib->symbol(#fn, &why)); \
  if (!g_api.fn) return make_error(ErrorCode::kInternal, "libcurl: missing symbol " + why);
  BURST_LIBCURL_FUNCTIONS(BURST_LIBCURL_RESOLVE)
#undef BURST_LIBCURL_RESOLVE
  // Not thread-safe in older libcurl, hence here, under the once-flag.
  if (g_api.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
    return make_error(ErrorCode::kInternal, "libcurl: curl_global_init failed");
  return Status::Ok();
}

}  // namespace

Status load() {
  static std::once_flag once;
  static Status result;
  std::call_once(once, [] { result = load_once(); });
  return result;
}

const Api& api() { return g_api; }

}  // namespace burst::libcurl_dl
