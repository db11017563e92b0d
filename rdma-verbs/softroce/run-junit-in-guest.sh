#!/usr/bin/env bash
# run-junit-in-guest.sh - run JUnit 5/6 tests inside a Soft-RoCE guest
# (softroce-vm.sh) with the JUnit Platform Console Standalone launcher.
# Maven runs on the HOST only (to compile and to write the classpath file);
# the guest runs just one JVM.
#
#   usage: run-junit-in-guest.sh [options] CLASSPATH_FILE TEST_CLASSES_DIR [-- LAUNCHER_ARGS...]
#
#   CLASSPATH_FILE   written on the host by
#                      mvn dependency:build-classpath -Dmdep.outputFile=target/test-classpath.txt
#                    (default scope test: all dependencies).  For a module that
#                    depends on sibling modules, run it in the reactor without
#                    installing anything: mvn -pl MODULE -am test-compile
#                    dependency:build-classpath ...; each sibling then appears
#                    as its build output (target/classes, or the jar an earlier
#                    `package` left).  Every entry must exist (checked here, so
#                    a missing one fails before the VM boots), except the
#                    target/classes of a module without sources (left out)
#   TEST_CLASSES_DIR e.g. target/test-classes; its sibling "classes" dir is put
#                    on the class path too when it exists
#   LAUNCHER_ARGS    extra ConsoleLauncher `execute` arguments, e.g.
#                    --select-class=com.x.FooTest, --include-classname='.*IT',
#                    --details=verbose.  Without a --select*/--scan* argument
#                    the test classes dir is scanned (--scan-class-path=DIR).
#   options
#     -J ARG         extra JVM argument (repeatable): -J -Xmx1g -J -Dfoo=bar
#     -c DIR|JAR     extra class path entry (repeatable), before the dependencies
#     --junit-version V  junit-platform-console-standalone version (default:
#                    the junit-platform-engine version found in CLASSPATH_FILE,
#                    else 6.0.3 = JUnit of Spring Boot 4.1.2's BOM); fetched into
#                    ~/.m2 with `mvn dependency:get` on the host if missing
#     --reports-dir DIR  Open Test Reporting / legacy XML reports (default
#                    <TEST_CLASSES_DIR>/../softroce-junit-reports; only kept
#                    when it lies under the current directory, the one dir the
#                    guest can write to the host)
#     --no-leak-check    skip the rdma resource checks
#   environment: SOFTROCE_JUNIT_JVM_DEFAULTS (default "-XX:TieredStopAtLevel=1
#     -XX:+UseSerialGC": C1 only + serial GC made the JVM part of a 4-test run
#     27 s instead of 47.5 s under single-threaded TCG; set it to "" for the
#     JVM's defaults, e.g. for benchmarks), SOFTROCE_HOST_JAVA_HOME (JDK 25+
#     that compiles the runner, default $JAVA_HOME, else
#     /usr/lib/jvm/temurin-25-jdk-amd64), SOFTROCE_JAVA (guest java, default
#     that JDK's bin/java), SOFTROCE_MVN (Maven that fetches the launcher jar,
#     default mvn; e.g. the project's ./mvnw) and all of softroce-vm.sh's
#     SOFTROCE_* knobs (SOFTROCE_TIMEOUT, SOFTROCE_MEM, ...).
#
# In the guest: java --enable-native-access=ALL-UNNAMED -Drdma.provider=native
#   $SOFTROCE_JUNIT_JVM_DEFAULTS [-J args] -cp <test-classes>:<classes>:<deps>:<console-standalone> \
#   SoftroceJUnitMain execute --fail-if-no-tests \
#   --config=junit.jupiter.execution.parallel.enabled=false [LAUNCHER_ARGS]
# (the project's jars come first so its JUnit/hamcrest versions win over the
# ones bundled in the standalone jar).  Tests run serially.
#
# Resource checks (the point: tests must release every verbs object):
#   1. `rdma resource show` summary (pd/cq/qp/mr/cm_id per device) is taken
#      before the JVM starts = baseline (rxe has kernel-owned pd 1, cq 1,
#      qp 1 (GSI QP1) from ib_core at baseline).
#   2. After the launcher returns and while the JVM still lives (the kernel
#      frees a process's verbs objects when it exits, which would hide
#      leaks), SoftroceJUnitMain lists qp/cq/pd/mr/srq/cm_id/ctx created by its threads
#      (`rdma resource show TYPE` "pid N" = creating thread id); any -> exit 3.
#   3. After the JVM exited, the summary must equal the baseline again
#      (catches kernel-side leftovers such as rdma_cm ids); else exit 3.
#
# Exit status: launcher's (1 = test failures, 2 = no tests found), 3 = rdma
# resources leaked, 125 = usage/host-side error, else softroce-vm.sh's
# (254 rxe setup failed, 255 VM died / timed out, 134 JVM crash ...).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
CACHE=${SOFTROCE_CACHE:-/var/tmp/softroce}
HOST_JAVA_HOME=${SOFTROCE_HOST_JAVA_HOME:-${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}}
# the guest's root is the host's, so the host's JDK is the guest's too
GUEST_JAVA=${SOFTROCE_JAVA:-$HOST_JAVA_HOME/bin/java}
MVN=${SOFTROCE_MVN:-mvn}
M2=${MAVEN_REPO_LOCAL:-$HOME/.m2/repository}

die() { echo "run-junit-in-guest: ERROR: $*" >&2; exit 125; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 125; }

jvm_args=(); extra_cp=(); junit_version=; reports_dir=; leak_check=1
while [ $# -gt 0 ]; do
  case $1 in
    -J) [ $# -ge 2 ] || usage; jvm_args+=("$2"); shift 2 ;;
    -J*) jvm_args+=("${1#-J}"); shift ;;
    -c) [ $# -ge 2 ] || usage; extra_cp+=("$2"); shift 2 ;;
    --junit-version) [ $# -ge 2 ] || usage; junit_version=$2; shift 2 ;;
    --junit-version=*) junit_version=${1#*=}; shift ;;
    --reports-dir) [ $# -ge 2 ] || usage; reports_dir=$2; shift 2 ;;
    --reports-dir=*) reports_dir=${1#*=}; shift ;;
    --no-leak-check) leak_check=0; shift ;;
    -h|--help) usage ;;
    -*) die "unknown option $1 (launcher arguments go after --)" ;;
    *) break ;;
  esac
done
[ $# -ge 2 ] || usage
cp_file=$1; test_classes=$2; shift 2
[ "${1:-}" = -- ] && shift
launcher_args=("$@")
[ -f "$cp_file" ] || die "classpath file $cp_file not found (mvn dependency:build-classpath -Dmdep.outputFile=$cp_file)"
[ -d "$test_classes" ] || die "test classes dir $test_classes not found (mvn test-compile)"
abs() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd -P)" "$(basename "$1")"); }
test_classes=$(abs "$test_classes")
deps=$(tr -d '\r\n' < "$cp_file")
IFS=: read -r -a dep_entries <<<"$deps"
# A sibling module with nothing to compile (the starter: dependencies only) is listed as its
# target/classes although Maven never creates it: nothing could load from it, so it is left out.
present_entries=()
for e in "${dep_entries[@]+"${dep_entries[@]}"}"; do
  if [ -e "$e" ]; then
    present_entries+=("$e")
  elif [[ $e == */target/classes ]] && [ -f "${e%/target/classes}/pom.xml" ] && [ ! -d "${e%/target/classes}/src/main" ]; then
    echo "softroce-junit: $e left out: its module has no sources, so there is nothing to load" >&2
  else
    die "class path entry $e (from $cp_file) does not exist: build it first (a sibling module: mvn -pl MODULE -am test-compile)"
  fi
done
deps=$(IFS=:; echo "${present_entries[*]+"${present_entries[*]}"}")

# ------------------------------------------------ console launcher jar (host ~/.m2)
if [ -z "$junit_version" ]; then
  junit_version=$(tr ':' '\n' <<<"$deps" | sed -n 's#.*/junit-platform-engine-\([0-9][^/]*\)\.jar$#\1#p' | head -1)
  junit_version=${junit_version:-6.0.3}
fi
console_jar=$M2/org/junit/platform/junit-platform-console-standalone/$junit_version/junit-platform-console-standalone-$junit_version.jar
if [ ! -f "$console_jar" ]; then
  echo "run-junit-in-guest: fetching junit-platform-console-standalone $junit_version into $M2" >&2
  "$MVN" -q -B dependency:get -Dartifact="org.junit.platform:junit-platform-console-standalone:$junit_version" -Dtransitive=false >&2 \
    || die "could not fetch junit-platform-console-standalone:$junit_version"
  [ -f "$console_jar" ] || die "$console_jar missing after mvn dependency:get (custom local repo? set MAVEN_REPO_LOCAL)"
fi

# ------------------------------------------------ guest entry point, compiled on the host
# The guest sees the host's root, except its own fresh /tmp, /run and /dev/shm.
case $(mkdir -p "$CACHE" && cd "$CACHE" && pwd -P)/ in
  /tmp/*|/run/*|/dev/shm/*) die "SOFTROCE_CACHE=$CACHE is not visible in the guest (its /tmp, /run and /dev/shm are its own): use a directory elsewhere, e.g. under /var/tmp" ;;
esac
src=$HERE/SoftroceJUnitMain.java
sum=$(sha1sum "$src" | cut -c1-12)
runner_dir=$CACHE/junit-runner-$sum
if [ ! -f "$runner_dir/SoftroceJUnitMain.class" ]; then
  mkdir -p "$CACHE"; tmp=$(mktemp -d "$CACHE/junit-runner.XXXXXX")
  "$HOST_JAVA_HOME/bin/javac" --release 25 -d "$tmp" "$src" || die "javac $src failed"
  rm -rf "$runner_dir"; mv "$tmp" "$runner_dir"; chmod 755 "$runner_dir"
fi

# ------------------------------------------------ class path + arguments
cp=$test_classes
main_classes=$(dirname "$test_classes")/classes
[ -d "$main_classes" ] && cp+=":$main_classes"
for e in "${extra_cp[@]+"${extra_cp[@]}"}"; do cp+=":$(abs "$e")"; done
[ -n "$deps" ] && cp+=":$deps"
cp+=":$console_jar:$runner_dir"

[ -n "$reports_dir" ] || reports_dir=$(dirname "$test_classes")/softroce-junit-reports
have_selector=0
for a in "${launcher_args[@]+"${launcher_args[@]}"}"; do
  case $a in --select*|--scan-*|-[cmMpfdor]|-[cmMpfdor]=*|--uid*|-u) have_selector=1 ;; esac
done
largs=(execute --fail-if-no-tests --disable-banner
       --config=junit.jupiter.execution.parallel.enabled=false
       "--reports-dir=$reports_dir")
[ $have_selector = 1 ] || largs+=("--scan-class-path=$test_classes")
largs+=("${launcher_args[@]+"${launcher_args[@]}"}")
read -r -a jvm_defaults <<<"${SOFTROCE_JUNIT_JVM_DEFAULTS--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}"
java_cmd=("$GUEST_JAVA" --enable-native-access=ALL-UNNAMED -Drdma.provider=native
          "${jvm_defaults[@]+"${jvm_defaults[@]}"}"
          "-Dsoftroce.leakCheck=$([ $leak_check = 1 ] && echo true || echo false)"
          "${jvm_args[@]+"${jvm_args[@]}"}" -cp "$cp" SoftroceJUnitMain "${largs[@]}")

# ------------------------------------------------ guest script
# $1 = leak check (1/0), rest = java command line
guest_script='
leak=$1; shift
summary() { rdma resource show 2>&1 | awk "{ s=\$2; for (i=3;i<NF;i+=2) if (\$i ~ /^(pd|cq|qp|mr|cm_id)\$/) s=s\" \"\$i\"=\"\$(i+1); print s }"; }
base=$(summary)
echo "softroce-junit: rdma resource baseline: $base"
t0=$(cut -d" " -f1 /proc/uptime)
"$@"; rc=$?
t1=$(cut -d" " -f1 /proc/uptime)
echo "softroce-junit: test JVM exit status $rc after $(awk -v a=$t0 -v b=$t1 "BEGIN{printf \"%.1f\", b-a}") s (guest clock)"
if [ "$leak" = 1 ]; then
  for i in 1 2 3 4 5 6 7 8 9 10; do after=$(summary); [ "$after" = "$base" ] && break; sleep 1; done
  echo "softroce-junit: rdma resources after the JVM exited: $after"
  if [ "$after" != "$base" ]; then
    echo "softroce-junit: LEAK: rdma resources differ from the baseline after the JVM exited:"
    rdma resource show qp; rdma resource show cm_id; rdma resource show mr
    [ $rc = 0 ] && rc=3
  fi
fi
exit $rc
'
cd "$PWD"
exec "$HERE/softroce-vm.sh" /bin/sh -c "$guest_script" softroce-junit "$leak_check" "${java_cmd[@]}"
