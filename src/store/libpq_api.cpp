#include "store/libpq_api.h"

#include "util/dynlib.h"

namespace burst::libpq_dl {
namespace {

Api g_api;

#ifdef BURST_LIBPQ_DIR
constexpr const char* kBuildDir = BURST_LIBPQ_DIR;
#else
constexpr const char* kBuildDir = "";
#endif

#define BURST_LIBPQ_SYMBOL(fn) dyn_symbol(#fn, &g_api.fn),
Status load_once() {
  Status loaded = load_api("libpq", DynLib::names_for("libpq.so.5", "libpq.5.dylib", kBuildDir),
                           {BURST_LIBPQ_FUNCTIONS(BURST_LIBPQ_SYMBOL)}, ErrorCode::kUnavailable,
                           " (PostgreSQL's client library; Debian: libpq5)");
  return loaded;
}
#undef BURST_LIBPQ_SYMBOL

}  // namespace

// A function-local static is initialised once, thread-safe, and keeps the first answer.
Status load() {
  static const Status result = load_once();
  return result;
}

const Api& api() { return g_api; }

}  // namespace burst::libpq_dl
