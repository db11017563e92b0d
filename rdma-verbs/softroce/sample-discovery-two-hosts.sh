#!/usr/bin/env bash
# sample-discovery-two-hosts.sh - the sample app (sample-app's Spring Boot jar) in
# both guests of two-hosts.sh, finding each other through a ZooKeeper that runs
# in guest A: no guest's address is given to either app.
# Run by two-hosts.sh --java --sample JAR in each guest, after the Java rdma_cm
# exchange, so that one pair of guest boots carries both.
#
#   usage (in a two-hosts guest): sample-discovery-two-hosts.sh JAR
#
# The sample runs unchanged, with its own `rdma.provider: auto` (checked to
# pick the native provider), profile "zookeeper", and these overrides only:
#   both: spring.cloud.zookeeper.connect-string=$SERVER_IP:2181, the registry
#   A: the shutdown endpoint exposed, so that B can end A once done
# A starts ZooKeeper (org.apache.zookeeper.server.ZooKeeperServerMain, from the
# sample's test class path, target/test-classpath.txt beside the jar) and then
# its app. Each app registers itself, advertising its RDMA listeners' port,
# device, GID and address in its registration, and connects its kv-client to every
# instance registered (itself too) and its echo-client to one (LoadBalancer's choice).
# B then, with curl, over the guests' own network:
#   1. waits for A's /actuator/health UP, starts B, waits for B's;
#   2. checks both report provider "native" (auto picked rxe0);
#   3. waits until the health of both shows 2 instances known for echo-client
#      and kv-client, kv-client connected to 2 and echo-client to 1, 0 failing;
#   4. proves the connections cross the wire: A's listeners hold a peer from
#      B's address and B's a peer from A's; SAMPLE_KEYS (20) keys put through B
#      are all read back through A and through B, and each store holds some of
#      them (a key lives on the instance it maps to: the reads through the
#      other instance are RDMA READs across the link); SAMPLE_ROUND_TRIPS (100)
#      GET /echo on B are all answered;
#   5. ends B (SIGTERM) and waits until A's health shows 1 instance known and
#      1 connected for both connections (B left the registry, A closed its
#      connections to B and, if its echo-client was on B, chose A), printing how long that took;
#   6. ends A (POST /actuator/shutdown); A stops ZooKeeper. Both apps must
#      close cleanly and log no error.
# Each app's log goes to target/sample-discovery-<role>.log under the current
# dir (shared with the host) and is printed when its guest fails; B prints A's.
# Environment: SAMPLE_HTTP_PORT (8080), SAMPLE_ROUND_TRIPS (100), SAMPLE_KEYS
#   (20), SAMPLE_WAIT_SECONDS (600: how long to wait for an app to become
#   healthy or connected, A's start included, under TCG), SOFTROCE_JAVA, and
#   two-hosts.sh's SOFTROCE_ROLE, SERVER_IP, CLIENT_IP.
set -uo pipefail
jar=${1:?usage: sample-discovery-two-hosts.sh JAR}
java=${SOFTROCE_JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
port=${SAMPLE_HTTP_PORT:-8080}
round_trips=${SAMPLE_ROUND_TRIPS:-100}
keys=${SAMPLE_KEYS:-20}
wait_seconds=${SAMPLE_WAIT_SECONDS:-600}
registry=$SERVER_IP:2181
mkdir -p target
log=target/sample-discovery-$SOFTROCE_ROLE.log
peer_log=
[ "$SOFTROCE_ROLE" = client ] && peer_log=target/sample-discovery-server.log

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
# the health details of service connection NAME at HOST: {"service":...,"known":n,"connected":n,"failing":n}
service_health() { curl -sf "http://$1:$port/actuator/health" | grep -o "\"$2\":{[^}]*}"; }
# whether the health of HOST's connection NAME shows KNOWN instances known, CONNECTED connected, none failing
service_shows() {
  local details
  details=$(service_health "$1" "$2") || return 1
  [[ "$details" == *"\"known\":$3"[,}]* ]] && [[ "$details" == *"\"connected\":$4"[,}]* ]] \
    && [[ "$details" == *'"failing":0'[,}]* ]]
}
# whether HOST's connections know N instances: kv-client connected to each, echo-client to one
connected_to() { service_shows "$1" kv-client "$2" "$2" && service_shows "$1" echo-client "$2" 1; }
app=
await() { # CMD...: polls until CMD succeeds, for at most wait_seconds or until this guest's app died
  local i=0
  until "$@"; do
    i=$((i + 1)); [ $i -ge "$wait_seconds" ] && return 1
    [ -n "$app" ] && ! kill -0 "$app" 2>/dev/null && return 1
    sleep 1
  done
}
start_app() { # extra Spring arguments
  t_start=$(now)
  "$java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC --enable-native-access=ALL-UNNAMED -jar "$jar" \
    --server.port="$port" --spring.profiles.active=zookeeper --spring.cloud.zookeeper.connect-string="$registry" \
    "$@" > "$log" 2>&1 &
  app=$!
}
get() { curl -sf "http://$1:$port$2"; }

case $SOFTROCE_ROLE in
server)
  classpath=$(dirname "$jar")/test-classpath.txt
  [ -f "$classpath" ] || fail "no $classpath, the class path ZooKeeper runs from (dependency:build-classpath)"
  rm -rf /tmp/zookeeper
  # no admin server: it would take port 8080 from the app
  "$java" -Xmx128m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dzookeeper.admin.enableServer=false \
    -cp "$(cat "$classpath")" org.apache.zookeeper.server.ZooKeeperServerMain 2181 /tmp/zookeeper \
    > target/zookeeper.log 2>&1 &
  zookeeper=$!
  await bash -c "exec 3<>/dev/tcp/127.0.0.1/2181" 2>/dev/null || fail "ZooKeeper did not listen on 2181"
  echo "sample: ZooKeeper listening on $registry"
  start_app --management.endpoints.web.exposure.include=health,rdma,prometheus,shutdown \
    --management.endpoint.shutdown.access=unrestricted
  await healthy 127.0.0.1 || fail "A did not become healthy within ${wait_seconds}s"
  echo "sample: A healthy $(since "$t_start") s after java started; waiting for B to end it"
  wait "$app"; rc=$?
  kill "$zookeeper"; wait "$zookeeper" 2>/dev/null
  [ $rc = 0 ] || fail "A exited with status $rc"
  grep -q ' ERROR ' "$log" && fail "A logged an error"
  echo "sample: A shut down cleanly"
  ;;
client)
  t_wait=$(now)
  await healthy "$SERVER_IP" || fail "A ($SERVER_IP) not healthy within ${wait_seconds}s"
  echo "sample: A healthy, seen from B after $(since "$t_wait") s"
  start_app
  await healthy 127.0.0.1 || fail "B did not become healthy within ${wait_seconds}s"
  echo "sample: B healthy $(since "$t_start") s after java started"
  for host in "$SERVER_IP" 127.0.0.1; do
    get "$host" /actuator/rdma | grep -q '"provider":"native"' \
      || fail "provider 'auto' did not pick the native provider at $host: $(get "$host" /actuator/rdma)"
  done
  t_connect=$(now)
  await connected_to "$SERVER_IP" 2 && await connected_to 127.0.0.1 2 \
    || fail "not both connected: A $(service_health "$SERVER_IP" kv-client) $(service_health "$SERVER_IP" echo-client), B $(service_health 127.0.0.1 kv-client) $(service_health 127.0.0.1 echo-client)"
  echo "sample: both connected to both instances $(since "$t_connect") s after B was healthy:" \
    "A $(service_health "$SERVER_IP" kv-client), B $(service_health 127.0.0.1 kv-client)"
  a_peers=$(get "$SERVER_IP" /actuator/rdma | grep -o '"remoteAddress":"[^"]*"' | sort -u)
  b_peers=$(get 127.0.0.1 /actuator/rdma | grep -o '"remoteAddress":"[^"]*"' | sort -u)
  echo "sample: peers of A's listeners: $(echo $a_peers); of B's: $(echo $b_peers)"
  grep -q "[/\"]$CLIENT_IP:" <<<"$a_peers" || fail "A's listeners have no peer from B ($CLIENT_IP)"
  grep -q "[/\"]$SERVER_IP:" <<<"$b_peers" || fail "B's listeners have no peer from A ($SERVER_IP)"
  t_keys=$(now)
  for i in $(seq 1 "$keys"); do
    curl -sf -X PUT -H 'Content-Type: text/plain' --data "value-$i" "http://127.0.0.1:$port/kv/key-$i" > /dev/null \
      || fail "PUT /kv/key-$i on B failed"
  done
  for host in "$SERVER_IP" 127.0.0.1; do
    for i in $(seq 1 "$keys"); do
      value=$(get "$host" "/kv/key-$i") || fail "GET /kv/key-$i on $host failed"
      [ "$value" = "value-$i" ] || fail "GET /kv/key-$i on $host: '$value'"
    done
  done
  a_keys=$(get "$SERVER_IP" /kv | grep -o '"key-[0-9]*"' | wc -l); b_keys=$(get 127.0.0.1 /kv | grep -o '"key-[0-9]*"' | wc -l)
  echo "sample: $keys keys put through B, read through A and B in $(since "$t_keys") s; A's store holds $a_keys, B's $b_keys"
  [ $((a_keys + b_keys)) = "$keys" ] || fail "the stores hold $a_keys + $b_keys keys, not $keys"
  [ "$a_keys" -gt 0 ] && [ "$b_keys" -gt 0 ] || fail "one store holds every key: the keys are not shared"
  t_calls=$(now)
  for i in $(seq 1 "$round_trips"); do
    reply=$(get 127.0.0.1 "/echo?message=hi-$i") || fail "GET /echo call $i failed"
    [ "$reply" = "echo: HI-$i" ] || fail "GET /echo call $i: '$reply'"
  done
  echo "sample: $round_trips /echo round trips on B in $(since "$t_calls") s"
  kill -TERM "$app"; wait "$app"; rc=$?
  t_left=$(now)
  # a JVM ended by SIGTERM exits 143 once its shutdown hooks (Spring's close) ran
  [ $rc = 143 ] || [ $rc = 0 ] || fail "B exited with status $rc on SIGTERM"
  grep -q ' ERROR ' "$log" && fail "B logged an error"
  echo "sample: B shut down cleanly"
  app=
  await connected_to "$SERVER_IP" 1 || fail "A still lists B: $(service_health "$SERVER_IP" kv-client)"
  echo "sample: A follows B's departure: 1 instance known and connected $(since "$t_left") s after B ended"
  curl -sf -X POST "http://$SERVER_IP:$port/actuator/shutdown" > /dev/null || fail "could not shut A down"
  ;;
*) echo "sample: SOFTROCE_ROLE must be server or client, not '$SOFTROCE_ROLE'"; exit 2 ;;
esac
