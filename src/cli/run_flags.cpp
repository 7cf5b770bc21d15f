#include "cli/run_flags.h"

#include <algorithm>
#include <cctype>

#include "registry.h"

namespace burst {
namespace {

std::string folded(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '-' && c != '_' && c != ' ')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool valid_env_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

}  // namespace

Result<std::string> apply_provider_flag(PipelineSpec* spec,
                                        const std::vector<std::string>& providers) {
  if (providers.empty()) return std::string();
  if (providers.size() == 1) return providers.front();
  const std::vector<std::string> known = provider_names();
  std::string names;
  for (const auto& n : known) names += (names.empty() ? "" : ", ") + n;
  for (const std::string& p : providers)
    if (std::find(known.begin(), known.end(), p) == known.end())
      return make_error(ErrorCode::kInvalid,
                        "--provider: unknown provider \"" + p + "\" (one of " + names + ")");
  spec->resources.providers = providers;
  return std::string();
}

Status apply_gpus_flag(PipelineSpec* spec, const std::string& gpus,
                       const std::vector<GpuSpec>& catalog) {
  if (gpus.empty()) return Status();
  const size_t colon = gpus.find(':');
  const std::string type = gpus.substr(0, colon);
  int count = 1;
  if (colon != std::string::npos) {
    const std::string n = gpus.substr(colon + 1);
    if (n.empty() || n.size() > 2 || !std::all_of(n.begin(), n.end(), ::isdigit) ||
        std::stoi(n) < 1)
      return make_error(
          ErrorCode::kInvalid,
          "--gpus: expected TYPE[:N] with N a count of 1 or more, got \"" + gpus + "\"");
    count = std::stoi(n);
  }
  std::vector<std::string> exact, prefixed;
  const std::string want = folded(type);
  for (const GpuSpec& g : catalog) {
    const std::string have = folded(g.name);
    if (have == want) exact.push_back(g.name);
    if (!want.empty() && have.rfind(want, 0) == 0) prefixed.push_back(g.name);
  }
  std::vector<std::string> chosen = exact.empty() ? prefixed : exact;
  if (chosen.empty())
    return make_error(ErrorCode::kInvalid, "--gpus: no GPU type \"" + type +
                                               "\" in the catalog (burst gpus lists them)");
  spec->resources.gpus = chosen;
  spec->resources.gpu_count = count;
  return Status();
}

Status apply_secret_flags(PipelineSpec* spec, const std::vector<std::string>& secrets,
                          std::map<std::string, std::string>* env) {
  for (const std::string& item : secrets) {
    const size_t eq = item.find('=');
    const std::string name = item.substr(0, eq);
    if (!valid_env_name(name))
      return make_error(ErrorCode::kInvalid,
                        "--secret: expected NAME or NAME=VALUE, got \"" + name + "\"");
    if (eq != std::string::npos) (*env)[name] = item.substr(eq + 1);
    auto value = env->find(name);
    if (value == env->end() || value->second.empty())
      return make_error(ErrorCode::kInvalid, "--secret " + name +
                                                 ": not set in this environment; give --secret " +
                                                 name + "=VALUE or export it");
    auto same = [&](const SecretRef& s) { return s.name == name; };
    auto it = std::find_if(spec->secrets.begin(), spec->secrets.end(), same);
    if (it != spec->secrets.end())
      it->optional = false;
    else
      spec->secrets.push_back(SecretRef{name, false, SourcePos{}});
  }
  return Status();
}

}  // namespace burst
