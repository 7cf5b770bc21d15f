// Loads a shared library on first use instead of at process start. burst links libcurl and
// libssh this way: together they pull in 30+ shared objects (Kerberos, LDAP, GnuTLS, ...) whose
// loading alone took ~14 ms of every run, even for commands that never touch the network, like
// `burst plan` (measured with `perf stat`; bench/README.md).
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "burst/result.h"

namespace burst {

class DynLib {
 public:
  // Tries each name in order (sonames first, then full paths); the library stays loaded for the
  // life of the process. The error names every place tried and the loader's last message.
  static Result<DynLib> open(const std::vector<std::string>& names);

  // Where to look for a library: its soname for this platform (`linux_soname`, e.g.
  // "libssh.so.4", or `apple_name`, e.g. "libssh.4.dylib"), then the same name in `build_dir`,
  // where the build found it (Homebrew's prefix is not on macOS's default search path); "" or
  // null for none.
  static std::vector<std::string> names_for(const char* linux_soname, const char* apple_name,
                                            const char* build_dir);

  // The symbol's address, or nullptr with `*why` set to the loader's message.
  void* symbol(const char* name, std::string* why) const;

 private:
  explicit DynLib(void* handle) : handle_(handle) {}
  void* handle_ = nullptr;
};

// One function of a library's API table (libcurl_api.h, libssh_api.h, libpq_api.h): its name and
// where its address goes. Made by dyn_symbol, typed, so no function pointer is written as void*.
struct DynSymbol {
  const char* name;
  void* target;
  void (*assign)(void* target, void* address);
};

template <typename Fn>
DynSymbol dyn_symbol(const char* name, Fn* target) {
  return {name, target,
          [](void* t, void* address) { *static_cast<Fn*>(t) = reinterpret_cast<Fn>(address); }};
}

// Opens the library (`names`, as DynLib::open) and fills every symbol; errors start with `what`
// ("libssh: missing symbol ssh_new: ..."). A library that cannot be opened is `absent` (kInternal:
// burst's own dependency; kUnavailable: an optional one), with `hint` after `what` (e.g. which
// package has it).
Status load_api(const std::string& what, const std::vector<std::string>& names,
                std::initializer_list<DynSymbol> symbols, ErrorCode absent = ErrorCode::kInternal,
                const std::string& hint = "");

}  // namespace burst
