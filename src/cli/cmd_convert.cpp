// `burst convert FILE`: the burst spec equivalent to a spec file (a SkyPilot task file, most
// usefully), printed on stdout; notes go to stderr and into comments. `burst validate` accepts
// what it prints when saved next to FILE (local paths are written relative to FILE's directory).
#include <iostream>

#include "cli/cli_common.h"
#include "cli/commands.h"
#include "cli/spec_errors.h"

namespace burst {

int cmd_convert(const ConvertArgs& args) {
  auto options = spec_options_from_flags(args.spec_flags.format, args.spec_flags.env,
                                         /*for_run=*/false, args.spec_flags.max_runtime);
  if (!options.ok()) return fail(kExitUsage, options.error().message);
  SpecReadInfo info;
  auto spec = load_spec_or_print(args.spec, *options, &info);
  if (!spec.ok()) return spec_exit_code(spec.error());
  std::cout << write_spec_yaml(*spec, info) << std::flush;
  return kExitOk;
}

}  // namespace burst
