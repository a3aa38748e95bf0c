#!/usr/bin/env bash
# Issue 50: one machine playing several hosts. Ranks 0-1 see the host name h0 and rank 2 h1
# (ROCKPERM_HOST_NAME, set from the launcher's rank: what ranks in UTS namespaces of their own
# see without it). The run on "two hosts" reads its slabs, says which transport each pair of
# neighbours takes, and prints the k of the same three ranks on one host, to every digit; the
# run on one host names no pairs.
#   fake_hosts.sh MPIEXEC ROCKPERM SAMPLES_DIR WORK_DIR
set -uo pipefail
mpiexec=$1 rockperm=$2 samples=$3 work=$4 name=fake_hosts
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail() { echo "$name: FAIL: $*" >&2; exit 1; }
cat >as_host.sh <<'WRAP'
#!/usr/bin/env bash
# ranks 0-1 on h0, 2-3 on h1, ... (OMPI_COMM_WORLD_RANK: Open MPI; PMI_RANK: MPICH)
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-0}}
ROCKPERM_HOST_NAME=h$((rank / 2)) exec "$@"
WRAP
chmod +x as_host.sh
options=(--config "$samples/sphere_pack_64.ini" --output.fields off --output.progress_seconds 0)
$mpiexec -n 3 --oversubscribe "$rockperm" run "${options[@]}" --output.dir one_host >one.log 2>&1 ||
  fail "one host: $(tail -3 one.log)"
$mpiexec -n 3 --oversubscribe ./as_host.sh "$rockperm" run "${options[@]}" --output.dir two_hosts >two.log 2>&1 ||
  fail "two hosts: $(tail -3 two.log)"
k_one=$(grep '^permeability' one.log) k_two=$(grep '^permeability' two.log)
[ -n "$k_one" ] || fail "no k: $(tail -3 one.log)"
[ "$k_one" = "$k_two" ] || fail "k on two hosts differs: '$k_two' against '$k_one'"
python3 - one_host/report.json two_hosts/report.json <<'PY' || fail "reports differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["permeability"] == b["permeability"], (a["permeability"], b["permeability"])
assert a["steps"] == b["steps"], (a["steps"], b["steps"])
PY
grep -q "^halo .*pairs staged 0-1 1-2 2-0" two.log || fail "the pairs of two hosts: $(grep '^halo' two.log)"
grep '^halo' one.log | grep -q pairs && fail "one host names pairs: $(grep '^halo' one.log)"
echo "$name: $k_two on both; $(grep '^halo' two.log)"
