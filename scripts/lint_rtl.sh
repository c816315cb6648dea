#!/usr/bin/env bash
# Lints every RTL module as its own top with `verilator --lint-only -Wall`; the generated
# ISA package comes first. Usage: scripts/lint_rtl.sh BUILD_DIR. Exit 1 on any warning.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
pkg="$build/generated/sv/nnc_isa_pkg.sv"
[[ -f "$pkg" ]] || { echo "lint: $pkg missing (configure the build first)" >&2; exit 1; }
sources=("$pkg" rtl/nnc_pkg.sv)
for f in rtl/*.sv rtl/prim/*.sv; do [[ "$f" == rtl/nnc_pkg.sv ]] || sources+=("$f"); done
# Arrays beyond 16x16 need Verilator's unrolling budget scaled as rtl/CMakeLists.txt does.
rows=$(sed -n 's/.*localparam int unsigned ArrayRows = \([0-9]*\);.*/\1/p' "$pkg")
extra=()
if (( ${rows:-16} > 16 )); then extra=(--unroll-stmts $((30000 * rows * rows / 256))); fi
failed=0
for f in rtl/*.sv rtl/prim/*.sv; do
  m=$(basename "$f" .sv)
  [[ "$m" == *_pkg ]] && continue
  if out=$(verilator --lint-only -Wall ${extra[@]+"${extra[@]}"} -Irtl/prim "${sources[@]}" --top-module "$m" 2>&1) && [[ -z "$out" ]]; then
    echo "lint ok: $m"
  else
    echo "lint FAILED: $m"; echo "$out"; failed=1
  fi
done
# Yosys 0.23 reads an unpacked array whose elements are a module's own packed-struct type as
# a single element, silently (the synthesized netlist loses the other entries): such arrays
# must have plain-vector elements (logic [$bits(x)-1:0] a [N]).
for f in rtl/*.sv rtl/prim/*.sv; do
  for t in $(sed -n 's/^ *} *\([a-z_0-9]*_t\) *;.*/\1/p' "$f"); do
    if hits=$(grep -n -E "^ *$t +[a-z_0-9]+ *\[" "$f"); then
      echo "lint FAILED: $f: an unpacked array of the packed struct $t (Yosys drops its entries):"
      echo "$hits"; failed=1
    fi
  done
done
exit $failed
