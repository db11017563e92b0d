#!/bin/sh
# rxe-link-down-cm.sh - does one connection manager message sent while rxe0's link is down leave
# the device's connection manager dead? Runs inside one Soft-RoCE guest, with rping only:
#
#   SOFTROCE_KERNEL_SUITE=trixie-backports softroce/softroce-vm.sh sh softroce/rxe-link-down-cm.sh
#
# Two scenarios, each on an idle rping connection (its client stopped with SIGSTOP, so that no
# traffic makes its queue pair fail while the link is down): the client is killed (SIGKILL; the
# kernel destroys its rdma_cm id, which sends a DREQ) once the link is up again (control), or
# while it is down. After each: the state of the connection manager's queue pair (GSI, QP 1),
# rxe0's packet counters, an rping to the same listener, and one to a port nobody listens on
# (a working connection manager refuses it at once: "connect error"; a dead one times out).
# Measured: docs/reliability.md, "A link that goes down and up again".
set -u
address=10.77.0.1
netdev=$(ip -o -4 addr show | awk -v a="$address/" 'index($4, a) == 1 {print $2}')
counters=/sys/class/infiniband/rxe0/ports/1/hw_counters
echo "rxe0 on $netdev, kernel $(uname -r)"
packets() { echo "  rxe0: sent_pkts $(cat $counters/sent_pkts), rcvd_pkts $(cat $counters/rcvd_pkts)"; }
cm_qp() { echo "  $(rdma resource show qp lqpn 1 2>&1 | head -1)"; }
port_state() { echo "  port: $(cat /sys/class/infiniband/rxe0/ports/1/state)"; }
ping_port() {
  timeout 40 rping -c -a $address -p "$1" -C 2 > /tmp/rping.log 2>&1
  echo "  rping to port $1: exit $? $(tail -1 /tmp/rping.log)"
}
scenario() {
  name=$1 killed_while=$2 port=$3
  echo "== $name: the idle client is killed while the link is $killed_while"
  rping -s -P -a $address -p "$port" > /dev/null 2>&1 &
  server=$!
  sleep 1
  ping_port "$port"
  rping -c -a $address -p "$port" -C 100000000 > /dev/null 2>&1 &
  client=$!
  sleep 2
  kill -STOP $client
  sleep 1
  packets; cm_qp
  ip link set "$netdev" down
  sleep 2
  port_state
  if [ "$killed_while" = down ]; then kill -9 $client; sleep 3; fi
  ip link set "$netdev" up
  sleep 4
  port_state
  if [ "$killed_while" = up ]; then kill -9 $client; sleep 3; fi
  packets; cm_qp
  ping_port "$port"
  ping_port $((port + 1000))
  packets
  kill $server 2> /dev/null
  sleep 1
}
scenario control up 7471
scenario dreq-while-down down 7472
