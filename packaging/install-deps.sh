#!/usr/bin/env bash
# Installs what rockperm needs to build and test on Debian/Ubuntu. Skips packages already there.
# --browser: also headless Chromium and Python's websocket client, with which the report and web
# page tests render and drive pages (they skip without them); a failure to get them is a warning.
set -euo pipefail
browser=0
[[ ${1:-} == --browser ]] && browser=1
pkgs=(cmake g++ make libboost-program-options-dev libtiff-dev libvtk9-dev
      libopenmpi-dev openmpi-bin libgtest-dev nlohmann-json3-dev libeigen3-dev libcsv-dev libxml2-dev libssl-dev libsqlite3-dev libboost-dev libarchive-dev libgmime-3.0-dev dpkg-dev curl procps python3 clang libclang-rt-dev
      python3-dev python3-venv pybind11-dev python3-numpy python3-pytest)
# Debian's paraview package conflicts with libvtk9-dev: installing the headers would remove a
# user's ParaView. Where paraview is installed, rockperm is built without VTK instead (no flow
# fields; build.sh says so) and ParaView stays.
if dpkg-query -W -f='${Status}' paraview 2>/dev/null | grep -q 'ok installed' &&
   ! dpkg-query -W -f='${Status}' libvtk9-dev 2>/dev/null | grep -q 'ok installed'; then
  echo "install-deps: paraview is installed and conflicts with libvtk9-dev; leaving both as they are, so rockperm" \
       "builds without its ParaView field writer (see docs/manual/installing.md)" >&2
  pkgs=("${pkgs[@]/libvtk9-dev}")
fi
missing=()
for p in "${pkgs[@]}"; do
  [ -n "$p" ] || continue
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
browser_pkgs=()
if ((browser)); then
  for p in chromium python3-websocket; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || browser_pkgs+=("$p")
  done
fi
if ((${#browser_pkgs[@]} > 0)); then
  echo "install-deps: installing ${browser_pkgs[*]} (for the browser tests)"
  if ! { $sudo apt-get update -qq &&
         DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${browser_pkgs[@]}" >/dev/null; }; then
    echo "install-deps: warning: ${browser_pkgs[*]} could not be installed; the browser tests will be skipped" >&2
  fi
fi
if ((${#missing[@]} == 0)); then
  echo "install-deps: all packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
