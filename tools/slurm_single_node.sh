#!/usr/bin/env bash
# A real single-node Slurm on this machine (Debian's slurm-wlm, MpiDefault=none, no accounting),
# for trying rockperm's Slurm scripts and `rockperm serve` with executor = slurm by hand (issue
# 53). Run as root on a machine without its own Slurm; it installs slurm-wlm and munge, writes
# DIR/slurm.conf and starts munged, slurmctld and slurmd in the background (logs in DIR).
#   tools/slurm_single_node.sh start [DIR]   # default DIR /tmp/rockperm-slurm; prints the node's line
#   tools/slurm_single_node.sh stop [DIR]
# Then `sinfo`, `sbatch`, `squeue` work as on a cluster of one node named after this host, with
# its CPUs as the node's and no GPUs (service: slurm_gpus = off, run.backend = cpu).
set -euo pipefail
what=${1:?usage: slurm_single_node.sh start|stop [DIR]} dir=${2:-/tmp/rockperm-slurm}
[ "$(id -u)" -eq 0 ] || { echo "slurm_single_node: run as root (it starts slurmd and munged)" >&2; exit 2; }
if [ "$what" = stop ]; then
  for d in slurmd slurmctld munged; do pkill -x "$d" || true; done
  exit 0
fi
[ "$what" = start ] || { echo "slurm_single_node: start or stop, not '$what'" >&2; exit 2; }
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi
mkdir -p "$dir"/{state,spool} /etc/slurm /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
[ -s /etc/munge/munge.key ] || { mkdir -p /etc/munge && dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none; }
chown munge:munge /etc/munge/munge.key 2>/dev/null || true
chmod 400 /etc/munge/munge.key
pgrep -x munged >/dev/null || sudo -u munge munged 2>/dev/null || munged --force
host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
cat >/etc/slurm/slurm.conf <<CONF
ClusterName=rockperm-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=300
KillWait=30
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
pgrep -x slurmctld >/dev/null || slurmctld -c
pgrep -x slurmd >/dev/null || slurmd
for _ in $(seq 1 50); do sinfo -h -o "%n %T" 2>/dev/null | grep -qE "idle|mix|alloc" && break; sleep 0.2; done
sinfo -N -o "%N %T %c CPUs" || { echo "slurm_single_node: the node did not come up; see $dir/*.log" >&2; exit 1; }
