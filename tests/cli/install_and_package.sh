#!/usr/bin/env bash
# Installing rockperm the two ways docs/manual/installing.md gives (issue "Install it"):
#  1. `cmake --install` into a temporary prefix, then a project of a user's own
#     (tests/packaging/consumer) finds it with find_package(rockperm), links rockperm::core and
#     computes the permeability of a 16^3 slit through the library API (checked against theory);
#  2. the .debs CPack builds: metadata and file list checked with dpkg-deb (runtime libraries in
#     Depends, no -dev package; the executables, the sample), the runtime package installed with
#     dpkg, `rockperm --version` and the bundled sample run from the installed paths, removed again.
# usage: install_and_package.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
work=$3
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }

# --- 1. install into a prefix and build a consumer against it
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" || { cat "$work/install.log"; fail "cmake --install"; }
for f in bin/rockperm bin/rockperm-make-pack include/rockperm/pipeline/simulation.hpp \
         include/rockperm/rockperm/config.hpp lib/cmake/rockperm/rockperm-config.cmake \
         lib/cmake/rockperm/rockperm-config-version.cmake share/rockperm/samples/sphere_pack_64.ini; do
  libdir_f=$f
  [[ -e "$work/prefix/$f" ]] || { libdir_f=${f/lib\/cmake/lib\/x86_64-linux-gnu\/cmake}; [[ -e "$work/prefix/$libdir_f" ]]; } ||
    fail "the install lacks $f"
done
cmake -S "$source/tests/packaging/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
      -DCMAKE_BUILD_TYPE=Release >"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "the consumer does not configure"; }
cmake --build "$work/consumer" -j2 >>"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "the consumer does not build"; }
OMP_NUM_THREADS=2 "$work/consumer/consumer" || fail "the consumer's k is not the slit's"
# the installed executable reports the version of the one place it is set, and the commit
version=$(sed -n 's/^project(rockperm VERSION \([0-9.]*\).*/\1/p' "$source/CMakeLists.txt")
grep -q "^rockperm $version (commit " <<<"$("$work/prefix/bin/rockperm" --version)" || fail "rockperm --version: $("$work/prefix/bin/rockperm" --version)"

# --- 2. the Debian packages
(cd "$build" && cpack -G DEB -B "$work/debs" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/debs/rockperm_"$version"_*.deb)
dev=$(ls "$work"/debs/rockperm-dev_"$version"_*.deb)
depends=$(dpkg-deb --field "$deb" Depends)
echo "rockperm Depends: $depends"
[[ $(dpkg-deb --field "$deb" Package) == rockperm ]] || fail "package name"
[[ $(dpkg-deb --field "$deb" Version) == "$version" ]] || fail "package version"
for lib in libtiff libboost-program-options libgomp; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib"
done
! grep -q -- "-dev" <<<"$depends" || fail "the runtime package depends on a -dev package: $depends"
! grep -q -i "cuda" <<<"$depends" || fail "the runtime package depends on a CUDA package (the runtime is static): $depends"
contents=$(dpkg-deb --contents "$deb")
for f in ./usr/bin/rockperm ./usr/bin/rockperm-make-pack ./usr/share/rockperm/samples/sphere_pack_64.raw; do
  grep -q " $f\$" <<<"$contents" || fail "$deb lacks $f"
done
! grep -q "\.hpp$" <<<"$contents" || fail "headers in the runtime package"
dev_contents=$(dpkg-deb --contents "$dev")
grep -q "rockperm-config.cmake$" <<<"$dev_contents" || fail "the -dev package lacks the CMake package"
grep -q "include/rockperm/pipeline/simulation.hpp$" <<<"$dev_contents" || fail "the -dev package lacks the headers"
grep -q "rockperm (= $version)" <<<"$(dpkg-deb --field "$dev" Depends)" || fail "rockperm-dev does not depend on rockperm"

sudo=""
if [[ $(id -u) -ne 0 ]]; then
  if ! sudo -n true 2>/dev/null; then echo "SKIP: installing a .deb needs root or sudo"; exit 77; fi
  sudo="sudo -n"
fi
if dpkg-query -W -f='${Status}' rockperm 2>/dev/null | grep -q 'ok installed'; then
  echo "SKIP: a rockperm package is installed on this machine already; not replacing it"; exit 77
fi
trap '$sudo dpkg -r rockperm >/dev/null 2>&1 || true' EXIT
$sudo dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; fail "dpkg -i"; }
grep -q "^rockperm $version (commit " <<<"$(/usr/bin/rockperm --version)" || fail "installed rockperm --version"
mkdir -p "$work/run" && cd "$work/run"
OMP_NUM_THREADS=2 /usr/bin/rockperm run --config /usr/share/rockperm/samples/sphere_pack_64.ini \
  --output.dir="$work/run/out" --output.fields=off >"$work/run.log" 2>&1 || { cat "$work/run.log"; fail "the installed sample"; }
grep -q "^permeability  5938\.7" "$work/run.log" || { cat "$work/run.log"; fail "the installed sample's k"; }
$sudo dpkg -r rockperm >/dev/null || fail "dpkg -r"
trap - EXIT
# the Python module's package (where the build has it): installs, imports with Debian's python3
python_deb=$(ls "$work"/debs/python3-rockperm_"$version"_*.deb 2>/dev/null || true)
if [[ -n $python_deb ]]; then
  if dpkg-query -W -f='${Status}' python3-rockperm 2>/dev/null | grep -q 'ok installed'; then
    echo "SKIP: python3-rockperm is installed on this machine already; not replacing it"
  else
    grep -q "python3-numpy" <<<"$(dpkg-deb --field "$python_deb" Depends)" || fail "python3-rockperm does not depend on numpy"
    trap '$sudo dpkg -r python3-rockperm >/dev/null 2>&1 || true' EXIT
    $sudo dpkg -i "$python_deb" >"$work/dpkg-python.log" 2>&1 || { cat "$work/dpkg-python.log"; fail "dpkg -i python3-rockperm"; }
    (cd / && /usr/bin/python3 -c "import rockperm; print('rockperm', rockperm.__version__)") >"$work/import.log" 2>&1 ||
      { cat "$work/import.log"; fail "import rockperm from the package"; }
    grep -q "^rockperm $version" "$work/import.log" || fail "the module's version: $(cat "$work/import.log")"
    $sudo dpkg -r python3-rockperm >/dev/null || fail "dpkg -r python3-rockperm"
    trap - EXIT
  fi
fi
[[ ! -e /usr/bin/rockperm ]] || fail "/usr/bin/rockperm left after dpkg -r"
echo "PASS: installed, consumed, packaged, installed as .deb and removed"
