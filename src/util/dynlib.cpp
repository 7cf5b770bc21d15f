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

Status load_api(const std::string& what, const std::vector<std::string>& names,
                std::initializer_list<DynSymbol> symbols, ErrorCode absent,
                const std::string& hint) {
  auto lib = DynLib::open(names);
  if (!lib.ok()) return make_error(absent, what + hint + ": " + lib.error().message);
  std::string why;
  for (const DynSymbol& s : symbols) {
    void* address = lib->symbol(s.name, &why);
    if (!address) return make_error(ErrorCode::kInternal, what + ": missing symbol " + why);
    s.assign(s.target, address);
  }
  return Status::Ok();
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
