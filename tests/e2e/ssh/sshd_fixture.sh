#!/usr/bin/env bash
# A throw-away sshd on loopback for the ssh end-to-end tests.
#   sshd_fixture.sh DIR   generates host and user keys, sshd_config, ssh_config and known_hosts
#                         in DIR, starts sshd on a free port on 127.0.0.1-8 (hosts node1..node8;
#                         the tests use node1-3, the bench's bring-up scale all eight) and waits
#                         until it accepts connections (deadline 10 s). Prints "port PID".
#   SSHD_FIXTURE_NO_RC=1  sessions start bash without the user's ~/.bashrc (the bench's second
#                         ssh configuration): sshd sets SHLVL=1, and bash reads ~/.bashrc for an
#                         ssh command only as a top-level shell (SHLVL unset or 0).
#   sshd_fixture.sh DIR OWNER   the same, and sshd is stopped once process OWNER (the test) is
#                         gone, should the test be killed before it stops sshd itself.
# Stop it with: kill PID. Nothing here contacts an address outside 127.0.0.0/8.
set -euo pipefail
dir=$1
owner=${2:-}
mkdir -p "$dir" /run/sshd
cd "$dir"
ssh-keygen -q -t ed25519 -N '' -C fixture-host -f host_key
ssh-keygen -q -t ed25519 -N '' -C fixture-other-host -f other_host_key
ssh-keygen -q -t ed25519 -N '' -C fixture-user -f user_key
ssh-keygen -q -t ed25519 -N '' -C fixture-wrong-user -f wrong_key
cp user_key.pub authorized_keys

addrs="127.0.0.1 127.0.0.2 127.0.0.3 127.0.0.4 127.0.0.5 127.0.0.6 127.0.0.7 127.0.0.8"
# A port that is free on all eight addresses (checked by binding; sshd binds right after).
port=$(python3 - <<'PY'
import socket
for _ in range(200):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close()
    try:
        held = []
        for a in ["127.0.0.%d" % i for i in range(1, 9)]:
            t = socket.socket(); t.bind((a, p)); held.append(t)
        for t in held: t.close()
        print(p); break
    except OSError:
        for t in held: t.close()
PY
)
# A free port on 127.0.0.1 (the kernel's choice; nothing holds it afterwards).
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
# A port nothing listens on, for the connect-failure case.
closed_port=$(free_port)
# The port of a second sshd that a test starts late (--wait-for-hosts): sshd_config_late.
late_port=$(free_port)
# Two more ports of this sshd, on 127.0.0.1 only, whose sessions' bash skips ~/.bashrc
# (SHLVL=1), whatever the machine's is: host "fastlogin" runs nothing else before the command,
# host "slowlogin" runs slow_login.sh (BASH_ENV), which takes a second.
fast_port=$(free_port)
slow_port=$(free_port)
while [ "$slow_port" = "$fast_port" ]; do slow_port=$(free_port); done
printf '# the start-up files of a heavy login shell, for mpilaunch doctor'"'"'s login check\nsleep 1\n' \
  > slow_login.sh

# Sanitizer settings reach the sessions' processes too (sshd does not pass our environment on):
# tools/test runs this suite in the ASan build, whose test programs must not fail on leaks
# inside Open MPI.
session_env=""
for name in ASAN_OPTIONS UBSAN_OPTIONS; do
  if [ -n "${!name:-}" ]; then session_env="$session_env $name=${!name}"; fi
done

if [ "${SSHD_FIXTURE_NO_RC:-0}" = 1 ]; then session_env="$session_env SHLVL=1"; fi

# OpenSSH 9.8 and later (Debian 13: 10.0) refuse connections, for up to 10 minutes, from an
# address whose earlier connections ended before authentication often enough
# (PerSourcePenalties, on by default: noauth 1 s each, enforced from 15 s): this suite's host-key
# refusals all come from 127.0.0.x, and later cases then fail to connect ("Socket error:
# disconnected", seen in the Debian 13 chroot). Off where this sshd knows the option.
penalties=""
if /usr/sbin/sshd -G -f /dev/null -o PerSourcePenalties=no >/dev/null 2>&1; then
  penalties="PerSourcePenalties no"
fi

cat > sshd_config <<CONF
Port $port
$(for a in $addrs; do echo "ListenAddress $a"; done)
ListenAddress 127.0.0.1:$fast_port
ListenAddress 127.0.0.1:$slow_port
HostKey $dir/host_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PermitRootLogin yes
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
KexAlgorithms curve25519-sha256
MaxStartups 100:30:200
MaxSessions 100
PrintMotd no
PrintLastLog no
LogLevel ERROR
$penalties
# Agent deployment (--deploy-agent): SFTP for the upload, and a cache under this directory
# instead of the user's real ~/.cache; on 127.0.0.3 (node3) the cache cannot be created.
Subsystem sftp internal-sftp
SetEnv XDG_CACHE_HOME=$dir/cache$session_env
Match LocalAddress 127.0.0.3
  SetEnv XDG_CACHE_HOME=/proc/mpilaunch-fixture-unwritable$session_env
Match LocalPort $fast_port
  SetEnv XDG_CACHE_HOME=$dir/cache$session_env SHLVL=1
Match LocalPort $slow_port
  SetEnv XDG_CACHE_HOME=$dir/cache$session_env SHLVL=1 BASH_ENV=$dir/slow_login.sh
CONF

# The late sshd offers no SFTP subsystem (the deployment case that needs one to fail).
sed -e "s/^Port .*/Port $late_port/" -e '/^ListenAddress 127.0.0.[2-8]$/d' \
    -e '/^ListenAddress .*:/d' \
    -e "s|^PidFile .*|PidFile $dir/sshd_late.pid|" -e '/^Subsystem /d' \
    -e '/^Match /,$d' sshd_config > sshd_config_late

hostkey=$(cut -d' ' -f1,2 host_key.pub)
otherkey=$(cut -d' ' -f1,2 other_host_key.pub)
: > known_hosts_empty
patterns=""
for a in $addrs; do patterns="$patterns[$a]:$port,"; done
echo "$patterns[127.0.0.1]:$late_port,[127.0.0.1]:$fast_port,[127.0.0.1]:$slow_port $hostkey" \
  > known_hosts
echo "[127.0.0.3]:$port $otherkey" > known_hosts_changed
# The right key, known, and also marked @revoked (libssh alone would accept it); the same mark
# in a global file only; and the key only as a certificate authority (must fail closed).
{ cat known_hosts; echo "@revoked * $hostkey"; } > known_hosts_revoked
echo "@revoked * $hostkey" > known_hosts_global_revoked
echo "@cert-authority * $hostkey" > known_hosts_ca

common="Port $port
  User root
  IdentityFile $dir/user_key
  UserKnownHostsFile $dir/known_hosts"
{
  n=0
  for a in $addrs; do
    n=$((n + 1))
    printf 'Host node%d\n  HostName %s\n  %s\n' "$n" "$a" "$common"
  done
} > ssh_config
cat >> ssh_config <<CONF
Host late
  HostName 127.0.0.1
  Port $late_port
  User root
  IdentityFile $dir/user_key
  UserKnownHostsFile $dir/known_hosts
Host badport
  HostName 127.0.0.1
  Port $closed_port
  User root
  IdentityFile $dir/user_key
  UserKnownHostsFile $dir/known_hosts
Host wrongkey
  HostName 127.0.0.1
  Port $port
  User root
  IdentityFile $dir/wrong_key
  UserKnownHostsFile $dir/known_hosts
Host unknownkey
  HostName 127.0.0.2
  Port $port
  User root
  IdentityFile $dir/user_key
  UserKnownHostsFile $dir/known_hosts_empty
Host changedkey
  HostName 127.0.0.3
  Port $port
  User root
  IdentityFile $dir/user_key
  UserKnownHostsFile $dir/known_hosts_changed
Host revokedkey
  HostName 127.0.0.4
  Port $port
  User root
  IdentityFile $dir/user_key
  UserKnownHostsFile $dir/known_hosts_revoked
Host revokedglobal
  HostName 127.0.0.4
  Port $port
  User root
  IdentityFile $dir/user_key
  UserKnownHostsFile $dir/known_hosts
  GlobalKnownHostsFile $dir/known_hosts_global_revoked
Host devzerokh
  HostName 127.0.0.4
  Port $port
  User root
  IdentityFile $dir/user_key
  UserKnownHostsFile /dev/zero
Host cakey
  HostName 127.0.0.5
  Port $port
  User root
  IdentityFile $dir/user_key
  UserKnownHostsFile $dir/known_hosts_ca
Host fastlogin
  HostName 127.0.0.1
  Port $fast_port
  User root
  IdentityFile $dir/user_key
  UserKnownHostsFile $dir/known_hosts
Host slowlogin
  HostName 127.0.0.1
  Port $slow_port
  User root
  IdentityFile $dir/user_key
  UserKnownHostsFile $dir/known_hosts
CONF

/usr/sbin/sshd -D -e -f "$dir/sshd_config" < /dev/null > /dev/null 2> "$dir/sshd.log" &
pid=$!
deadline=$((SECONDS + 10))
for addr in $addrs; do
  until (exec 3<>"/dev/tcp/$addr/$port") 2>/dev/null; do
    if ! kill -0 $pid 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      echo "sshd did not start:" >&2; cat "$dir/sshd.log" >&2; kill $pid 2>/dev/null || true
      exit 1
    fi
    sleep 0.02
  done
done
# A watcher for the owner, checking once a second, ending with the owner or with sshd; its
# output goes nowhere, so that the caller's read of ours ends here.
if [ -n "$owner" ]; then
  (
    while kill -0 "$owner" 2>/dev/null && kill -0 "$pid" 2>/dev/null; do sleep 1; done
    kill "$pid" 2>/dev/null || true
  ) </dev/null >/dev/null 2>&1 &
fi
echo "$port $pid"
