#include "runpod_start.h"

#include <cmath>
#include <cstring>
#include <regex>

#include "runpod_catalog.h"
#include "util/base64.h"

namespace burst::fakecloud {

std::optional<std::vector<std::string>> runpod_strict_split(const std::string& args) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false, quoted = false;
  for (char c : args) {
    // Anywhere, quoted or not: whether a splitter honours the quote around it is not documented.
    if (std::strchr("\"\\$`&(){}\n\r", c)) return std::nullopt;
    if (quoted) {
      if (c == '\'') {
        quoted = false;
      } else if (c == '\n' || c == '\r') {
        return std::nullopt;
      } else {
        word += c;
      }
      continue;
    }
    if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      quoted = true;
      continue;
    }
    word += c;
  }
  if (quoted) return std::nullopt;
  if (in_word) words.push_back(word);
  return words;
}

RunpodStart runpod_start_command(const std::string& args) {
  RunpodStart s;
  auto words = runpod_strict_split(args);
  if (!words) {
    s.why =
        "the start command does not survive RunPod's argument split (quotes, $, \\, &, "
        "parentheses or braces in `args`)";
    return s;
  }
  static const char* const kShells[] = {"sh", "bash", "/bin/sh", "/bin/bash"};
  bool shell = false;
  for (const char* sh : kShells) shell = shell || (!words->empty() && (*words)[0] == sh);
  if (!shell || words->size() != 3 || (*words)[1] != "-c") {
    s.why = "the start command is not `sh -c '<script>'`";
    return s;
  }
  s.script = (*words)[2];
  static const std::regex kWrapped(
      R"(^\s*echo ([A-Za-z0-9+/=]+) \| base64 (?:-d|--decode) > (\S+)\s*;\s*(?:sh|bash) (\S+)\s*;?\s*$)");
  std::smatch m;
  if (std::regex_match(s.script, m, kWrapped)) {
    if (m[2] != m[3]) {
      s.why = "the start command decodes into one file and runs another";
      return s;
    }
    auto decoded = base64_decode(m[1]);
    if (!decoded) {
      s.why = "the start command's base64 does not decode";
      return s;
    }
    s.script = *decoded;
  }
  s.started = true;
  const std::string& t = s.script;
  if (t.find("sshd") == std::string::npos || t.find("authorized_keys") == std::string::npos)
    return s;
  // A key line: type, base64 blob (always "AAAA..."), optional comment words.
  static const std::regex kKeyLine(
      R"((?:^|[\s"'=])((?:ssh|ecdsa|sk)-[A-Za-z0-9@.-]+ AAAA[A-Za-z0-9+/=]*(?: [A-Za-z0-9@._+:,=/-]+)*))");
  for (auto it = std::sregex_iterator(t.begin(), t.end(), kKeyLine); it != std::sregex_iterator();
       ++it)
    s.keys += (s.keys.empty() ? "" : "\n") + (*it)[1].str();
  s.runs_sshd = !s.keys.empty();
  s.keeps_env = t.find(".ssh/environment") != std::string::npos &&
                t.find("PermitUserEnvironment=yes") != std::string::npos;
  return s;
}

double runpod_min_bid(const GpuKind& g) { return std::round(g.secure * 50) / 100; }

void runpod_ssh_server(const std::string& args, FakePod* p) {
  auto key = p->env.find("PUBLIC_KEY");
  if (image_runs_sshd(p->image)) {
    p->public_key = key == p->env.end() ? "" : key->second;
    p->sshd = !p->public_key.empty();
    return;
  }
  std::map<std::string, std::string> container = image_env(p->image);
  for (const auto& [k, v] : p->env) container[k] = v;
  p->sshd = false;
  p->session_env = std::map<std::string, std::string>{};
  if (args.empty()) return;
  const RunpodStart start = runpod_start_command(args);
  if (!start.started) {
    p->start_note = start.why;
    return;
  }
  p->public_key = start.keys;
  p->sshd = start.runs_sshd;
  if (start.keeps_env) p->session_env = container;
}

}  // namespace burst::fakecloud
