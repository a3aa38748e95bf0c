#!/usr/bin/env bash
# Installs what rockperm needs to build and test on Debian/Ubuntu. Skips packages already there.
# --browser: also headless Chromium, which the report and web page tests render in (they skip
# without it); a failure to get it is a warning, not an error.
set -euo pipefail
browser=0
[[ ${1:-} == --browser ]] && browser=1
pkgs=(cmake g++ make libboost-program-options-dev libtiff-dev libvtk9-dev
      libopenmpi-dev openmpi-bin libgtest-dev nlohmann-json3-dev libcsv-dev libxml2-dev libssl-dev libsqlite3-dev libboost-dev libarchive-dev libgmime-3.0-dev curl clang libclang-rt-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
if ((browser)) && ! dpkg-query -W -f='${Status}' chromium 2>/dev/null | grep -q 'ok installed'; then
  echo "install-deps: installing chromium (for the browser tests)"
  if ! { $sudo apt-get update -qq &&
         DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null; }; then
    echo "install-deps: warning: chromium could not be installed; the browser tests will be skipped" >&2
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
