#!/usr/bin/env bash
# Fresh machine to verdict: installs dependencies, builds, runs the whole test suite
# (unit tests, CLI checks, conformance floor, every cosim testbench). CI runs this.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
cd build
ctest --output-on-failure -j"$(nproc)" "$@"
