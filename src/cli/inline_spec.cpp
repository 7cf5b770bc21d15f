#include "cli/inline_spec.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "util/shell.h"

namespace burst {
namespace {

// "python" from "python3 train.py" or "/usr/bin/python3": a spec name (spec_checks.h).
std::string name_of(const std::vector<std::string>& command) {
  std::string word = command.front();
  word = word.substr(0, word.find_first_of(" \t"));
  word = std::filesystem::path(word).filename().string();
  std::string out;
  for (char c : word) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (ok || (c == '-' && !out.empty())) out += c;
    if (out.size() >= 40) break;
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "cmd" : out;
}

// A JSON string is a YAML double-quoted scalar: any command text, quoted exactly.
std::string yaml_quoted(const std::string& text) { return nlohmann::json(text).dump(); }

}  // namespace

std::string inline_spec_yaml(const std::vector<std::string>& command, const std::string& workdir) {
  std::string line;
  if (command.size() == 1) {
    line = command.front();
  } else {
    for (const std::string& a : command) line += (line.empty() ? "" : " ") + shell_quote(a);
  }
  std::string out = "version: 1\nname: " + name_of(command) + "\n";
  if (!workdir.empty()) {
    std::error_code ec;
    std::string dir = std::filesystem::absolute(workdir, ec).lexically_normal().string();
    if (ec) dir = workdir;
    out += "code:\n  dir: " + yaml_quoted(dir) + "\n";
  }
  out += "run: " + yaml_quoted(line) + "\n";
  return out;
}

}  // namespace burst
