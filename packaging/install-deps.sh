#!/usr/bin/env bash
# Installs what rockperm needs to build and test on Debian/Ubuntu. Skips packages already there.
set -euo pipefail
pkgs=(cmake g++ make libboost-program-options-dev libtiff-dev libvtk9-dev
      libopenmpi-dev openmpi-bin libgtest-dev nlohmann-json3-dev libcsv-dev libxml2-dev libssl-dev clang libclang-rt-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all packages present"
  exit 0
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
