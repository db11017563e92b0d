#!/usr/bin/env bash
# two-hosts.sh - two Soft-RoCE guests ("hosts") joined by a qemu socket NIC,
# a server command in guest A and a client command in guest B.
#
#   usage: two-hosts.sh [SERVER_CMD CLIENT_CMD | --java [--sample JAR | --faults JAR]]
#
#   SERVER_CMD / CLIENT_CMD are shell strings run with bash in guest A / B (in
#   the current directory, shared read-write).  Without arguments a demo runs:
#   rping (rdma_cm) plus ib_send_lat -R and ib_send_bw -R (perftest over
#   rdma_cm) from B to A.  --java (run from rdma-verbs/ after test-compile and
#   dependency:build-classpath -Dmdep.outputFile=target/test-classpath.txt)
#   runs the Java demo instead: io.rdma.verbs.twohosts.TwoHostServer in A,
#   TwoHostClient in B, rdma_cm connect + TWO_HOSTS_ROUNDS (100) checked
#   request/response round trips; TWO_HOSTS_ROUNDS, TWO_HOSTS_RDMA_PORT (7471)
#   and TWO_HOSTS_WAIT_SECONDS (300) are passed to both guests.  --sample JAR
#   then runs the sample app (sample-app/target/sample-app-*.jar) in both
#   guests, in the same boots, the two instances finding each other through
#   a ZooKeeper in A (run from target/test-classpath.txt beside the jar)
#   (sample-discovery-two-hosts.sh: what it checks; SAMPLE_HTTP_PORT,
#   SAMPLE_ROUND_TRIPS, SAMPLE_KEYS and SAMPLE_WAIT_SECONDS are passed to both guests).
#   --faults JAR runs sample-faults-two-hosts.sh in both guests instead, after
#   the Java demo: the two instances find each other the same way, then faults
#   of the peer and the link while they exchange traffic (that script says what
#   it checks; its FAULTS_* variables are passed to both guests). It needs
#   sample-app/target/test-classes (test-compile) beside the jar's target/.
#
# Network: A = 10.80.0.1, B = 10.80.0.2 on eth0 (virtio-net; the two qemus
# are connected by `-netdev socket` over TCP on host 127.0.0.1:$TWO_HOSTS_PORT),
# rxe0 on eth0 in both, GID index 1 = ::ffff:10.80.0.x (RoCE v2).
# Guest environment: SOFTROCE_ROLE=server|client, SERVER_IP, CLIENT_IP,
# PEER_IP (the other guest), SOFTROCE_IP (own address), and a bash function
# `retry N CMD...` (re-runs CMD up to N times, 1 s apart, until it succeeds -
# use it on the client side, the server may not listen yet).
#
# Environment: TWO_HOSTS_PORT (default: random free port 40000-59999),
#   TWO_HOSTS_MEM (per guest, default 2G), TWO_HOSTS_SMP (per guest, default 1:
#   2 guests x 1 vCPU on this 2-core host), TWO_HOSTS_TIMEOUT (per guest,
#   default 900 s), TWO_HOSTS_GRACE (how long the server may run on after the
#   client finished, default 60 s, then it is killed) and softroce-vm.sh's
#   SOFTROCE_* knobs (except SOFTROCE_SETUP/SOFTROCE_QEMU_ARGS, set here).
# Output: guest A's lines prefixed "[A] ", B's "[B] ".
# Exit status: 0 if both commands succeeded; else the client's status if it
# failed, else the server's (124 = server killed after the grace period).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
SERVER_IP=10.80.0.1 CLIENT_IP=10.80.0.2
MEM=${TWO_HOSTS_MEM:-2G}; SMP=${TWO_HOSTS_SMP:-1}
TMO=${TWO_HOSTS_TIMEOUT:-900}; GRACE=${TWO_HOSTS_GRACE:-60}

if [ $# -eq 0 ]; then
  server_cmd='set -e
rping -s -a $SERVER_IP -C 20 -v | tail -2
echo "server: rping done"
ib_send_lat -R -d rxe0 -x 1 -s 64 -n 500
ib_send_bw -R -d rxe0 -x 1 -s 65536 -n 500'
  client_cmd='set -e
retry 30 rping -c -a $SERVER_IP -C 20 -v | tail -2
echo "client: rping done"
sleep 1; retry 30 ib_send_lat -R -d rxe0 -x 1 -s 64 -n 500 $SERVER_IP
sleep 1; retry 30 ib_send_bw -R -d rxe0 -x 1 -s 65536 -n 500 $SERVER_IP'
elif [ "${1:-}" = --java ] && { [ $# -eq 1 ] || { [ $# -eq 3 ] && { [ "$2" = --sample ] || [ "$2" = --faults ]; }; }; }; then
  # the Java demo: io.rdma.verbs.twohosts.TwoHostServer / TwoHostClient from this
  # module's build (run `mvn test-compile dependency:build-classpath
  # -Dmdep.outputFile=target/test-classpath.txt` first; the client retries itself)
  [ -f target/test-classpath.txt ] && [ -d target/test-classes/io/rdma/verbs/twohosts ] || {
    echo "two-hosts: --java needs target/test-classes and target/test-classpath.txt in $PWD (build the module first)" >&2
    exit 2; }
  java_cmd="${SOFTROCE_JAVA:-${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java} -XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
  java_cmd+=" --enable-native-access=ALL-UNNAMED -cp target/test-classes:target/classes:$(cat target/test-classpath.txt)"
  server_cmd="$java_cmd io.rdma.verbs.twohosts.TwoHostServer"
  client_cmd="$java_cmd io.rdma.verbs.twohosts.TwoHostClient"
  if [ $# -eq 3 ]; then
    [ -f "$3" ] || { echo "two-hosts: $2 $3: no such jar (./mvnw -pl sample-app -am package -DskipTests)" >&2; exit 2; }
    sample_jar=$(cd "$(dirname "$3")" && pwd -P)/$(basename "$3")
    script=sample-discovery-two-hosts.sh
    [ "$2" = --faults ] && script=sample-faults-two-hosts.sh
    server_cmd+=" && bash $HERE/$script $(printf %q "$sample_jar")"
    client_cmd+=" && bash $HERE/$script $(printf %q "$sample_jar")"
  fi
  for v in TWO_HOSTS_ROUNDS TWO_HOSTS_RDMA_PORT TWO_HOSTS_WAIT_SECONDS SAMPLE_HTTP_PORT SAMPLE_ROUND_TRIPS SAMPLE_KEYS \
           SAMPLE_WAIT_SECONDS FAULTS_KEYS FAULTS_CLIENTS FAULTS_STEADY_SECONDS FAULTS_ACK_TIMEOUT FAULTS_RETRY_COUNT \
           FAULTS_SLACK_SECONDS FAULTS_SCENARIOS; do
    [ -n "${!v:-}" ] && SOFTROCE_ENV="${SOFTROCE_ENV:-}"$'\n'"export $v=$(printf %q "${!v}")"
  done
elif [ $# -eq 2 ]; then
  server_cmd=$1 client_cmd=$2
else
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2
fi

port=${TWO_HOSTS_PORT:-}
if [ -z "$port" ]; then
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    port=$((40000 + RANDOM % 20000))
    ss -Htln "sport = :$port" | grep -q . || break
  done
fi

prelude='retry() { n=$1; shift; i=1; until "$@"; do [ $i -ge $n ] && return 1; i=$((i+1)); sleep 1; done; }'
tmp=$(mktemp -d "${TMPDIR:-/tmp}/two-hosts.XXXXXX")
a_pid= b_pid=
cleanup() {
  for p in $a_pid $b_pid; do kill -0 "$p" 2>/dev/null && kill -TERM -- "-$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkfifo "$tmp/A" "$tmp/B"
sed -u 's/^/[A] /' < "$tmp/A" & sed_a=$!
sed -u 's/^/[B] /' < "$tmp/B" & sed_b=$!

# start_vm ROLE IP MAC SOCKET-OPTION NAME: softroce-vm.sh in its own session
# (setsid), so that the whole VM (timeout + qemu) can be killed as a group
start_vm() {
  local role=$1 ip=$2 mac=$3 sock=$4 name=$5 cmd peer
  [ "$role" = server ] && { cmd=$server_cmd; peer=$CLIENT_IP; } || { cmd=$client_cmd; peer=$SERVER_IP; }
  SOFTROCE_SMP=$SMP SOFTROCE_MEM=$MEM SOFTROCE_TIMEOUT=$TMO \
  SOFTROCE_ENV="${SOFTROCE_ENV:-}
export SOFTROCE_ROLE=$role SERVER_IP=$SERVER_IP CLIENT_IP=$CLIENT_IP SOFTROCE_IP=$ip PEER_IP=$peer" \
  SOFTROCE_SETUP="ip link set lo up; ip addr add $ip/24 dev eth0; ip link set eth0 up; rdma link add rxe0 type rxe netdev eth0" \
  SOFTROCE_QEMU_ARGS="-netdev socket,id=n0,$sock -device virtio-net-pci,netdev=n0,mac=$mac" \
    setsid "$HERE/softroce-vm.sh" /bin/bash -c "$prelude
$cmd" "$role" > "$tmp/$name" 2>&1 &
}
listening() { ss -Htln "sport = :$port" | grep -q .; }

echo "two-hosts: A (server) $SERVER_IP <-> B (client) $CLIENT_IP, qemu socket 127.0.0.1:$port" >&2
t0=$(date +%s)
start_vm server $SERVER_IP 52:54:00:80:00:01 "listen=127.0.0.1:$port" A; a_pid=$!
# B's qemu must connect after A's qemu listens (A may first install packages
# or build the kernel cache on a fresh machine: wait up to 10 min)
for _ in $(seq 1 6000); do listening && break; kill -0 $a_pid 2>/dev/null || break; sleep 0.1; done
if ! listening; then
  echo "two-hosts: ERROR: guest A's qemu never listened on 127.0.0.1:$port" >&2
  exit 1
fi
start_vm client $CLIENT_IP 52:54:00:80:00:02 "connect=127.0.0.1:$port" B; b_pid=$!

set +e
wait $b_pid; b_rc=$?
a_rc=
for _ in $(seq 1 "$GRACE"); do kill -0 $a_pid 2>/dev/null || break; sleep 1; done
if kill -0 $a_pid 2>/dev/null; then
  echo "two-hosts: server still running ${GRACE}s after the client finished: killing guest A" >&2
  kill -TERM -- "-$a_pid"; wait $a_pid; a_rc=124
else
  wait $a_pid; a_rc=$?
fi
wait $sed_a $sed_b 2>/dev/null
set -e
echo "two-hosts: server (A) exit status $a_rc, client (B) exit status $b_rc, $(( $(date +%s) - t0 )) s in all" >&2
[ $b_rc != 0 ] && exit $b_rc
exit $a_rc
