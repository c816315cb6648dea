#!/usr/bin/env bash
# Fresh machine to result: installs dependencies, builds, runs `nncosim run` on the
# embedded demo network. Extra arguments go to `nncosim run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
build/cli/nncosim run "$@"
