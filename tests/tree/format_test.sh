#!/usr/bin/env bash
# Every C++ file is formatted by the root .clang-format (scripts/setup.sh installs
# clang-format-14). Lists the files that are not; fix with: clang-format -i FILE.
set -euo pipefail
cd "$1"
fmt=$(command -v clang-format-14 || command -v clang-format || true)
if [[ -z "$fmt" ]]; then
  echo "FAIL: clang-format is not installed (scripts/setup.sh installs clang-format-14)"
  exit 1
fi
bad=()
while IFS= read -r f; do
  if ! "$fmt" --dry-run -Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done < <(git ls-files '*.cc' '*.h' 2>/dev/null || find hal ops firmware sim driver verify cli testbench tests -name '*.cc' -o -name '*.h')
echo "$(git ls-files '*.cc' '*.h' | wc -l) files checked, ${#bad[@]} not formatted"
for f in "${bad[@]}"; do echo "UNFORMATTED $f"; done
[[ ${#bad[@]} -eq 0 ]]
