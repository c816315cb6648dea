#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, libraries instrumented for coverage)
# in build-fuzz/, makes the seed corpora from the project's files, and runs fuzzers.
#   scripts/fuzz.sh --list
#   scripts/fuzz.sh NAME [SECONDS] [LIBFUZZER ARGS]   one target (default 300 s)
#   scripts/fuzz.sh all [SECONDS]                     every target, one after the other
# Findings (crash-*, timeout-*, oom-*) are written to build-fuzz/findings/NAME/; the last
# line per target gives executions, coverage (cov: edges) and the findings count.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(model_reader_fuzz vector_reference_fuzz isa_stream_fuzz soc_stream_fuzz densify_fuzz)
[[ -f tests/fuzz/tflite_reader_fuzz.cc ]] && targets+=(tflite_reader_fuzz)
if [[ "${1:-}" == "--list" || -z "${1:-}" ]]; then
  printf '%s\n' "${targets[@]}"
  exit 0
fi
name="$1"; shift
seconds="${1:-300}"; shift || true
scripts/setup.sh --fuzz
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNNCOSIM_FUZZ=ON \
  -DNNCOSIM_BUILD_TESTS=OFF >/dev/null
run_one() {
  local t="$1"
  cmake --build build-fuzz -j"$(nproc)" --target "$t" >/dev/null
  local corpus="build-fuzz/corpus/${t%_fuzz}" findings="build-fuzz/findings/$t"
  [[ -d "$corpus" ]] || python3 scripts/make_fuzz_corpus.py build-fuzz/corpus >/dev/null
  mkdir -p "$corpus" "$findings" build-fuzz/logs
  local log="build-fuzz/logs/$t.log"
  # The SoC targets simulate a job per input: allow them longer per input. Their leak
  # check is off: at exit LeakSanitizer reports only libFuzzer's own driver objects (the
  # SystemC kernel ends the process past libFuzzer's cleanup), which is no finding.
  local per_input=10 asan="${ASAN_OPTIONS:-}"
  if [[ "$t" == soc_* || "$t" == densify_* ]]; then
    per_input=60
    asan="detect_leaks=0${asan:+:$asan}"
  fi
  set +e
  ASAN_OPTIONS="$asan" "build-fuzz/tests/fuzz/$t" "$corpus" -max_total_time="$seconds" -timeout="$per_input" -rss_limit_mb=4096 \
    -max_len=16384 -artifact_prefix="$findings/" -print_final_stats=1 "$@" >"$log" 2>&1
  local rc=$?
  set -e
  local execs cov found
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo "?")
  found=$(find "$findings" -type f | wc -l)
  echo "$t: ${seconds} s, ${execs} executions, coverage ${cov} edges, ${found} findings (exit $rc; log $log)"
  return $(( rc != 0 || found != 0 ))
}
if [[ "$name" == all ]]; then
  bad=0
  for t in "${targets[@]}"; do run_one "$t" "$@" || bad=1; done
  exit $bad
fi
run_one "$name" "$@"
