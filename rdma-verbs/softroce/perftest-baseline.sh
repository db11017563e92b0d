#!/usr/bin/env bash
# perftest-baseline.sh - C baseline figures for rxe0 in ONE Soft-RoCE guest,
# optionally followed by another command in the same guest (e.g. the Java
# benchmark, so both run under identical conditions).
#
#   usage: perftest-baseline.sh [-- COMMAND [ARGS...]]
#
# In the guest (softroce-vm.sh default setup: rxe0 on a dummy netdev with
# 10.77.0.1, GID index 1 = ::ffff:10.77.0.1, RoCE v2), server and client in
# the same guest, client connecting to 10.77.0.1:
#   ib_send_lat -d rxe0 -x 1 -c RC -s 64 -n $PERF_LAT_ITERS            (busy polling)
#   ib_send_lat ... -e                                                 (completion events)
#   ib_write_bw -d rxe0 -x 1 -c RC -s 65536 -n $PERF_BW_ITERS
# and prints one KEY=VALUE line per figure (grep '^perftest\.' or the names):
#   ib_send_lat_us_min= ib_send_lat_us_typical= ib_send_lat_us_avg=
#   ib_send_lat_us_p99= ib_send_lat_us_p999= ib_send_lat_us_max=
#   ib_send_lat_events_us_typical= ... (same set for the -e run)
#   ib_write_bw_MBps= (average) ib_write_bw_MBps_peak= ib_write_bw_Mpps=
# MB = 2^20 bytes as perftest prints it.  The same lines are written to
# $PERF_OUT (default: no file; give a path under the current directory, the
# guest can only write there).  COMMAND then runs in the same guest with
# PERFTEST_RESULTS=<that file or /tmp/perftest-baseline.txt> in its env.
#
# PERF_ROUNDS=N repeats the whole (perftest runs, then COMMAND) N times in the
# same guest, so that C and Java alternate under the host's load as it drifts;
# each round starts with perftest_round=N and rewrites $PERF_OUT.
#
# Environment: PERF_LAT_ITERS (1000), PERF_BW_ITERS (2000), PERF_SIZE_LAT (64),
#   PERF_SIZE_BW (65536), PERF_OUT, PERF_SKIP_EVENTS=1 (skip the -e run),
#   PERF_ROUNDS (1), and
#   softroce-vm.sh's SOFTROCE_* knobs.  Note: the default
#   SOFTROCE_TCG_THREAD=single makes busy-polling latency ~100x worse
#   (server and client poll on one host thread); SOFTROCE_TCG_THREAD=multi is
#   fine for the C tools but the JDK JIT crashed sometimes under it (README).
#
# Exit status: 0 if all perftest runs succeeded and COMMAND (if any)
# succeeded; else the first failing perftest's status (or 1), or COMMAND's.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
[ "${1:-}" = -- ] && shift
out=${PERF_OUT:-}
if [ -n "$out" ]; then
  case $out in /*) ;; *) out=$PWD/$out ;; esac
fi

guest_script='
CMD=("$@")   # the extra command; "set --" below reuses the positional args
LAT_N=${PERF_LAT_ITERS:-1000}; BW_N=${PERF_BW_ITERS:-2000}
LAT_S=${PERF_SIZE_LAT:-64}; BW_S=${PERF_SIZE_BW:-65536}
ROUNDS=${PERF_ROUNDS:-1}
OUT=${PERF_OUT:-/tmp/perftest-baseline.txt}
: > "$OUT" || OUT=/tmp/perftest-baseline.txt
emit() { echo "$1=$2"; echo "$1=$2" >> "$OUT"; }
fail=0
# run NAME PORT TOOL ARGS...: server in the background, client with retries
run() {
  name=$1 port=$2; shift 2
  timeout 300 "$@" -p "$port" > /tmp/$name.srv 2>&1 & sp=$!
  crc=1
  for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
    sleep 1
    timeout 300 "$@" -p "$port" 10.77.0.1 > /tmp/$name.cli 2>&1; crc=$?
    [ $crc = 0 ] && break
    grep -q "Couldn.t connect\|Unable to open\|refused" /tmp/$name.cli || break
    kill -0 $sp 2>/dev/null || break
  done
  wait $sp; src=$?
  if [ $crc != 0 ] || [ $src != 0 ]; then
    echo "perftest: $name FAILED (client rc=$crc, server rc=$src)"; tail -5 /tmp/$name.cli; tail -5 /tmp/$name.srv
    [ $fail = 0 ] && fail=$crc; [ $fail = 0 ] && fail=$src
    return 1
  fi
}
# the result row is the line after the header that starts with the size
row() { awk -v s="$2" "\$1==s && NF>=5 {print; exit}" /tmp/$1.cli; }
lat() {  # PREFIX NAME
  r=$(row $2 $LAT_S); [ -n "$r" ] || { echo "perftest: no result row in $2 output"; cat /tmp/$2.cli; fail=1; return; }
  set -- $1 $r
  # #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
  emit ${1}_bytes $2; emit ${1}_iters $3; emit ${1}_us_min $4; emit ${1}_us_max $5
  emit ${1}_us_typical $6; emit ${1}_us_avg $7; emit ${1}_us_stdev $8; emit ${1}_us_p99 $9; emit ${1}_us_p999 ${10}
}
for round in $(seq 1 "$ROUNDS"); do
: > "$OUT"
emit perftest_round "$round"
emit perftest_kernel "$(uname -r)"
emit perftest_rdma_core "$(dpkg-query -W -f="\${Version}" rdma-core 2>/dev/null)"
emit perftest_vcpus "$(nproc)"
emit perftest_loadavg "$(cut -d" " -f1-3 /proc/loadavg)"
t0=$(cut -d" " -f1 /proc/uptime)
echo "=== ib_send_lat -s $LAT_S -n $LAT_N (RC, rxe0, gid 1, busy polling)"
run send_lat 18515 ib_send_lat -d rxe0 -x 1 -c RC -F -s $LAT_S -n $LAT_N && lat ib_send_lat send_lat
if [ "${PERF_SKIP_EVENTS:-0}" != 1 ]; then
  echo "=== ib_send_lat -e -s $LAT_S -n $LAT_N (RC, rxe0, gid 1, completion events)"
  run send_lat_e 18516 ib_send_lat -d rxe0 -x 1 -c RC -F -e -s $LAT_S -n $LAT_N && lat ib_send_lat_events send_lat_e
fi
echo "=== ib_write_bw -s $BW_S -n $BW_N (RC, rxe0, gid 1)"
if run write_bw 18517 ib_write_bw -d rxe0 -x 1 -c RC -F -s $BW_S -n $BW_N; then
  r=$(row write_bw $BW_S)
  if [ -n "$r" ]; then
    set -- $r   # #bytes #iterations BW_peak BW_average MsgRate
    emit ib_write_bw_bytes $1; emit ib_write_bw_iters $2; emit ib_write_bw_MBps_peak $3
    emit ib_write_bw_MBps $4; emit ib_write_bw_Mpps $5
  else echo "perftest: no result row in ib_write_bw output"; cat /tmp/write_bw.cli; fail=1; fi
fi
t1=$(cut -d" " -f1 /proc/uptime)
emit perftest_seconds "$(awk -v a=$t0 -v b=$t1 "BEGIN{printf \"%.1f\", b-a}")"
emit perftest_status $fail
export PERFTEST_RESULTS=$OUT
if [ ${#CMD[@]} -gt 0 ]; then
  echo "=== round $round: ${CMD[*]}"
  "${CMD[@]}"; rc=$?
  echo "perftest-baseline: command exit status $rc"
  [ $fail = 0 ] && fail=$rc
fi
done
exit $fail
'
env_lines=""
for v in PERF_LAT_ITERS PERF_BW_ITERS PERF_SIZE_LAT PERF_SIZE_BW PERF_SKIP_EVENTS PERF_ROUNDS; do
  [ -n "${!v:-}" ] && env_lines+="export $v=$(printf %q "${!v}")"$'\n'
done
[ -n "$out" ] && env_lines+="export PERF_OUT=$(printf %q "$out")"$'\n'
SOFTROCE_ENV="${SOFTROCE_ENV:-}"$'\n'"$env_lines" \
  exec "$HERE/softroce-vm.sh" /bin/bash -c "$guest_script" perftest-baseline "$@"
