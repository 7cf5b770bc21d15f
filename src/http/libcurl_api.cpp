#include "http/libcurl_api.h"

#include "util/dynlib.h"

namespace burst::libcurl_dl {
namespace {

Api g_api;

#ifdef BURST_LIBCURL_DIR
constexpr const char* kBuildDir = BURST_LIBCURL_DIR;
#else
constexpr const char* kBuildDir = "";
#endif

#define BURST_LIBCURL_SYMBOL(fn) dyn_symbol(#fn, &g_api.fn),
Status load_once() {
  Status loaded =
      load_api("libcurl", DynLib::names_for("libcurl.so.4", "libcurl.4.dylib", kBuildDir),
               {BURST_LIBCURL_FUNCTIONS(BURST_LIBCURL_SYMBOL)});
  if (!loaded.ok()) return loaded;
  // Not thread-safe in older libcurl, hence here, once, before any other call.
  if (g_api.curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
    return make_error(ErrorCode::kInternal, "libcurl: curl_global_init failed");
  return Status::Ok();
}
#undef BURST_LIBCURL_SYMBOL

}  // namespace

// A function-local static is initialised once, thread-safe, and keeps the first answer.
Status load() {
  static const Status result = load_once();
  return result;
}

const Api& api() { return g_api; }

}  // namespace burst::libcurl_dl
