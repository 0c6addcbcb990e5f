#!/usr/bin/env bash
# Installs the Debian packages Loom needs to build, test and benchmark, and only those that are
# missing, so it is cheap and safe to run before every build; then the npm packages of web/
# (the plotting libraries HTML reports inline) when web/node_modules is missing or stale.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  libgtest-dev libgmock-dev libbenchmark-dev
  libyaml-cpp-dev nlohmann-json3-dev libcli11-dev libfmt-dev libspdlog-dev libpugixml-dev
  protobuf-compiler libprotobuf-dev
  libnauty2-dev   # canonical graph labelling (packet fast-forward's memo)
  graphviz
  libopenmpi-dev openmpi-bin   # optional for the build: sweeps and packet simulations over MPI ranks (mpirun)
  python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pandas python3-pytest
  chromium   # the HTML report's browser test
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# npm ci of web/ (Vega, Vega-Lite for HTML reports); a Node.js from elsewhere that brings its
# own npm will do.
if ! command -v npm > /dev/null; then
  missing+=(nodejs npm)
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo_cmd=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm ci installs exactly what web/package-lock.json pins; npm records it in
# node_modules/.package-lock.json, so an up-to-date install is skipped.
web_dir="$(cd "$(dirname "$0")/.." && pwd)/web"
if [ ! -f "$web_dir/node_modules/.package-lock.json" ] ||
   [ "$web_dir/package-lock.json" -nt "$web_dir/node_modules/.package-lock.json" ]; then
  echo "install-deps: npm ci in web/"
  (cd "$web_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
