#!/usr/bin/env bash
# Installs every build and test dependency on Debian bookworm, as root. Idempotent:
# installs only what is missing, and refreshes the package lists only when needed.
#   scripts/setup.sh          build + test dependencies
#   scripts/setup.sh --fuzz   also clang and its libFuzzer runtime
# Then installs TFLite's interpreter for scripts/compare_tflite.py: the npm package
# @tensorflow/tfjs-tflite into build/node/ (project-local, ignored by git). Debian's
# nodejs and npm are installed only when `node` or `npm` is missing: a node from another
# source (e.g. NodeSource's nodejs, which bundles npm) conflicts with Debian's npm.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake make python3 ccache pkg-config
          verilator libsystemc-dev libboost-program-options-dev
          googletest libgtest-dev libgmock-dev nlohmann-json3-dev libgemmlowp-dev
          libflatbuffers-dev flatbuffers-compiler clang-format-14
          python3-dev pybind11-dev python3-numpy python3-matplotlib python3-pytest yosys)
if [[ "${1:-}" == "--fuzz" ]]; then
  packages+=(clang libclang-rt-14-dev)
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
install_tfjs_tflite() {
  local spec="@tensorflow/tfjs-tflite@0.0.1-alpha.10"
  local dir=build/node
  local pkg=$dir/node_modules/@tensorflow/tfjs-tflite/package.json
  if [[ -f $pkg ]] && grep -q '"version": "0.0.1-alpha.10"' "$pkg"; then
    echo "setup: $spec present in $dir"
    return
  fi
  echo "setup: npm install --prefix $dir $spec"
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$spec" >/dev/null
}

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  install_tfjs_tflite
  exit 0
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "setup: missing packages (${missing[*]}); run as root: sudo $0 $*" >&2
  exit 1
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
install_tfjs_tflite
echo "setup: done"
