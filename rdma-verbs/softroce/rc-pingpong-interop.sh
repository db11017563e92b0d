#!/usr/bin/env bash
# rc-pingpong-interop.sh - wire compatibility with C, both ways: the project's
# io.rdma.verbs.wire.RcPingpongPeer (written against the public verbs API only)
# against rdma-core's own ibv_rc_pingpong (ibverbs-utils) on rxe0, in ONE
# Soft-RoCE guest.
#
#   usage (in rdma-verbs/, after `test-compile dependency:build-classpath
#   -Dmdep.outputFile=target/test-classpath.txt` on the host):
#     softroce/softroce-vm.sh bash softroce/rc-pingpong-interop.sh
#
# Runs inside the guest (softroce-vm.sh's default setup: rxe0 on a dummy netdev
# with 10.77.0.1, GID index 1 = ::ffff:10.77.0.1, RoCE v2) two exchanges, one
# after the other:
#   1. ibv_rc_pingpong as the server, RcPingpongPeer as the client
#   2. RcPingpongPeer as the server, ibv_rc_pingpong as the client
# Both sides get -d rxe0 -g 1 -s $PINGPONG_SIZE -n $PINGPONG_ITERS and keep the
# defaults of the rest (TCP port 18515, MTU 1024, rx depth 500), so the two
# programs' defaults must agree too; the C side runs with -c (its client marks
# the first byte of every page, its server checks the marks after the last
# message).  The client starts once the server listens on the TCP port (ss):
# ibv_rc_pingpong's client does not retry its connect.
# An exchange passes when both sides exit 0 within $PINGPONG_TIMEOUT s, each
# side's "remote address" line is the other's "local address" (the out-of-band
# message went through intact both ways), both print "<2 x size x iters> bytes
# in ..." and "<iters> iters in ...", the C side prints no "invalid data in
# page", and the Java side prints its OK line (it checked every completion,
# both counts, and every received message's length and bytes).
#
# Environment (the guest's: pass them with softroce-vm.sh's SOFTROCE_ENV, e.g.
#   SOFTROCE_ENV="export PINGPONG_ITERS=1000"): PINGPONG_SIZE (4096),
#   PINGPONG_ITERS (100), PINGPONG_TIMEOUT (180 s per side: under TCG, on a
#   host shared with other VMs, the Java server listened 49-64 s after its
#   launch; a broken exchange mostly hangs rather than fails), SOFTROCE_JAVA
#   (the guest's java, default $JAVA_HOME/bin/java, else Temurin 25's).
# Output: each side's lines prefixed "[C server] ", "[Java client] " ..., then
#   one line per exchange: "rc-pingpong-interop: C server, Java client: PASS;
#   C: <bytes line>, <usec/iter>; Java: ..." or "...: FAIL: <what failed>".
#   The logs stay in target/rc-pingpong-interop/.
# Exit status: 0 when both exchanges passed, 1 when one failed, 2 when the
#   build is missing.
set -uo pipefail # no -e: a failed side is checked and reported, then the other exchange still runs

SIZE=${PINGPONG_SIZE:-4096}
ITERS=${PINGPONG_ITERS:-100}
TIMEOUT=${PINGPONG_TIMEOUT:-180}
SERVER_IP=10.77.0.1 # softroce-vm.sh's dummy netdev, under rxe0
TCP_PORT=18515      # ibv_rc_pingpong's default, which neither side is given
LOGS=target/rc-pingpong-interop

if [ ! -f target/test-classpath.txt ] || [ ! -f target/test-classes/io/rdma/verbs/wire/RcPingpongPeer.class ]; then
  echo "rc-pingpong-interop: needs target/test-classes and target/test-classpath.txt in $PWD (build rdma-verbs first)" >&2
  exit 2
fi
java_peer=("${SOFTROCE_JAVA:-${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}/bin/java}" -XX:TieredStopAtLevel=1
  -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED
  -cp "target/test-classes:target/classes:$(cat target/test-classpath.txt)" io.rdma.verbs.wire.RcPingpongPeer)
common_options=(-d rxe0 -g 1 -s "$SIZE" -n "$ITERS")
bytes=$((2 * SIZE * ITERS)) # what rc_pingpong.c prints: size * iters * 2
mkdir -p "$LOGS"
summaries=()

# run_side C|Java [HOST]: that side as the server (no HOST) or as the client of HOST, bounded by
# TIMEOUT (then SIGTERM, and SIGKILL 10 s later). The C side's stdout is line-buffered, so that
# what it printed before a timeout is not lost with its stdio buffer.
run_side() {
  local kind=$1
  shift
  case $kind in
  C) timeout -k 10 "$TIMEOUT" stdbuf -oL ibv_rc_pingpong -c "${common_options[@]}" "$@" ;;
  Java) timeout -k 10 "$TIMEOUT" "${java_peer[@]}" "${common_options[@]}" "$@" ;;
  esac
}

# wait_until_listening PID: until something listens on TCP_PORT, PID exits, or TIMEOUT passes.
wait_until_listening() {
  local deadline=$((SECONDS + TIMEOUT))
  until ss -Hltn "sport = :$TCP_PORT" | grep -q .; do
    if ! kill -0 "$1" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
      return 1
    fi
    sleep 0.2
  done
}

# check_exit ROLE STATUS: adds to the caller's problems what a non-zero STATUS means.
check_exit() {
  case $2 in
  0) ;;
  124) problems+=("$1 timed out after $TIMEOUT s") ;;
  *) problems+=("$1 exited with status $2") ;;
  esac
}

# figures LOG: rc_pingpong.c's two result lines as "<bytes line>, <usec/iter>", empty when either is missing.
figures() {
  local throughput latency
  throughput=$(grep -x "$bytes bytes in [0-9.]* seconds = [0-9.]* Mbit/sec" "$1")
  latency=$(grep -x "$ITERS iters in [0-9.]* seconds = [0-9.]* usec/iter" "$1" | sed 's/.* = //')
  [ -n "$throughput" ] && [ -n "$latency" ] && echo "$throughput, $latency"
}

# address LOG local|remote: the QP address a side printed (LID, QPN, PSN, GID).
address() {
  sed -n "s/^  $2 address: *//p" "$1"
}

# exchange SERVER_KIND CLIENT_KIND: one exchange; adds its summary line, returns 0 when it passed.
exchange() {
  local server=$1 client=$2 name="$1 server, $2 client"
  local server_log="$LOGS/$1-server.log" client_log="$LOGS/$2-client.log"
  local server_pid server_status client_status problems=() c_log java_log side
  echo "rc-pingpong-interop: $name"
  run_side "$server" >"$server_log" 2>&1 &
  server_pid=$!
  if wait_until_listening "$server_pid"; then
    run_side "$client" "$SERVER_IP" >"$client_log" 2>&1
    client_status=$?
  else
    : >"$client_log"
    client_status=none # the client never ran
  fi
  wait "$server_pid"
  server_status=$?
  sed "s/^/[$server server] /" "$server_log"
  sed "s/^/[$client client] /" "$client_log"

  check_exit "the $server server" "$server_status"
  if [ "$client_status" = none ]; then
    problems+=("the $server server never listened on TCP port $TCP_PORT, so the $client client did not run")
  else
    check_exit "the $client client" "$client_status"
  fi
  if [ "$(address "$server_log" remote)" != "$(address "$client_log" local)" ] ||
    [ "$(address "$client_log" remote)" != "$(address "$server_log" local)" ] ||
    [ -z "$(address "$server_log" local)" ] || [ -z "$(address "$client_log" local)" ]; then
    problems+=("the addresses each side printed do not match what the other announced")
  fi
  for side in "$server_log" "$client_log"; do
    [ -n "$(figures "$side")" ] || problems+=("$side lacks \"$bytes bytes in ...\" or \"$ITERS iters in ...\"")
  done
  if [ "$server" = C ]; then c_log=$server_log java_log=$client_log; else c_log=$client_log java_log=$server_log; fi
  if grep -q "invalid data in page" "$c_log"; then
    problems+=("ibv_rc_pingpong -c found invalid data")
  fi
  if ! grep -q "^RcPingpongPeer: OK: $ITERS sends and $ITERS receives," "$java_log"; then
    problems+=("RcPingpongPeer did not confirm $ITERS sends and $ITERS receives")
  fi

  if [ ${#problems[@]} -eq 0 ]; then
    summaries+=("rc-pingpong-interop: $name: PASS; C: $(figures "$c_log"); Java: $(figures "$java_log")")
  else
    local joined
    joined=$(printf '%s; ' "${problems[@]}")
    summaries+=("rc-pingpong-interop: $name: FAIL: ${joined%; }")
    return 1
  fi
}

status=0
exchange C Java || status=1
exchange Java C || status=1
printf '%s\n' "${summaries[@]}"
exit "$status"
