#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/spec_errors.h"
#include "registry.h"
#include "util/terminal_text.h"

namespace burst {
namespace {

// "file:12:3: resources.gpus: ..." as {"message", "line", "column"}; line and column are 0 when
// the text does not start with the file's position.
nlohmann::json error_json(const std::string& text) {
  nlohmann::json e = {{"message", text}, {"line", 0}, {"column", 0}};
  unsigned line = 0, column = 0;
  const size_t at = text.find(".yaml:") != std::string::npos  ? text.find(".yaml:") + 5
                    : text.find(".yml:") != std::string::npos ? text.find(".yml:") + 4
                                                              : std::string::npos;
  if (at != std::string::npos && std::sscanf(text.c_str() + at, ":%u:%u:", &line, &column) == 2) {
    e["line"] = line;
    e["column"] = column;
  }
  return e;
}

}  // namespace

int cmd_validate(const ValidateArgs& args) {
  auto options = spec_options_from_flags(args.spec_flags.format, args.spec_flags.env,
                                         /*for_run=*/false, args.spec_flags.max_runtime);
  if (!options.ok()) return fail(kExitUsage, options.error().message);
  const std::string& path = args.spec;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return fail(kExitNotFound, path + ": no such file");
  if (args.json) {
    std::vector<SpecError> errors;
    SpecReadInfo info;
    auto spec = load_spec_file(path, &errors, *options, &info);
    if (spec.ok()) {
      std::vector<std::string> refused = spec_refusals(*spec);
      for (const std::string& line : refused) errors.push_back({line});
      if (!refused.empty()) spec = make_error(ErrorCode::kInvalid, refused.front());
    }
    nlohmann::json out = {
        {"file", path},
        {"valid", spec.ok()},
        {"errors", nlohmann::json::array()},
        {"notes", spec.ok() ? nlohmann::json(info.notes) : nlohmann::json::array()}};
    if (spec.ok()) out["format"] = info.format;
    if (!spec.ok() && errors.empty()) out["errors"].push_back(error_json(spec.error().message));
    for (const auto& e : errors) out["errors"].push_back(error_json(e.text));
    if (!spec.ok())
      out["error"] = {{"code", exit_code_name(kExitUsage)},
                      {"message", out["errors"][0]["message"]},
                      {"exit", kExitUsage}};
    std::cout << out.dump(2) << std::endl;
    return spec.ok() ? kExitOk : kExitUsage;
  }
  SpecReadInfo info;
  auto spec = load_spec_or_print(path, *options, &info);
  if (!spec.ok()) return spec_exit_code(spec.error());
  std::cout << terminal_line(path) << ": ok ("
            << (info.format == "skypilot" ? "SkyPilot task, " : "") << "pipeline "
            << terminal_line(spec->name) << ")" << std::endl;
  return kExitOk;
}

}  // namespace burst
