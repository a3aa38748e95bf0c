#!/usr/bin/env bash
# Builds the libFuzzer harness of the volume readers with clang and runs it for a bounded
# time (FUZZ_SECONDS, default 30) on the committed seed corpus. A crash, sanitizer report or
# unexpected exception fails the script and leaves the input in build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
mkdir -p build-fuzz/corpus
clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I. \
  tests/fuzz/fuzz_volume_readers.cpp io/volume_source.cpp io/raw_source.cpp io/tiff_source.cpp \
  lib/geometry/pore_mask.cpp lib/geometry/volume.cpp -ltiff -o build-fuzz/fuzz_volume_readers 2> build-fuzz/build.log \
  || { cat build-fuzz/build.log; exit 1; }
cp -n tests/fuzz/corpus/* build-fuzz/corpus/ 2>/dev/null || true
cd build-fuzz
./fuzz_volume_readers -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  corpus 2>&1 | tail -15
