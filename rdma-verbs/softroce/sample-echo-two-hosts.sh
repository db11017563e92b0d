#!/usr/bin/env bash
# sample-echo-two-hosts.sh - the sample app (sample-app's Spring Boot jar) in
# both guests of two-hosts.sh, B's echo-client connected to A's echo listener.
# Run by two-hosts.sh --java --sample JAR in each guest, after the Java rdma_cm
# exchange, so that one pair of guest boots carries both.
#
#   usage (in a two-hosts guest): sample-echo-two-hosts.sh JAR
#
# The sample runs unchanged, with its own `rdma.provider: auto` (checked to
# pick the native provider), and these command-line overrides only:
#   A (server): the shutdown endpoint exposed, so that B can end A once done;
#     its echo-client keeps the sample's 127.0.0.1, which the starter connects
#     to A's own RDMA address (loopback is not routable over RoCE)
#   B (client): rdma.connections.outbound.echo-client.host=$SERVER_IP, A's address
# B then, with curl, over the guests' own network:
#   1. waits for A's /actuator/health UP, starts B, waits for B's (that
#      includes B's outbound connection to A);
#   2. checks both report provider "native" (auto picked rxe0);
#   3. makes SAMPLE_ROUND_TRIPS (100) checked GET /echo calls on B;
#   4. proves A answered them: A's echo listener holds a peer from B's address,
#      B's echo listener holds none (B's KV listener serves B's own KV client),
#      and A's rdma_cq_completions_total (success) rose by at least 2 per call
#      (A's receive and reply) while nothing else ran on A;
#      B's rose by at least 2 per call too (its send and the reply's receive);
#   5. ends A (POST /actuator/shutdown) and B (SIGTERM): both must close cleanly.
# Each app's log goes to target/sample-echo-<role>.log under the current dir
# (shared with the host) and is printed when its guest fails; B prints A's too.
# Environment: SAMPLE_HTTP_PORT (8080), SAMPLE_ROUND_TRIPS (100),
#   SAMPLE_WAIT_SECONDS (600: how long to wait for an app to become healthy,
#   A's start included, under TCG), SOFTROCE_JAVA, and two-hosts.sh's
#   SOFTROCE_ROLE, SERVER_IP, CLIENT_IP.
set -uo pipefail
jar=${1:?usage: sample-echo-two-hosts.sh JAR}
java=${SOFTROCE_JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
port=${SAMPLE_HTTP_PORT:-8080}
round_trips=${SAMPLE_ROUND_TRIPS:-100}
wait_seconds=${SAMPLE_WAIT_SECONDS:-600}
mkdir -p target
log=target/sample-echo-$SOFTROCE_ROLE.log
peer_log=
[ "$SOFTROCE_ROLE" = client ] && peer_log=target/sample-echo-server.log

now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# both apps' logs when B fails: the cause is often on A's side (both guests share this directory)
fail() {
  echo "sample: FAILED: $*"
  for file in "$log" ${peer_log:+"$peer_log"}; do
    echo "sample: --- $file ---"; grep -v '^\s*at ' "$file" | tail -n 60
  done
  exit 1
}
# HTTP 200 (Boot answers 503 for DOWN) and the overall status, which Boot 4 writes last: UP
healthy() { curl -sf "http://$1:$port/actuator/health" | grep -q '"status":"UP"}$'; }
app=
await_health() { # HOST: polls until UP, for at most wait_seconds or until this guest's app died
  local i=0
  until healthy "$1"; do
    i=$((i + 1)); [ $i -ge "$wait_seconds" ] && return 1
    [ -n "$app" ] && ! kill -0 "$app" 2>/dev/null && return 1
    sleep 1
  done
}
# success completions over all CQs of the app at HOST, as /actuator/prometheus reads them
cq_completions() {
  curl -sf "http://$1:$port/actuator/prometheus" \
    | awk '/^rdma_cq_completions_total\{/ && /status="success"/ { s += $NF } END { printf "%d\n", s }'
}
start_app() { # extra Spring arguments
  t_start=$(now)
  "$java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED -jar "$jar" \
    --server.port="$port" "$@" > "$log" 2>&1 &
  app=$!
}

case $SOFTROCE_ROLE in
server)
  start_app --management.endpoints.web.exposure.include=health,rdma,prometheus,shutdown \
    --management.endpoint.shutdown.access=unrestricted
  await_health 127.0.0.1 || fail "A did not become healthy within ${wait_seconds}s"
  echo "sample: A healthy $(since "$t_start") s after java started; waiting for B to end it"
  wait "$app"; rc=$?
  [ $rc = 0 ] || fail "A exited with status $rc"
  grep -q ' ERROR ' "$log" && fail "A logged an error"
  echo "sample: A shut down cleanly"
  ;;
client)
  t_wait=$(now)
  await_health "$SERVER_IP" || fail "A ($SERVER_IP) not healthy within ${wait_seconds}s"
  echo "sample: A healthy, seen from B after $(since "$t_wait") s"
  start_app --rdma.connections.outbound.echo-client.host="$SERVER_IP"
  await_health 127.0.0.1 || fail "B did not become healthy within ${wait_seconds}s"
  echo "sample: B healthy $(since "$t_start") s after java started"
  for host in "$SERVER_IP" 127.0.0.1; do
    curl -sf "http://$host:$port/actuator/rdma" | grep -q '"provider":"native"' \
      || fail "provider 'auto' did not pick the native provider at $host: $(curl -s "http://$host:$port/actuator/rdma")"
  done
  a_before=$(cq_completions "$SERVER_IP"); b_before=$(cq_completions 127.0.0.1)
  t_calls=$(now)
  for i in $(seq 1 "$round_trips"); do
    reply=$(curl -sf "http://127.0.0.1:$port/echo?message=hi-$i") || fail "GET /echo call $i failed"
    [ "$reply" = "echo: HI-$i" ] || fail "GET /echo call $i: '$reply'"
  done
  echo "sample: $round_trips /echo round trips B -> A in $(since "$t_calls") s"
  a_rise=$(( $(cq_completions "$SERVER_IP") - a_before )); b_rise=$(( $(cq_completions 127.0.0.1) - b_before ))
  echo "sample: rdma_cq_completions_total rose by $a_rise on A, $b_rise on B"
  [ "$a_rise" -ge $((2 * round_trips)) ] || fail "A's CQ completions rose by $a_rise only: A did not answer B"
  [ "$b_rise" -ge $((2 * round_trips)) ] || fail "B's CQ completions rose by $b_rise only"
  a_peers=$(curl -sf "http://$SERVER_IP:$port/actuator/rdma" | grep -o '"remoteAddress":"[^"]*"')
  echo "sample: A's echo listener peers: $(echo $a_peers)"
  grep -q "[/\"]$CLIENT_IP:" <<<"$a_peers" || fail "A's listener has no peer from B ($CLIENT_IP)"
  # B's echo listener (its KV listener serves B's own KV client, on 127.0.0.1)
  b_echo=$(curl -sf "http://127.0.0.1:$port/actuator/rdma" \
    | grep -o '"name":"echo","property":"[^"]*","boundAddress":[^,]*,"backlog":[0-9]*,"queuePair":"[^"]*","peers":\[[^]]*\]')
  [ -n "$b_echo" ] || fail "B's /actuator/rdma shows no echo listener: $(curl -s "http://127.0.0.1:$port/actuator/rdma")"
  [[ "$b_echo" == *'"peers":[]' ]] || fail "B's own echo listener accepted a peer: $b_echo"
  curl -sf -X POST "http://$SERVER_IP:$port/actuator/shutdown" > /dev/null || fail "could not shut A down"
  kill -TERM "$app"; wait "$app"; rc=$?
  # a JVM ended by SIGTERM exits 143 once its shutdown hooks (Spring's close) ran
  [ $rc = 143 ] || [ $rc = 0 ] || fail "B exited with status $rc on SIGTERM"
  grep -q ' ERROR ' "$log" && fail "B logged an error"
  echo "sample: B shut down cleanly"
  ;;
*) echo "sample: SOFTROCE_ROLE must be server or client, not '$SOFTROCE_ROLE'"; exit 2 ;;
esac
