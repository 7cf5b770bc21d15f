#include "cli/cli_grammar.h"

#include <CLI/CLI.hpp>

namespace burst {

void apply_one_value_grammar(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    if (!o->nonpositional()) continue;               // FILE, JOB, ...: positional only
    if (o->get_items_expected_max() == 0) continue;  // a flag
    // A container option (--env, --provider, --secret) otherwise takes every following word
    // that is not an option, up to the last required positional: `--provider local FILE
    // --dry-run` gave FILE to --provider. One value per occurrence; repeats still collect.
    o->allow_extra_args(false);
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    apply_one_value_grammar(*sub);
}

void add_dry_run_flag(CLI::App* cmd, bool& value, const char* what) {
  cmd->add_flag("--dry-run", value, what);
  // The old spelling, kept working; help shows only --dry-run. An option in the group ""
  // is not listed.
  cmd->add_flag("--dryrun", value, "the old spelling of --dry-run")->group("");
}

}  // namespace burst
