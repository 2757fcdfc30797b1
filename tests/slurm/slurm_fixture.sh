#!/bin/bash
# Starts a throw-away Slurm cluster on this machine: munged with its own key and socket,
# slurmctld and one slurmd, all from Debian's slurm-wlm, config and state in $1.
# One node: Debian's slurm-wlm is not built with --enable-multiple-slurmd, so several slurmd
# on one host are not possible. Prints the environment to source on stdout.
set -euo pipefail
dir=$1
mkdir -p "$dir"/{state,spool,log,munge}
chmod 700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/key"
user=$(id -un)
# Both ports below the kernel's ephemeral range: a port inside it may be held by any connection
# on the machine (one in TIME-WAIT is enough), and slurmd then cannot bind it ("Address already
# in use": the node never comes up; seen with 36284).
low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
[ "${low:-0}" -gt 21000 ] 2>/dev/null || low=40000
port=$((20000 + RANDOM % (low - 20001)))
# The node's name is the cluster's own: task/cgroup keeps its cgroups under slurm_<node>, apart
# from another fixture's running at the same time (job ids start at 1 in each).
node=mpilaunch$port
# More CPUs than the machine has (config_overrides), so the time-limit job of slurm_e2e.sh
# can run beside the other tests instead of holding the node for its whole minute.
cpus=$(( $(nproc) < 8 ? 8 : $(nproc) ))
# Slurm's task/cgroup confines each step to the job's CPUs (a cpuset cgroup), as on a real
# cluster, so the suite can check that no rank runs outside them. It needs the cgroup v1 cpuset
# hierarchy, writable (Slurm 22.05's cgroup/v1; its cgroup/v2 wants systemd): where it is not,
# steps run on every CPU (task/none) and slurm_e2e.sh says so. Its tree is removed at cleanup.
task_plugin=task/none
cpuset=/sys/fs/cgroup/cpuset
if [ -w "$cpuset/cpuset.cpus" ] && mkdir "$cpuset/mpilaunch-probe.$$" 2>/dev/null &&
  rmdir "$cpuset/mpilaunch-probe.$$"; then
  task_plugin=task/cgroup,task/affinity
  cat > "$dir/cgroup.conf" <<CGROUP
CgroupPlugin=cgroup/v1
CgroupMountpoint=/sys/fs/cgroup
ConstrainCores=yes
CGROUP
fi
munged --key-file="$dir/munge/key" --socket="$dir/munge/socket" \
  --pid-file="$dir/munge/pid" --log-file="$dir/munge/log" --seed-file="$dir/munge/seed" --force
cat > "$dir/slurm.conf" <<CONF
ClusterName=mpilaunchtest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=$task_plugin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=5
KillWait=2
InactiveLimit=0
SlurmdParameters=config_overrides
NodeName=$node NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF" -i
slurmd -f "$SLURM_CONF" -N "$node"
echo "export SLURM_CONF=$SLURM_CONF MPILAUNCH_SLURM_TASK_PLUGIN=$task_plugin MPILAUNCH_SLURM_NODE=$node"
