#!/usr/bin/env bash
# The getting-started guide's application (docs/getting-started/, which GettingStartedGuideTests
# keeps identical to the guide), built the way the guide tells a user to:
#   1. the project's artifacts installed from this clone with the guide's `./mvnw install -DskipTests`,
#      into a throwaway local repository (the rest of the machine's builds never see them);
#   2. from the application's own directory, with its own Maven wrapper, `./mvnw package`: the BOM
#      and the starter resolve from that repository, and the application's tests run (they must
#      have run, not been skipped);
#   3. `java -jar target/greetings-1.0.0.jar` on the simulated fabric, which must print the answer
#      to its first call and exit.
# Maven Central stays reachable for third-party artifacts; those the machine already has are read
# from ~/.m2/repository, which nothing is written to (Maven 3.9's maven.repo.local.tail). Run on a
# fresh clone; it needs a JDK 25 (found as ./mvnw finds one) and curl or wget for the wrapper.
set -euo pipefail
cd "$(dirname "$0")/.."

. .mvn/jdk25.sh # JAVA_HOME: the JDK 25 that builds the project and runs the jar

local_repository=$(mktemp -d "${TMPDIR:-/tmp}/getting-started-m2.XXXXXX")
trap 'rm -rf "$local_repository"' EXIT
# Through MAVEN_ARGS, which Maven 3.9 adds to every command line, so the commands below stay the guide's.
export MAVEN_ARGS="${MAVEN_ARGS-} -Dmaven.repo.local=$local_repository -Dmaven.repo.local.tail=$HOME/.m2/repository"

echo "getting-started-app: ./mvnw install -DskipTests into $local_repository"
./mvnw install -DskipTests
# What the guide says the install puts there (the BOM among them); the application's build below
# proves that they resolve.
for artifact in rdma-spring-boot-parent rdma-spring-boot-dependencies rdma-verbs rdma-spring \
  rdma-spring-boot-autoconfigure rdma-spring-boot-starter rdma-spring-boot-test; do
  ls "$local_repository/io/rdma/$artifact/0.1.0-SNAPSHOT/$artifact-0.1.0-SNAPSHOT.pom" >/dev/null
done
if [ -e "$local_repository/io/rdma/sample-app" ]; then
  echo "getting-started-app: the sample app was installed; the guide says it is not" >&2
  exit 1
fi

# As a user who exported nothing: the application's wrapper runs Maven on the machine's default
# java (Debian 12's 17, where it has one), and the toolchain the pom selects finds the JDK 25.
application_env=()
if command -v java >/dev/null; then
  application_env=(env -u JAVA_HOME)
fi
rm -rf docs/getting-started/target
echo "getting-started-app: ./mvnw package in docs/getting-started"
(cd docs/getting-started && "${application_env[@]}" ./mvnw package)
"$JAVA_HOME/bin/java" .ci/JUnitReports.java docs/getting-started/target/surefire-reports \
  --must-run com.example.greetings.GreetingsTests#aGreetingIsAnswered \
  --must-run com.example.greetings.GreetingsTests#aGreetingOnALossyLinkFailsOnceRetriesAreExhausted

# run_jar [JVM_OPTION...]: the jar on the simulated fabric must print the listener's answer and exit.
run_jar() {
  echo "getting-started-app: java $* -jar target/greetings-1.0.0.jar --rdma.provider=simulated"
  output=$(cd docs/getting-started && timeout 120 "$JAVA_HOME/bin/java" "$@" -jar target/greetings-1.0.0.jar \
    --rdma.provider=simulated 2>&1) || {
    echo "$output"
    echo "getting-started-app: java -jar failed or did not exit within 120 s" >&2
    exit 1
  }
  echo "$output"
  if ! grep -qx 'received: hello, RDMA' <<<"$output"; then
    echo "getting-started-app: the application did not print 'received: hello, RDMA'" >&2
    exit 1
  fi
}
run_jar
# Spring AOT as the guide says: profile aot, with Maven itself on JDK 25; the jar then starts from
# its AOT-generated bean definitions
echo "getting-started-app: ./mvnw -Paot package in docs/getting-started, Maven on $JAVA_HOME"
(cd docs/getting-started && ./mvnw -Paot package -DskipTests)
run_jar -Dspring.aot.enabled=true
grep -q "Starting AOT-processed" <<<"$output" || {
  echo "getting-started-app: with -Dspring.aot.enabled=true it did not start from the AOT-generated code" >&2
  exit 1
}
echo "getting-started-app: the guide's application built, passed its tests and answered its first call, also AOT-processed"
