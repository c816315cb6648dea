#!/usr/bin/env bash
# Fresh machine to verdict: installs dependencies, builds, runs the whole test suite
# (unit tests, CLI checks, conformance floor, every cosim testbench). CI runs this.
#   scripts/test.sh [CTEST ARGS]    Release build in build/, then ctest; then the 32x32
#                                   build in build-array32/ (conformance, difftest, testbenches)
#   scripts/test.sh --sanitize      ASan + UBSan build (gcc) in build-sanitize/, then the
#                                   whole ctest suite and conformance on ref, isa and sim;
#                                   any sanitizer report fails the run
#   scripts/test.sh --clang         the same as the default with clang 14, in build-clang/
set -euo pipefail
cd "$(dirname "$0")/.."

case "${1:-}" in
  --sanitize)
    shift
    scripts/setup.sh
    # Reports abort (-fno-sanitize-recover=all); leaks are reports too. The Verilated
    # models run several times slower here, so tests/CMakeLists.txt scales the ctest
    # timeouts. No detect_stack_use_after_return: SystemC's coroutines switch stacks
    # behind ASan's back (its "ignoring __asan_handle_no_return" warning), and with fake
    # stacks that faults in the first SC_THREAD; plain stack checks are unaffected.
    export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
    export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    start=$(date +%s)
    scripts/build.sh build-sanitize -DNNCOSIM_SANITIZE=ON
    built=$(date +%s)
    cd build-sanitize
    ctest --output-on-failure -j"$(nproc)" "$@"
    for backend in ref isa sim; do
      echo "conformance --backend $backend (sanitized)"
      cli/nncosim conformance ../../shared/conformance/vectors --backend "$backend" --json "conformance-$backend.json" | tail -3
      python3 -c "import json,sys; r=json.load(open('conformance-$backend.json')); sys.exit(0 if r['total'] > 6000 and r['passed'] == r['total'] and not r['file_errors'] else 1)"
    done
    echo "sanitize: build $((built - start)) s, tests $(( $(date +%s) - built )) s"
    ;;
  --clang)
    shift
    scripts/setup.sh --fuzz
    CC=clang CXX=clang++ scripts/build.sh build-clang
    cd build-clang
    ctest --output-on-failure -j"$(nproc)" "$@"
    ;;
  *)
    scripts/setup.sh
    scripts/build.sh build
    (cd build && ctest --output-on-failure -j"$(nproc)" "$@")
    # A second array size (NNCOSIM_ARRAY_SIZE=32): the RTL, ISA constants, compiler and
    # cost model all follow it; its conformance on the NPU, difftest, testbenches and lint.
    # Only the CLI is built (testbenches run through it); the GoogleTest unit tests are
    # the 16x16 build's.
    echo "test: the 32x32 build (build-array32)"
    cmake -S . -B build-array32 -DCMAKE_BUILD_TYPE=Release -DNNCOSIM_ARRAY_SIZE=32 \
          -DNNCOSIM_PYTHON=OFF >/dev/null
    cmake --build build-array32 -j"$(nproc)" --target nncosim
    (cd build-array32 && ctest --output-on-failure -j"$(nproc)" \
         -R '^(conformance[.]|difftest[.]|testbench[.]|rtl[.]lint$)')
    ;;
esac
