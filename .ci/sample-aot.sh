#!/usr/bin/env bash
# The sample as an application compiled ahead of time runs it, on the simulated fabric: builds it
# (the package phase runs spring-boot:process-aot, sample-app/pom.xml), starts the jar with
# -Dspring.aot.enabled=true, checks that it says it runs AOT-processed, that GET /echo comes back
# over RDMA and that a PUT on /kv reads back with GET, and stops it. Works on a fresh clone.
# SAMPLE_AOT_PORT picks the HTTP port (18080 by default). In a Soft-RoCE guest (.ci/run's
# sample-aot-on-rxe0): SAMPLE_AOT_BUILD=0 uses the jar built on the host, SAMPLE_AOT_PROVIDER=native
# runs it on rxe0, SAMPLE_AOT_WAIT (90 s) bounds the wait for the first echo, SAMPLE_AOT_JVM adds JVM
# options and SAMPLE_AOT_ARGS application arguments (lighter JIT, longer timeouts under emulation).
set -euo pipefail
cd "$(dirname "$0")/.."
. .mvn/jdk25.sh

port=${SAMPLE_AOT_PORT:-18080}
jar=sample-app/target/sample-app-0.1.0-SNAPSHOT.jar
log=sample-app/target/sample-aot.log

provider=${SAMPLE_AOT_PROVIDER:-simulated}
if [ "${SAMPLE_AOT_BUILD:-1}" = 1 ]; then
  ./mvnw --quiet -pl sample-app -am package -DskipTests
fi
test -d sample-app/target/spring-aot/main/sources || { echo "process-aot generated nothing" >&2; exit 1; }

# shellcheck disable=SC2086 # SAMPLE_AOT_JVM and SAMPLE_AOT_ARGS are lists of arguments
"$JAVA_HOME/bin/java" ${SAMPLE_AOT_JVM:-} --enable-native-access=ALL-UNNAMED -Dspring.aot.enabled=true -jar "$jar" \
  --server.port="$port" --rdma.provider="$provider" ${SAMPLE_AOT_ARGS:-} >"$log" 2>&1 &
app=$!
stop() {
  kill "$app" 2>/dev/null || true
  wait "$app" 2>/dev/null || true
}
trap stop EXIT
fail() {
  echo "sample-aot: $*; the application's log follows" >&2
  cat "$log" >&2
  exit 1
}

# the echo client connects in the background once the instance is up: retry until it answers
for _ in $(seq "${SAMPLE_AOT_WAIT:-90}"); do
  kill -0 "$app" 2>/dev/null || fail "the application exited"
  echo=$(curl -sf "http://127.0.0.1:$port/echo?message=hi" || true)
  [ -n "$echo" ] && break
  sleep 1
done
grep -q "Starting AOT-processed" "$log" || fail "it did not start from the AOT-generated code"
[ "$echo" = "echo: HI" ] || fail "GET /echo?message=hi answered '$echo', not 'echo: HI'"

put=$(curl -s -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/octet-stream' \
  --data-binary 'aot-value' "http://127.0.0.1:$port/kv/aot-key")
[ "$put" = 204 ] || fail "PUT /kv/aot-key answered HTTP $put, not 204"
got=$(curl -sf "http://127.0.0.1:$port/kv/aot-key" || true)
[ "$got" = aot-value ] || fail "GET /kv/aot-key answered '$got', not 'aot-value'"

served=$(curl -sf "http://127.0.0.1:$port/actuator/rdma" | grep -o '"provider":"[a-z]*"' || true)
[ "$served" = "\"provider\":\"$provider\"" ] || fail "/actuator/rdma says $served, not provider $provider"
echo "sample-aot: started AOT-processed on provider $provider; GET /echo -> '$echo'; PUT then GET /kv/aot-key -> '$got'"
