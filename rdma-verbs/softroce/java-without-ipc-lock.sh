#!/bin/sh
# java-without-ipc-lock.sh - the guest's java as an unprivileged service runs it: without
# CAP_IPC_LOCK and with `ulimit -l` lowered to RDMA_MEMLOCK_KIB KiB (default 1024; containers
# default to 8192). The kernel exempts a process from RLIMIT_MEMLOCK by the capability, not by
# its uid, so root without CAP_IPC_LOCK meets the limit as any user does, and still reads the
# host's ~/.m2 and the cwd. For SOFTROCE_JAVA (run-junit-in-guest.sh); arguments go to java.
set -eu
ulimit -l "${RDMA_MEMLOCK_KIB:-1024}"
# Dropped from the bounding and inheritable sets, so the exec'd java can never hold it.
exec setpriv --bounding-set=-ipc_lock --inh-caps=-ipc_lock \
  "${SOFTROCE_REAL_JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}" "$@"
