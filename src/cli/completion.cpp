#include "cli/completion.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <sstream>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "registry.h"

namespace burst {
namespace {

// One command as the scripts need it: its name, description, flags, nested subcommands, and what
// its positional arguments are ("job", "file", "shell", "command", or "" for nothing to offer).
struct CommandInfo {
  std::string name;
  std::string description;
  std::vector<std::string> flags;                               // "--json", "-y"
  std::vector<std::pair<std::string, std::string>> long_flags;  // name without "--", help
  std::vector<std::string> subcommands;
  std::string positional;
  std::vector<std::string> flags_taking_providers;  // "--provider"
};

std::vector<const CLI::App*> listed(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* c :
       app.get_subcommands([](const CLI::App* c) { return !c->get_group().empty(); }))
    out.push_back(c);
  return out;
}

CommandInfo describe(const CLI::App& cmd) {
  CommandInfo info{cmd.get_name(), cmd.get_description(), {}, {}, {}, "", {}};
  for (const CLI::Option* o : cmd.get_options()) {
    if (o->get_group().empty()) continue;  // hidden: an old spelling (--dryrun)
    if (o->get_positional()) {
      if (info.positional.empty()) info.positional = o->get_name(true, false);
      continue;
    }
    for (const std::string& l : o->get_lnames()) {
      info.flags.push_back("--" + l);
      info.long_flags.push_back({l, o->get_description()});
      if (l == "provider") info.flags_taking_providers.push_back("--" + l);
    }
    for (const std::string& s : o->get_snames()) info.flags.push_back("-" + s);
  }
  for (const CLI::App* sub : listed(cmd)) info.subcommands.push_back(sub->get_name());
  return info;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// Single quotes for a shell word (fish and bash read '...' the same way for these texts).
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string bash_function(const CLI::App& app) {
  std::vector<std::string> names;
  std::ostringstream cases;
  for (const CLI::App* c : listed(app)) {
    CommandInfo info = describe(*c);
    names.push_back(info.name);
    cases << "    " << info.name << ") opts=" << quoted(joined(info.flags))
          << "; pos=" << quoted(info.positional) << "; subs=" << quoted(joined(info.subcommands))
          << ";;\n";
  }
  std::ostringstream s;
  s << "_burst() {\n"
       "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
       "  local burst=\"${COMP_WORDS[0]}\" opts='' pos='' subs=''\n"
       "  COMPREPLY=()\n"
       "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
       "    COMPREPLY=($(compgen -W "
    << quoted(joined(names))
    << " -- \"$cur\"))\n"
       "    return\n"
       "  fi\n"
       "  case \"$prev\" in\n"
       "    --provider) COMPREPLY=($(compgen -W \"$(\"$burst\" __complete providers "
       "2>/dev/null)\" -- \"$cur\")); return ;;\n"
       "    --format) COMPREPLY=($(compgen -W 'burst skypilot md json html' -- \"$cur\")); "
       "return ;;\n"
       "  esac\n"
       "  case \"${COMP_WORDS[1]}\" in\n"
    << cases.str()
    << "  esac\n"
       "  if [[ \"$cur\" == -* ]]; then\n"
       "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
       "  elif [ -n \"$subs\" ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
       "    COMPREPLY=($(compgen -W \"$subs\" -- \"$cur\"))\n"
       "  else\n"
       "    case \"$pos\" in\n"
       "      job) COMPREPLY=($(compgen -W \"$(\"$burst\" __complete jobs 2>/dev/null)\" -- "
       "\"$cur\")) ;;\n"
       "      file) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
       "      shell) COMPREPLY=($(compgen -W 'bash zsh fish' -- \"$cur\")) ;;\n"
       "      command) COMPREPLY=($(compgen -W "
    << quoted(joined(names))
    << " -- \"$cur\")) ;;\n"
       "    esac\n"
       "  fi\n"
       "}\n";
  return s.str();
}

std::string bash_script(const CLI::App& app) {
  return "# burst completion for bash: source <(burst completion bash)\n" + bash_function(app) +
         "complete -o default -F _burst burst\n";
}

// zsh runs the bash function through bashcompinit, which zsh ships for this purpose.
std::string zsh_script(const CLI::App& app) {
  return "#compdef burst\n"
         "# burst completion for zsh: source <(burst completion zsh)\n"
         "autoload -U +X bashcompinit && bashcompinit\n" +
         bash_function(app) + "complete -o default -F _burst burst\n";
}

std::string fish_script(const CLI::App& app) {
  std::ostringstream s;
  s << "# burst completion for fish: burst completion fish | source\n"
       "complete -c burst -f\n";
  for (const CLI::App* c : listed(app)) {
    CommandInfo info = describe(*c);
    s << "complete -c burst -n __fish_use_subcommand -a " << info.name << " -d "
      << quoted(info.description) << "\n";
    const std::string when = "-n " + quoted("__fish_seen_subcommand_from " + info.name);
    for (const auto& [flag, help] : info.long_flags) {
      s << "complete -c burst " << when << " -l " << flag << " -d " << quoted(help);
      if (flag == "provider") s << " -x -a '(burst __complete providers)'";
      s << "\n";
    }
    for (const std::string& sub : info.subcommands)
      s << "complete -c burst " << when << " -a " << sub << "\n";
    if (info.positional == "job")
      s << "complete -c burst " << when << " -a '(burst __complete jobs)'\n";
    else if (info.positional == "file")
      s << "complete -c burst " << when << " -F\n";
    else if (info.positional == "shell")
      s << "complete -c burst " << when << " -a 'bash zsh fish'\n";
  }
  return s.str();
}

}  // namespace

std::string completion_script(const CLI::App& app, const std::string& shell) {
  if (shell == "bash") return bash_script(app);
  if (shell == "zsh") return zsh_script(app);
  if (shell == "fish") return fish_script(app);
  return "";
}

int cmd_completion(const CLI::App& app, const std::string& shell) {
  std::string script = completion_script(app, shell);
  if (script.empty())
    return fail(kExitUsage, "completion: \"" + shell + "\" is not one of bash, zsh, fish");
  std::cout << script;
  return kExitOk;
}

int cmd_complete(const std::string& what) {
  if (what == "providers") {
    for (const std::string& name : provider_names()) std::cout << name << "\n";
    return kExitOk;
  }
  if (what != "jobs") return fail(kExitUsage, "__complete: jobs or providers");
  auto config = load_config_or_print();
  if (!config.ok()) return fail(config.error(), ErrorOrigin::kConfig);
  // No store yet: no jobs, and nothing is created for a Tab press.
  std::error_code ec;
  if (!std::filesystem::exists(config->db_path, ec)) return kExitOk;
  auto store = open_store(*config);
  if (!store.ok()) return fail(store.error(), ErrorOrigin::kConfig);
  auto jobs = (*store)->recent_jobs(50);
  if (!jobs.ok()) return fail(jobs.error());
  for (const JobRecord& j : *jobs) std::cout << j.id << "\n";
  return kExitOk;
}

}  // namespace burst
