#include "sync/pull_command.h"

#include "util/shell.h"

namespace burst {

std::string pull_command(const std::vector<std::string>& patterns, const std::string& workdir) {
  std::string cmd = "cd " + shell_quote(workdir) +
                    " || exit 3; D=$(mktemp -d) || exit 3; trap 'rm -rf \"$D\"' EXIT; "
                    "L=$D/l T=$D/t H=$D/h E=$D/e; : > \"$T\"; : > \"$H\"; export T H E; ";
  for (size_t i = 0; i < patterns.size(); ++i) {
    cmd += "set --; for f in " + shell_glob(patterns[i]) +
           "; do [ -f \"$f\" ] && set -- \"$@\" \"$f\"; done; if [ $# -gt 0 ]; then stat -L "
           "--printf='" +
           std::to_string(i) +
           "\\t%s\\t%Y\\t%a\\t%n\\0' -- \"$@\"; "
           "printf '%s\\0' \"$@\" >> \"$L\"; fi; ";
  }
  // Inside sh -c '...': no single quotes.
  const std::string pass =
      "if command -v openssl >/dev/null 2>&1; then h1() { openssl dgst -sha256 -r \"$1\"; }; "
      "else h1() { sha256sum -- \"$1\"; }; fi; "
      "for f; do read -r k o n || k=s; case $f in /*) g=$f;; *) g=./$f;; esac; case $k in "
      "t) printf \"%s\\0\" \"$f\" >> \"$T\";; "
      "b) ( h=$(h1 \"$g\" 2>/dev/null) && h=${h#\\\\} && printf \"%s  %s\\0\" \"${h%% *}\" \"$f\" "
      ">> \"$H\" ) & "
      "LC_ALL=C dd if=\"$g\" bs=1M iflag=skip_bytes,count_bytes skip=\"$o\" count=\"$n\" "
      "2>\"$E\"; got=0; while read -r a b; do got=$a; done < \"$E\"; "
      "case $got in \"\"|*[!0-9]*) got=0; cat \"$E\" >&2;; esac; "
      "if [ \"$got\" -lt \"$n\" ]; then head -c $((n - got)) /dev/zero; fi;; "
      "esac; done; wait";
  // The tar batch's hashes, beside tar: with openssl where the pod has it (Debian's sha256sum has
  // no SHA-NI: about 5x the CPU), its "<sha256> *<name>" lines turned into sha256sum -z's
  // "<sha256>  <name>\0" records. Only when no name holds a newline or a backslash (openssl may
  // escape those); otherwise, and without openssl, sha256sum -z.
  const std::string batch_hash =
      "if command -v openssl >/dev/null 2>&1 && "
      "[ \"$(tr -d -c '\\n\\\\' < \"$T\" | wc -c)\" -eq 0 ]; then ( xargs -0 -a \"$T\" openssl "
      "dgst -sha256 -r -- | sed 's/ \\*/  /' | tr '\\n' "
      "'\\0' >> \"$H\" ) & else xargs -0 -a \"$T\" sha256sum -z -- >> \"$H\" & fi; ";
  return cmd + "printf 'END\\0'; if [ -s \"$L\" ]; then xargs -0 -a \"$L\" sh -c '" + pass +
         "' sh; fi; if [ -s \"$T\" ]; then " + batch_hash +
         "tar -chPf - --null -T \"$T\"; wait; fi; cat \"$H\"";
}

}  // namespace burst
