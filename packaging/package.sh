#!/usr/bin/env bash
# Builds rockperm's Debian packages into dist/: rockperm_<version>_<arch>.deb (the executables,
# the bundled sample, the systemd and Slurm files; its dependencies are the runtime libraries
# dpkg-shlibdeps finds, and the CUDA runtime is linked in, so the NVIDIA driver is the only GPU
# requirement) and rockperm-dev_<version>_<arch>.deb (headers, static libraries, the CMake package).
# Builds first (packaging/build.sh: CUDA for sm_90 when nvcc is found; set CUDA_ARCHITECTURES to
# change, e.g. "80;90").
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -n ${CUDA_ARCHITECTURES:-} ]]; then
  cmake -S . -B build -DCMAKE_CUDA_ARCHITECTURES="$CUDA_ARCHITECTURES" >/dev/null
fi
bash packaging/build.sh
rm -rf dist && mkdir -p dist
(cd build && cpack -G DEB -B ../dist/cpack >/dev/null)
mv dist/cpack/*.deb dist/ && rm -rf dist/cpack
for deb in dist/*.deb; do
  echo "$deb: $(dpkg-deb --field "$deb" Package) $(dpkg-deb --field "$deb" Version)"
  echo "  Depends: $(dpkg-deb --field "$deb" Depends)"
done
