// The code section: the local directory synced to the pod, and code.add, files from outside it.
#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "spec/spec_sections.h"

namespace burst::spec {
namespace {

namespace fs = std::filesystem;
using sv = std::string_view;

constexpr sv kCodeFields[] = {"dir", "exclude", "gitignore", "remote_dir", "add"};
constexpr sv kCodeAddFields[] = {"from", "to"};

// `text` as resolve_local, with a leading "~/" (or a lone "~") read as the local $HOME.
std::string expand_home(const std::string& text, const std::string& spec_dir) {
  const char* home = std::getenv("HOME");
  if (home && *home && (text == "~" || text.rfind("~/", 0) == 0))
    return resolve_local(spec_dir, std::string(home) + text.substr(1));
  return resolve_local(spec_dir, text);
}

// One code.add item: {from: a local file or dir outside code.dir, to: where in the code dir}.
void read_code_add(const yaml::Node& item, const std::string& path, PipelineSpec& spec,
                   Problems& problems) {
  Fields fields(item, path, kCodeAddFields, problems);
  if (!fields.ok()) return;
  std::optional<yaml::Node> from = fields.get("from", Need::kRequired);
  std::optional<yaml::Node> to = fields.get("to", Need::kRequired);
  std::optional<std::string> from_text =
      from ? read_string(*from, path + ".from", problems) : std::nullopt;
  std::optional<std::string> to_text = to ? read_string(*to, path + ".to", problems) : std::nullopt;
  if (!from_text || !to_text) return;
  CodeAdd add{expand_home(*from_text, spec.dir), *to_text, pos_of(item)};
  std::error_code ec;
  if (!fs::exists(add.from, ec))
    problems.add(pos_of(*from), path + ".from", "not found: " + add.from);
  const fs::path rel = fs::path(*to_text).lexically_normal();
  bool dotdot = false;
  for (const auto& part : rel) dotdot = dotdot || part == "..";
  if (to_text->empty() || rel.is_absolute() || dotdot || rel == "." || *rel.begin() == ".git") {
    problems.add(pos_of(*to), path + ".to",
                 "must be a path relative to the code dir, without \"..\" or .git; got \"" +
                     *to_text + "\"");
    return;
  }
  if (!spec.code.dir.empty() &&
      fs::exists(fs::symlink_status(fs::path(spec.code.dir) / *rel.begin(), ec))) {
    problems.add(pos_of(*to), path + ".to",
                 "\"" + rel.begin()->string() +
                     "\" is already in code.dir; give a path whose first part "
                     "code.dir does not have (e.g. .burst-add/" +
                     rel.filename().string() + ")");
    return;
  }
  add.to = rel.string();
  for (const CodeAdd& other : spec.code.add)
    if (other.to == add.to) problems.add(pos_of(*to), path + ".to", "given twice: " + add.to);
  spec.code.add.push_back(add);
}

void parse_code_add(const yaml::Node& list, PipelineSpec& spec, Problems& problems) {
  if (!list.is_sequence()) {
    problems.add(pos_of(list), "code.add", "expected a list, got " + kind_of(list));
    return;
  }
  for (size_t i = 0; i < list.size(); ++i)
    read_code_add(list[i], item_path("code.add", i), spec, problems);
}

}  // namespace

void parse_code(Fields& top, PipelineSpec& spec) {
  std::optional<Fields> c = section(top, "code", kCodeFields);
  if (!c) return;
  CodeSpec& out = spec.code;
  // code.add alone (no dir) syncs just those: a converted SkyPilot task without a workdir.
  const Need need_dir = c->get("add") ? Need::kOptional : Need::kRequired;
  if (std::optional<yaml::Node> dir = c->get("dir", need_dir)) {
    std::optional<std::string> text = read_string(*dir, "code.dir", top.problems());
    if (text) {
      out.dir = resolve_local(spec.dir, *text);
      std::error_code ec;
      fs::file_status status = fs::status(out.dir, ec);
      if (!fs::exists(status)) {
        top.problems().add(pos_of(*dir), "code.dir", "directory not found: " + out.dir);
      } else if (!fs::is_directory(status)) {
        top.problems().add(pos_of(*dir), "code.dir", "not a directory: " + out.dir);
      }
    }
  }
  if (std::optional<yaml::Node> add = c->get("add")) parse_code_add(*add, spec, top.problems());
  out.exclude = c->string_list("exclude").value_or(std::vector<std::string>{});
  out.gitignore = c->boolean("gitignore").value_or(true);
  if (std::optional<std::string> remote_dir = c->string("remote_dir")) out.remote_dir = *remote_dir;
}

}  // namespace burst::spec
