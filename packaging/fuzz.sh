#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang — the volume readers, what the service unpacks
# from requests (multipart bodies, zip/tar archives), and the requests themselves (HTTP, JSON) —
# and runs each for a bounded time (FUZZ_SECONDS, default 30) on its committed seed corpus. A crash, sanitizer report or
# unexpected exception fails the script and leaves the input in build-fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
mkdir -p build-fuzz/corpus
clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I. \
  tests/fuzz/fuzz_volume_readers.cpp io/volume_source.cpp io/raw_source.cpp io/tiff_source.cpp \
  lib/geometry/pore_mask.cpp lib/geometry/grey_map.cpp lib/geometry/volume.cpp -ltiff -o build-fuzz/fuzz_volume_readers 2> build-fuzz/build.log \
  || { cat build-fuzz/build.log; exit 1; }
# shellcheck disable=SC2046
clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I. \
  $(pkg-config --cflags gmime-3.0) tests/fuzz/fuzz_uploads.cpp app/service/multipart.cpp app/service/uploads.cpp \
  io/archive.cpp io/atomic_file.cpp io/volume_source.cpp io/raw_source.cpp io/tiff_source.cpp \
  lib/geometry/pore_mask.cpp lib/geometry/grey_map.cpp lib/geometry/volume.cpp $(pkg-config --libs gmime-3.0) -larchive -ltiff \
  -o build-fuzz/fuzz_uploads 2> build-fuzz/build_uploads.log || { cat build-fuzz/build_uploads.log; exit 1; }
clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I. \
  tests/fuzz/fuzz_requests.cpp app/service/client_json.cpp -o build-fuzz/fuzz_requests 2> build-fuzz/build_requests.log \
  || { cat build-fuzz/build_requests.log; exit 1; }
mkdir -p build-fuzz/corpus_uploads build-fuzz/corpus_requests
cp -n tests/fuzz/corpus/* build-fuzz/corpus/ 2>/dev/null || true
cp -n tests/fuzz/corpus_uploads/* build-fuzz/corpus_uploads/ 2>/dev/null || true
cp -n tests/fuzz/corpus_requests/* build-fuzz/corpus_requests/ 2>/dev/null || true
cd build-fuzz
for harness in volume_readers:corpus uploads:corpus_uploads requests:corpus_requests; do
  echo "fuzz_${harness%%:*}:"
  ./fuzz_"${harness%%:*}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    "${harness#*:}" 2>&1 | tail -15
done
