# Finds a JDK 25 or newer and exports JAVA_HOME to it, so `./mvnw` works on a
# machine whose default `java` is older (Debian 12 ships 17) without the user
# exporting anything. Sourced by mvnw and .ci/run; POSIX sh, safe under
# `set -euf` (mvnw) and `set -euo pipefail` (.ci/run).
#
# Order: JAVA_HOME if it is 25+; else `java` on PATH if 25+; else the newest
# 25+ JDK directly under the directories in RDMA_JDK_SEARCH_PATH (colon-separated;
# default /usr/lib/jvm, ~/.sdkman/candidates/java, /opt/java). Fails at once,
# with how to install one, when none is found.
# A JDK (not a JRE) is required: the build compiles, so bin/javac must exist.

_jdk25_required=25
_jdk25_search=${RDMA_JDK_SEARCH_PATH-/usr/lib/jvm:${HOME-}/.sdkman/candidates/java:/opt/java}

# Prints the feature version (8, 17, 25, ...) of the JDK at $1, or nothing when
# $1 is not a JDK. The `release` file answers without starting a JVM; JDKs
# without one are asked through `java -version`.
_jdk25_feature_version() {
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 0
  if [ -f "$1/release" ]; then
    _jdk25_v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$1/release")
  else
    _jdk25_v=$("$1/bin/java" -version 2>&1 | sed -n '1s/^[^"]*"\([^"]*\)".*/\1/p')
  fi
  case "$_jdk25_v" in
  1.*) _jdk25_v=${_jdk25_v#1.} ;; # 1.8.0_392 is Java 8
  esac
  _jdk25_v=${_jdk25_v%%[!0-9]*}
  printf %s "$_jdk25_v"
}

# Succeeds when the JDK at $1 is 25+; leaves its feature version in _jdk25_found.
_jdk25_is_enough() {
  _jdk25_found=$(_jdk25_feature_version "$1")
  [ -n "$_jdk25_found" ] && [ "$_jdk25_found" -ge "$_jdk25_required" ]
}

_jdk25_use() {
  if [ "${JAVA_HOME-}" != "$1" ]; then
    echo "mvnw: using Java $_jdk25_found at $1 ($2)" >&2
  fi
  JAVA_HOME=$1
  export JAVA_HOME
}

_jdk25_pick() {
  _jdk25_why="JAVA_HOME is not set"
  if [ -n "${JAVA_HOME-}" ]; then
    if _jdk25_is_enough "$JAVA_HOME"; then
      _jdk25_use "$JAVA_HOME" ""
      return 0
    elif [ -n "$_jdk25_found" ]; then
      _jdk25_why="JAVA_HOME=$JAVA_HOME is Java $_jdk25_found, too old"
    else
      _jdk25_why="JAVA_HOME=$JAVA_HOME is not a JDK"
    fi
  fi

  _jdk25_java=$(command -v java || :)
  if [ -n "$_jdk25_java" ]; then
    _jdk25_home=$(dirname "$(dirname "$(readlink -f "$_jdk25_java")")")
    if _jdk25_is_enough "$_jdk25_home"; then
      _jdk25_use "$_jdk25_home" "$_jdk25_why; found through java on PATH"
      return 0
    fi
    _jdk25_why="$_jdk25_why; java on PATH is ${_jdk25_found:+Java }${_jdk25_found:-not from a JDK}"
  fi

  _jdk25_best= _jdk25_best_version=0
  _jdk25_ifs=$IFS
  IFS=:
  for _jdk25_root in $_jdk25_search; do
    IFS=$_jdk25_ifs
    for _jdk25_home in "$_jdk25_root"/*; do
      if _jdk25_is_enough "$_jdk25_home" && [ "$_jdk25_found" -gt "$_jdk25_best_version" ]; then
        _jdk25_best=$_jdk25_home _jdk25_best_version=$_jdk25_found
      fi
    done
  done
  IFS=$_jdk25_ifs
  if [ -n "$_jdk25_best" ]; then
    _jdk25_found=$_jdk25_best_version
    _jdk25_use "$_jdk25_best" "$_jdk25_why"
    return 0
  fi

  cat >&2 <<EOF
mvnw: this build needs a JDK $_jdk25_required or newer, and none was found:
  $_jdk25_why; no JDK $_jdk25_required+ under ${_jdk25_search:-(RDMA_JDK_SEARCH_PATH is empty)}.
Install one, then run the command again:
  - Debian/Ubuntu: temurin-25-jdk from Adoptium's apt repository
    (https://adoptium.net/installation/linux/), or openjdk-25-jdk where the
    distribution has it (Debian 12 does not): sudo apt-get install openjdk-25-jdk
  - SDKMAN!: sdk install java 25.0.3-tem (or any 25+ from 'sdk list java')
or point JAVA_HOME at a JDK $_jdk25_required+ installed elsewhere.
EOF
  return 1
}

# mvnw runs with `set -f`; the search needs globbing, so it is switched on only
# around the search and restored afterwards.
case $- in
*f*) set +f; _jdk25_pick || exit 1; set -f ;;
*) _jdk25_pick || exit 1 ;;
esac
unset -f _jdk25_feature_version _jdk25_is_enough _jdk25_use _jdk25_pick
unset _jdk25_required _jdk25_search _jdk25_v _jdk25_found _jdk25_why _jdk25_java _jdk25_home \
  _jdk25_best _jdk25_best_version _jdk25_ifs _jdk25_root
