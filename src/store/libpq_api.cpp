#include "store/libpq_api.h"

#include <mutex>

#include "util/dynlib.h"

namespace burst::libpq_dl {
namespace {

Api g_api;

#ifdef BURST_LIBPQ_DIR
constexpr const char* kBuildDir = BURST_LIBPQ_DIR;
#else
constexpr const char* kBuildDir = "";
#endif

Status load_once() {
  auto lib = DynLib::open(DynLib::names_for("libpq.so.5", "libpq.5.dylib", kBuildDir));
  if (!lib.ok())
    return make_error(
        ErrorCode::kUnavailable,
        "libpq (PostgreSQL's client library; Debian: libpq5): " + lib.error().message);
  std::string why;
#define BURST_LIBPQ_RESOLVE(fn)                                            \
  g_api.fn = reinterpret_cast<decltype(g_api.fn)>(lib->symbol(#fn, &why)); \
  if (!g_api.fn) return make_error(ErrorCode::kInternal, "libpq: missing symbol " + why);
  BURST_LIBPQ_FUNCTIONS(BURST_LIBPQ_RESOLVE)
#undef BURST_LIBPQ_RESOLVE
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

}  // namespace burst::libpq_dl
