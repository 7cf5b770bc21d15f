// The Dockerfile, checked without Docker (there is no engine here): the build stage runs only
// the project's own scripts and runs the test suite; every path it copies exists; the runtime
// stage runs burstd as a non-root user with its state in a volume; and every runtime package is
// one scripts/setup proves on Debian 12 (or a library one of its packages depends on), together
// providing every shared library burst and burstd link or dlopen.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace burst {
namespace {

namespace fs = std::filesystem;
const std::string kRoot = BURST_SOURCE_DIR;

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string run(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  return out;
}

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

struct Instruction {
  std::string op;  // FROM, RUN, COPY, ...
  std::string args;
};

// Instructions per stage, with line continuations joined and comments dropped.
std::vector<std::vector<Instruction>> stages() {
  std::vector<std::vector<Instruction>> out;
  std::istringstream in(slurp(kRoot + "/Dockerfile"));
  std::string line, joined;
  while (std::getline(in, line)) {
    if (joined.empty() && (line.empty() || line[0] == '#')) continue;
    if (!line.empty() && line.back() == '\\') {
      joined += line.substr(0, line.size() - 1) + " ";
      continue;
    }
    joined += line;
    const size_t sp = joined.find(' ');
    Instruction i{joined.substr(0, sp), sp == std::string::npos ? "" : joined.substr(sp + 1)};
    if (i.op == "FROM") out.emplace_back();
    if (!out.empty()) out.back().push_back(i);
    joined.clear();
  }
  return out;
}

// The packages an `apt-get install` in a RUN line names.
std::vector<std::string> apt_packages(const std::string& run_args) {
  std::vector<std::string> out;
  bool on = false;
  for (const auto& w : words(run_args)) {
    if (w == "&&") on = false;
    if (on && w[0] != '-') out.push_back(w);
    if (w == "install") on = true;
  }
  return out;
}

TEST(Dockerfile, BuildStageRunsTheProjectsScriptsAndTheTestSuite) {
  auto s = stages();
  ASSERT_EQ(s.size(), 2u) << "a build stage and a runtime stage";
  EXPECT_EQ(s[0][0].args, "debian:12 AS build");
  bool tests = false;
  for (const auto& i : s[0]) {
    if (i.op == "RUN") {
      if (i.args.rfind("apt-get update", 0) == 0) continue;  // only what runs setup: sudo, certs
      EXPECT_EQ(i.args.rfind("scripts/", 0), 0u) << "RUN " << i.args;
      const std::string script = kRoot + "/" + words(i.args)[0];
      struct stat st {};
      EXPECT_TRUE(::stat(script.c_str(), &st) == 0 && (st.st_mode & S_IXUSR)) << script;
      tests = tests || words(i.args)[0] == "scripts/test";
    }
    if (i.op == "COPY") {
      auto w = words(i.args);
      for (size_t k = 0; k + 1 < w.size(); ++k)
        if (w[k] != ".") {
          EXPECT_TRUE(fs::exists(kRoot + "/" + w[k])) << "COPY " << w[k];
        }
    }
  }
  EXPECT_TRUE(tests) << "the build stage runs scripts/test (build with -Werror, every test)";
  EXPECT_NE(slurp(kRoot + "/scripts/test").find("ctest"), std::string::npos);
}

TEST(Dockerfile, RuntimeStageRunsBurstdAsANonRootUserWithStateInAVolume) {
  auto s = stages();
  ASSERT_EQ(s.size(), 2u);
  std::map<std::string, std::string> last;
  std::set<std::string> from_build;
  for (const auto& i : s[1]) {
    last[i.op] = i.args;
    if (i.op == "COPY" && i.args.rfind("--from=build ", 0) == 0) {
      auto w = words(i.args);
      for (size_t k = 1; k + 1 < w.size(); ++k) from_build.insert(fs::path(w[k]).filename());
    } else if (i.op == "COPY") {
      auto w = words(i.args);
      for (size_t k = 0; k + 1 < w.size(); ++k)
        EXPECT_TRUE(fs::exists(kRoot + "/" + w[k])) << "COPY " << w[k];
    }
  }
  EXPECT_EQ(s[1][0].args, "debian:12-slim");
  EXPECT_EQ(from_build, (std::set<std::string>{"burst", "burstd"}));
  ASSERT_TRUE(last.count("USER"));
  EXPECT_NE(last["USER"], "root");
  EXPECT_NE(last["USER"], "0");
  EXPECT_NE(last["ENV"].find("BURST_STATE_DIR=/var/lib/burst"), std::string::npos);
  EXPECT_EQ(last["VOLUME"], "[\"/var/lib/burst\"]");
  EXPECT_EQ(last["CMD"], "[\"burstd\"]");
}

TEST(Dockerfile, RuntimePackagesAreProvenBySetupAndProvideEveryLibrary) {
  if (run("sh -c '. /etc/os-release && echo $ID-$VERSION_ID' 2>/dev/null") != "debian-12\n" ||
      run("command -v dpkg-query").empty())
    GTEST_SKIP() << "needs Debian 12 with dpkg to check package names";
  auto s = stages();
  ASSERT_EQ(s.size(), 2u);
  std::set<std::string> runtime, bootstrap;
  for (const auto& i : s[1])
    if (i.op == "RUN")
      for (const auto& p : apt_packages(i.args)) runtime.insert(p);
  for (const auto& i : s[0])
    if (i.op == "RUN")
      for (const auto& p : apt_packages(i.args)) bootstrap.insert(p);
  ASSERT_FALSE(runtime.empty());

  // What setup installs: its demo_packages and test_packages lists (all of them without --demo).
  const std::string setup = slurp(kRoot + "/scripts/setup");
  std::smatch m;
  std::set<std::string> proven;
  for (const char* list : {"demo_packages", "test_packages"}) {
    ASSERT_TRUE(std::regex_search(setup, m, std::regex(std::string(list) + R"(=\(([^)]*)\))")))
        << list;
    std::istringstream lines(m[1].str());
    for (std::string l; std::getline(lines, l);)
      for (const auto& w : words(l.substr(0, l.find('#')))) proven.insert(w);
  }

  // Every installed package's name, dependencies, and whether it is Essential (in every image).
  std::map<std::string, std::vector<std::string>> deps;
  std::set<std::string> essential;
  std::istringstream db(
      run("dpkg-query -W -f='${Package}\\t${Essential}\\t${Depends}, "
          "${Pre-Depends}\\n' 2>/dev/null"));
  for (std::string l; std::getline(db, l);) {
    auto t1 = l.find('\t'), t2 = l.find('\t', t1 + 1);
    const std::string name = l.substr(0, t1);
    if (l.substr(t1 + 1, t2 - t1 - 1) == "yes") essential.insert(name);
    std::string list = std::regex_replace(l.substr(t2 + 1), std::regex(R"(\([^)]*\)|:any)"), "");
    std::istringstream parts(list);
    for (std::string d; std::getline(parts, d, ',');) {
      d = d.substr(0, d.find('|'));
      auto w = words(d);
      if (!w.empty()) deps[name].push_back(w[0]);
    }
  }
  for (const auto& p : runtime) {
    EXPECT_TRUE(deps.count(p)) << p << " is not a Debian 12 package installed here";
    bool ok = proven.count(p) || bootstrap.count(p);
    for (const auto& sp : proven)
      for (const auto& d : deps[sp]) ok = ok || d == p;
    EXPECT_TRUE(ok) << p << ": neither in scripts/setup nor a dependency of a package it installs";
  }

  // The base image has the Essential packages, apt, and what they depend on.
  std::set<std::string> base;
  std::vector<std::string> todo(essential.begin(), essential.end());
  todo.push_back("apt");
  while (!todo.empty()) {
    std::string p = todo.back();
    todo.pop_back();
    if (!base.insert(p).second) continue;
    for (const auto& d : deps[p]) todo.push_back(d);
  }
  // Libraries: what the binaries link (NEEDED) and what they dlopen (DynLib::names_for).
  std::set<std::string> sonames;
  for (const std::string bin : {BURST_BINARY, BURSTD_BINARY}) {
    std::istringstream needed(run("readelf -d '" + bin + "' 2>/dev/null"));
    for (std::string l; std::getline(needed, l);)
      if (std::regex_search(l, m, std::regex(R"(\(NEEDED\).*\[(.*)\])"))) sonames.insert(m[1]);
  }
  ASSERT_FALSE(sonames.empty()) << "readelf found nothing";
  for (const char* src : {"/src/http/libcurl_api.cpp", "/src/remote/libssh_api.cpp",
                          "/src/crypto/sha256.cpp", "/src/store/libpq_api.cpp"}) {
    const std::string text = slurp(kRoot + src);
    ASSERT_TRUE(std::regex_search(text, m, std::regex(R"re(names_for\("([^"]+)")re"))) << src;
    sonames.insert(m[1]);
  }
  // One dpkg -S for all: "*-linux-gnu/" keeps to the native multiarch dirs (not /lib32).
  std::string patterns;
  for (const auto& so : sonames) patterns += " '*-linux-gnu/" + so + "'";
  std::map<std::string, std::string> owner;  // soname -> package
  std::istringstream owners(run("dpkg -S" + patterns + " 2>/dev/null"));
  for (std::string l; std::getline(owners, l);) {
    const size_t colon = l.find(": ");
    if (colon == std::string::npos) continue;
    owner.emplace(fs::path(l.substr(colon + 2)).filename(), l.substr(0, l.find_first_of(":,")));
  }
  for (const auto& so : sonames) {
    ASSERT_TRUE(owner.count(so)) << "no package has " << so;
    const std::string& pkg = owner[so];
    EXPECT_TRUE(runtime.count(pkg) || base.count(pkg))
        << so << " comes from " << pkg << ", which the runtime stage does not install";
  }
}

}  // namespace
}  // namespace burst
