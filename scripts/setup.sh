#!/usr/bin/env bash
# Installs every build and test dependency on Debian bookworm, as root. Idempotent:
# installs only what is missing, and refreshes the package lists only when needed.
#   scripts/setup.sh          build + test dependencies
#   scripts/setup.sh --fuzz   also clang and its libFuzzer runtime
set -euo pipefail

packages=(build-essential cmake make python3 ccache pkg-config
          verilator libsystemc-dev libboost-program-options-dev
          googletest libgtest-dev libgmock-dev nlohmann-json3-dev libgemmlowp-dev
          libflatbuffers-dev flatbuffers-compiler)
if [[ "${1:-}" == "--fuzz" ]]; then
  packages+=(clang libclang-rt-14-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
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
echo "setup: done"
