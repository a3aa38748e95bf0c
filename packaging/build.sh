#!/usr/bin/env bash
# Configures and builds rockperm in build/ (CUDA on when nvcc is found, for sm_90).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
vtk=()
if [ ! -e build/CMakeCache.txt ] && ! compgen -G '/usr/lib/*/cmake/vtk*/vtk-config.cmake' >/dev/null &&
   ! compgen -G '/usr/lib/cmake/vtk*/vtk-config.cmake' >/dev/null; then
  echo "build: VTK is not installed (libvtk9-dev): building without the ParaView field writer (output.fields = off)" >&2
  vtk=(-DROCKPERM_ENABLE_VTK=OFF)
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${vtk[@]}" >build-configure.log 2>&1 || { cat build-configure.log; exit 1; }
rm -f build-configure.log
cmake --build build -j"$(nproc)"
