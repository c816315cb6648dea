#!/usr/bin/env bash
# Synthesizes the NPU with Yosys for a Xilinx 7-series FPGA and prints its resources per
# unit (scripts/synth.py does the work; its --help lists the options):
#   scripts/synth.sh                       16x16 NPU: table on stdout, exit 1 on a failed check
#   scripts/synth.sh --array 32 --json out/synth-32.json
# Needs only yosys (scripts/setup.sh installs it) and python3: no build.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/synth.py "$@"
