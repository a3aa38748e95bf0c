#!/usr/bin/env bash
# First command of the README: install what is missing, build, and compute the permeability of
# the bundled sample.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh
bash packaging/build.sh
./build/app/rockperm run --config samples/sphere_pack_64.ini --output.dir sphere_pack_64.out --overwrite
