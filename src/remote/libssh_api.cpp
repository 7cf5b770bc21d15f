#include "remote/libssh_api.h"

#include "util/dynlib.h"

namespace burst::libssh_dl {
namespace {

Api g_api;

#ifdef BURST_LIBSSH_DIR
constexpr const char* kBuildDir = BURST_LIBSSH_DIR;
#else
constexpr const char* kBuildDir = "";
#endif

#define BURST_LIBSSH_SYMBOL(fn) dyn_symbol(#fn, &g_api.fn),
Status load_once() {
  Status loaded = load_api("libssh", DynLib::names_for("libssh.so.4", "libssh.4.dylib", kBuildDir),
                           {BURST_LIBSSH_FUNCTIONS(BURST_LIBSSH_SYMBOL)});
  return loaded;
}
#undef BURST_LIBSSH_SYMBOL

}  // namespace

// A function-local static is initialised once, thread-safe, and keeps the first answer.
Status load() {
  static const Status result = load_once();
  return result;
}

const Api& api() { return g_api; }

}  // namespace burst::libssh_dl
