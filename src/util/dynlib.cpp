#include "util/dynlib.h"

#include <dlfcn.h>

namespace burst {

Result<DynLib> DynLib::open(const std::vector<std::string>& names) {
  std::string tried, last;
  for (const std::string& name : names) {
    if (name.empty()) continue;
    if (void* h = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL)) return DynLib(h);
    const char* e = ::dlerror();
    last = e ? e : "unknown error";
    tried += (tried.empty() ? "" : ", ") + name;
  }
  return make_error(ErrorCode::kInternal, "cannot load " + tried + ": " + last);
}

std::vector<std::string> DynLib::names_for(const char* linux_soname, const char* apple_name,
                                           const char* build_dir) {
#ifdef __APPLE__
  const std::string name = apple_name;
  (void)linux_soname;
#else
  const std::string name = linux_soname;
  (void)apple_name;
#endif
  std::vector<std::string> names = {name};
  if (build_dir && *build_dir) names.push_back(std::string(build_dir) + "/" + name);
  return names;
}

void* DynLib::symbol(const char* name, std::string* why) const {
  ::dlerror();
  void* p = ::dlsym(handle_, name);
  if (!p && why) {
    const char* e = ::dlerror();
    *why = std::string(name) + ": " + (e ? e : "not found");
  }
  return p;
}

}  // namespace burst
