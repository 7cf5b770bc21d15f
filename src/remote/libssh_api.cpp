#include "remote/libssh_api.h"

#include <mutex>

#include "util/dynlib.h"

namespace burst::libssh_dl {
namespace {

Api g_api;

#ifdef BURST_LIBSSH_DIR
constexpr const char* kBuildDir = BURST_LIBSSH_DIR;
#else
constexpr const char* kBuildDir = "";
#endif

Status load_once() {
  auto lib = DynLib::open(DynLib::names_for("libssh.so.4", "libssh.4.dylib", kBuildDir));
  if (!lib.ok()) return make_error(ErrorCode::kInternal, "libssh: " + lib.error().message);
  std::string why;
#define BURST_LIBSSH_RESOLVE(fn)                                           \
  g_api.fn = reinterpret_cast<decltype(g_api.fn)>(lib->symbol(#fn, &why)); \
  if (!g_api.fn) return make_error(ErrorCode::kInternal, "libssh: missing symbol " + why);
  BURST_LIBSSH_FUNCTIONS(BURST_LIBSSH_RESOLVE)
#undef BURST_LIBSSH_RESOLVE
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

}  // namespace burst::libssh_dl
