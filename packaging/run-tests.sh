#!/usr/bin/env bash
# Second command of the README: build and run every test (unit, validation, cli; gpu tests skip
# without a device).
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/install-deps.sh --browser
bash packaging/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ctest --test-dir build --output-on-failure -j"$(nproc)" --timeout 1200
