#!/usr/bin/env bash
# softroce-vm.sh - run a command inside a throw-away qemu VM that has a real
# Soft-RoCE (rdma_rxe) RDMA device and the host's rdma-core/libibverbs.
# Project copy of the recipe in shared/softroce (see README.md next to this
# file); changes: librdmacm-dev/flock in the host packages, a lock around
# package install and cache builds (several VMs may start at once, e.g.
# two-hosts.sh), clear messages for timeout/VM failure, run timing.
#
#   usage: softroce-vm.sh COMMAND [ARGS...]
#   e.g.   softroce-vm.sh ibv_devinfo
#          softroce-vm.sh java -cp target/classes:target/test-classes org.junit...
#
# How it works
#   * Guest kernel = Debian's stock linux-image: by default the host's
#     linux-image-amd64 candidate (bookworm: 6.1.x), or the one from
#     SOFTROCE_KERNEL_SUITE (trixie-backports: 7.3.x, needed for rxe in network
#     namespaces, see README).  All have CONFIG_RDMA_RXE=m and no siw.  The
#     .deb(s) are fetched with `apt-get download` and unpacked into the cache
#     dir; never installed as the host kernel.  siw comes as a module built
#     for that kernel (SOFTROCE_SIW_MODULE).
#   * qemu: the distribution's qemu-system-x86 (bookworm: 7.2), or 10.0 from
#     bookworm-backports with SOFTROCE_QEMU_BACKPORTS=1.
#   * A tiny initramfs (busybox-static + the needed .ko files) loads the
#     modules, mounts the HOST root filesystem read-only over virtio-9p with a
#     tmpfs overlay on top (so the guest sees exactly the host's JDK, rdma-core,
#     perftest, ... and can write anywhere without touching the host), mounts
#     the current directory read-write at the same path, chroots into it and
#     runs the job script.
#   * Job script: creates a dummy netdev with 10.77.0.1/24 and an rxe device
#     rxe0 on it, with SOFTROCE_SIW_MODULE also a second one, siwnet0
#     10.77.1.1/24, with a Soft-iWARP device siw0 (override all of it with
#     SOFTROCE_SETUP), cd's to $PWD, runs COMMAND.
#     Its exit status is written to a shared job dir and returned by this
#     script (255 if the VM died before writing it).  The guest's stdout AND
#     stderr both arrive on this script's stdout (serial console).
#
# Environment
#   SOFTROCE_CACHE   cache dir for kernel + initramfs (default /var/tmp/softroce)
#   SOFTROCE_KERNEL_SUITE  deb.debian.org suite to take linux-image-amd64 from,
#                    e.g. trixie-backports (7.3.x) or bookworm-backports
#                    (6.12.x); fetched via a private apt config in
#                    $CACHE/apt-SUITE (host apt sources untouched).  Default:
#                    the host's candidate (6.1.x on bookworm).
#   SOFTROCE_KERNEL_PKG    exact kernel package (e.g. linux-image-6.1.0-56-amd64);
#                    overrides the linux-image-amd64 lookup
#   SOFTROCE_QEMU_BACKPORTS=1  on bookworm, install/upgrade qemu-system-x86
#                    from bookworm-backports (10.0) if older than 10 (adds the
#                    apt source if missing); default 0 = distribution's qemu
#   SOFTROCE_MEM     guest RAM (default 3G)     SOFTROCE_SMP  vCPUs (default 2)
#   SOFTROCE_ACCEL   qemu accel (default tcg; kvm does NOT work on this host,
#                    see README)
#   SOFTROCE_CPU     qemu -cpu model for TCG (default Westmere, see below)
#   SOFTROCE_TCG_THREAD  single (default, all vCPUs on one host thread) or
#                    multi (faster, but the JDK JIT crashed sometimes, see README)
#   SOFTROCE_TIMEOUT wall-clock limit in seconds (default 1800)
#   SOFTROCE_SIW_MODULE  a siw.ko built for the guest kernel
#                    (siw-module-build.sh SUITE, with SOFTROCE_KERNEL_SUITE=SUITE
#                    here): loaded in the guest, with siw0 on siwnet0
#                    10.77.1.1/24 ($SOFTROCE_SIW_IP) beside rxe0.  Default: none
#   SOFTROCE_SETUP   shell snippet run in the guest (as root) before COMMAND,
#                    replaces the default rxe-on-dummy (and siw) setup
#   SOFTROCE_ENV     extra "export ..." lines run in the guest before COMMAND
#   SOFTROCE_QEMU_ARGS  extra qemu arguments (word-split), e.g. a virtio-net NIC
#                    to connect two VMs (see README, "two hosts")
#   SOFTROCE_VERBOSE=1  show kernel boot messages
#   SOFTROCE_QUIET=1    no "softroce-vm: ..." progress/timing lines on stderr
#
# Exit status: COMMAND's; 254 = rxe setup failed in the guest; 253 = cd failed;
# 255 = VM died or SOFTROCE_TIMEOUT hit (message on stderr); 2 = usage.
set -euo pipefail

[ $# -ge 1 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }
# the cwd is mounted over the guest's copy of the same path, so "/" cannot work
[ "$(pwd -P)" != / ] || { echo "softroce-vm: run it from a project dir, not /" >&2; exit 2; }
CACHE=${SOFTROCE_CACHE:-/var/tmp/softroce}
MEM=${SOFTROCE_MEM:-3G}
SMP=${SOFTROCE_SMP:-2}
ACCEL=${SOFTROCE_ACCEL:-tcg}
TIMEOUT=${SOFTROCE_TIMEOUT:-1800}

log() { [ "${SOFTROCE_QUIET:-0}" = 1 ] || echo "softroce-vm: $*" >&2; }
die() { echo "softroce-vm: ERROR: $*" >&2; exit "${2:-2}"; }
[ "$(id -u)" = 0 ] || die "must run as root (apt-get, qemu 9p export of /)"
T_START=$(date +%s.%N)
mkdir -p "$CACHE" || die "cannot create cache dir $CACHE"
# one lock for apt and the kernel/initramfs cache: concurrent first runs (e.g.
# the two VMs of two-hosts.sh) must not both apt-get or unpack into $CACHE
exec 9>"$CACHE/.lock"
flock 9

# ---------------------------------------------------------------- host deps
# make apt see deb.debian.org SUITE (e.g. bookworm-backports): apt-get update,
# and if the suite is still unknown add it as
# /etc/apt/sources.list.d/softroce-SUITE.sources.  Backports suites are pinned
# at priority 100 by their Release file, so this alone upgrades nothing.
suite_known() { apt-cache policy 2>/dev/null | grep -F " $1/main " >/dev/null; }
ensure_suite() {
  suite_known "$1" && return 0
  apt-get update -q >&2
  suite_known "$1" && return 0
  log "adding apt source $1 (/etc/apt/sources.list.d/softroce-$1.sources)"
  printf 'Types: deb\nURIs: http://deb.debian.org/debian\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$1" > "/etc/apt/sources.list.d/softroce-$1.sources"
  apt-get update -q >&2
  suite_known "$1" || { log "apt suite $1 not available"; exit 2; }
}
installed_ver() { dpkg-query -W -f='${Status} ${Version}' "$1" 2>/dev/null | awk '/ok installed/{print $4}'; }

# SOFTROCE_QEMU_BACKPORTS=1 (opt-in): on Debian 12 (bookworm, qemu 7.2) take
# qemu-system-x86 10.x from bookworm-backports.  It crashed the JDK JIT under
# multi-threaded TCG less often than 7.2, but not never (see README).
bpo_qemu=0
if [ "${SOFTROCE_QEMU_BACKPORTS:-0}" = 1 ] && grep -qs '^VERSION_CODENAME=bookworm' /etc/os-release; then
  v=$(installed_ver qemu-system-x86)
  { [ -z "$v" ] || dpkg --compare-versions "$v" lt 1:10; } && bpo_qemu=1
fi
need_pkgs=()
for p in qemu-system-x86 busybox-static kmod rdma-core ibverbs-providers \
         ibverbs-utils perftest rdmacm-utils libibverbs-dev librdmacm-dev \
         iproute2 cpio xz-utils util-linux; do
  [ "$p" = qemu-system-x86 ] && [ $bpo_qemu = 1 ] && continue
  [ -n "$(installed_ver "$p")" ] || need_pkgs+=("$p")
done
if [ ${#need_pkgs[@]} -gt 0 ]; then
  log "installing host packages (once): ${need_pkgs[*]}"
  apt-get update -q >&2 || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need_pkgs[@]}" >&2 \
    || die "apt-get install ${need_pkgs[*]} failed"
fi
if [ $bpo_qemu = 1 ]; then
  log "installing qemu-system-x86 from bookworm-backports (installed: ${v:-none})"
  ensure_suite bookworm-backports
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    -t bookworm-backports qemu-system-x86 >&2
fi

# ------------------------------------------------ guest kernel (cached)
# Default: the host's linux-image-amd64 candidate (bookworm: 6.1).  With
# SOFTROCE_KERNEL_SUITE the package comes from that deb.debian.org suite via a
# private apt config in $CACHE/apt-SUITE (the host's apt sources are not touched).
KSUITE=${SOFTROCE_KERNEL_SUITE:-}
KPKG=${SOFTROCE_KERNEL_PKG:-}
KDIR=$CACHE/kernel${KSUITE:+-$KSUITE}${KPKG:+-$KPKG}
APT=()
if [ -n "$KSUITE" ]; then
  A=$CACHE/apt-$KSUITE
  APT=(-o "Dir::Etc::SourceList=$A/sources.list" -o Dir::Etc::SourceParts=/nonexistent
       -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache")
fi
if [ ! -f "$KDIR/.done" ]; then
  log "fetching Debian kernel package into $KDIR"
  rm -rf "$KDIR"; mkdir -p "$KDIR/deb"
  if [ -n "$KSUITE" ]; then
    mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
    echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $KSUITE main" > "$A/sources.list"
    apt-get "${APT[@]}" update -q >&2
  fi
  kpkg=$KPKG
  [ -n "$kpkg" ] || kpkg=$(apt-cache "${APT[@]}" depends linux-image-amd64 |
                           awk '/Depends: linux-image-[0-9]/ && !n++ {print $2}')
  [ -n "$kpkg" ] || { log "no linux-image-amd64 dependency found${KSUITE:+ in $KSUITE}"; exit 2; }
  # Debian's 7.3.4 (trixie-backports) splits linux-image-VER into
  # linux-binary-VER, linux-modules-VER and linux-base-VER (files under
  # /usr/lib/modules/VER); 6.1 and 6.12 have no such dependencies
  pkgs=("$kpkg" $(apt-cache "${APT[@]}" depends "$kpkg" |
                  awk '/Depends: linux-(binary|modules|base)-[0-9]/{print $2}'))
  log "downloading ${pkgs[*]} (guest kernel only, not installed on the host)"
  (cd "$KDIR/deb" && apt-get "${APT[@]}" -o APT::Sandbox::User=root download "${pkgs[@]}" >&2) || die "apt-get download ${pkgs[*]} failed"

  for d in "$KDIR"/deb/*.deb; do dpkg -x "$d" "$KDIR/root"; done
  [ -e "$KDIR/root/lib" ] || ln -s usr/lib "$KDIR/root/lib"
  kver=$(ls "$KDIR/root/lib/modules")
  depmod -b "$KDIR/root" "$kver"
  echo "$kver" > "$KDIR/.done"
  log "guest kernel $kver cached in $KDIR (delete it to re-fetch)"
fi
KVER=$(cat "$KDIR/.done")
KROOT=$KDIR/root
KIMG=$KROOT/boot/vmlinuz-$KVER
[ -f "$KIMG" ] || KIMG=$KROOT/lib/modules/$KVER/vmlinuz

# ------------------------------------------------ Soft-iWARP module (opt-in)
# SOFTROCE_SIW_MODULE: a siw.ko built for this very kernel (siw-module-build.sh);
# it goes into its own initramfs with the modules it depends on
SIW_KO=${SOFTROCE_SIW_MODULE:-}
siw_modules=()
if [ -n "$SIW_KO" ]; then
  [ -f "$SIW_KO" ] || die "SOFTROCE_SIW_MODULE=$SIW_KO: no such file (softroce/siw-module-build.sh ${KSUITE:-SUITE} builds it)"
  siw_release=$(modinfo -F vermagic "$SIW_KO"); siw_release=${siw_release%% *}
  [ "$siw_release" = "$KVER" ] || die "SOFTROCE_SIW_MODULE=$SIW_KO is built for kernel $siw_release, the guest boots $KVER: build it for this kernel (softroce/siw-module-build.sh ${KSUITE:-SUITE} with the same SOFTROCE_KERNEL_SUITE)"
  # crc32c_generic first: libcrc32c (a dependency) and siw ask the crypto API
  # for crc32c when they load, and the guest cannot load modules on demand
  # (its /lib/modules is the host's)
  IFS=, read -r -a siw_modules <<<"crc32c_generic,$(modinfo -F depends "$SIW_KO")"
fi

# ------------------------------------------------ initramfs (cached)
# sch_netem, sch_ingress, cls_matchall, act_gact: tc's delay, loss and drop for the fault script
# (sample-faults-two-hosts.sh); the list is part of the cache key, so a changed list builds anew
MODULES=(virtio_pci virtio_net 9pnet_virtio 9p overlay dummy veth crc32_generic crc32_pclmul
         rdma_rxe ib_uverbs rdma_ucm sch_netem sch_ingress cls_matchall act_gact)
INITRD=$CACHE/initramfs-$KVER-$(echo "${MODULES[*]}" | sha1sum | cut -c1-8)${SIW_KO:+-siw-$(sha1sum "$SIW_KO" | cut -c1-12)}.cpio.gz
if [ ! -f "$INITRD" ]; then
  log "building $INITRD"
  IR=$(mktemp -d); trap 'rm -rf "$IR"' EXIT
  mkdir -p "$IR"/{bin,proc,sys,dev,lower,upper,newroot,mods}
  cp /bin/busybox "$IR/bin/busybox"
  # modules in dependency order (modprobe --show-depends lists deps first)
  # crc32_generic/crc32_pclmul: rdma_rxe in 6.1/6.12 needs the "crc32" crypto
  # shash (ICRC); 7.3.4 has no such modules (and rdma_rxe does not need
  # them), so missing modules are skipped here
  for m in "${MODULES[@]}" ${siw_modules[@]+"${siw_modules[@]}"}; do
    modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" 2>/dev/null || true
  done | awk '$1=="insmod" && !seen[$2]++ {print $2}' | while read -r ko; do
    # Debian's 6.12 and 7.3 ship xz-compressed modules; busybox insmod
    # wants plain .ko
    b=$(basename "$ko"); b=${b%.xz}; b=${b%.zst}; b=${b%.gz}
    case $ko in
      *.xz) xz -dc "$ko" > "$IR/mods/$b" ;;
      *.zst) zstd -dcq "$ko" > "$IR/mods/$b" ;;
      *.gz) gzip -dc "$ko" > "$IR/mods/$b" ;;
      *) cp "$ko" "$IR/mods/$b" ;;
    esac
    echo "$b" >> "$IR/mods/order"
  done
  if [ -n "$SIW_KO" ]; then
    cp "$SIW_KO" "$IR/mods/siw.ko"; echo siw.ko >> "$IR/mods/order"
  fi
  cat > "$IR/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
for m in $(cat /mods/order); do insmod /mods/$m || echo "insmod $m failed"; done
O=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o $O,ro,cache=loose hostroot /lower || { echo "no hostroot"; poweroff -f; }
mount -t tmpfs -o mode=755 tmpfs /upper; mkdir -p /upper/u /upper/w
mount -t overlay -o lowerdir=/lower,upperdir=/upper/u,workdir=/upper/w overlay /newroot
R=/newroot
mount -t proc proc $R/proc; mount -t sysfs sys $R/sys; mount -t devtmpfs dev $R/dev
mkdir -p $R/dev/pts $R/dev/shm; mount -t devpts devpts $R/dev/pts; mount -t tmpfs tmpfs $R/dev/shm
mount -t tmpfs tmpfs $R/tmp; mount -t tmpfs tmpfs $R/run; mkdir -p $R/run/softroce
mount -t 9p -o $O,cache=none job $R/run/softroce
CWD=$(cat $R/run/softroce/cwd)
mkdir -p "$R$CWD"; mount -t 9p -o $O,cache=none work "$R$CWD"
chroot $R /bin/sh /run/softroce/job.sh
echo $? > $R/run/softroce/rc
umount $R/run/softroce "$R$CWD" 2>/dev/null; sync
poweroff -f
EOF
  chmod +x "$IR/init"
  (cd "$IR" && find . | cpio -o -H newc --quiet | gzip -1) > "$INITRD.tmp"
  mv "$INITRD.tmp" "$INITRD"; rm -rf "$IR"; trap - EXIT
fi
[ -f "$KIMG" ] || die "kernel image not found under $KROOT (delete $KDIR and retry)"
flock -u 9

# ------------------------------------------------ job dir
JOB=$(mktemp -d "${TMPDIR:-/tmp}/softroce-job.XXXXXX")
trap 'rm -rf "$JOB"' EXIT
pwd -P > "$JOB/cwd"
DEFAULT_SETUP='
ip link set lo up
ip link add rxenet0 type dummy && ip addr add 10.77.0.1/24 dev rxenet0 && ip link set rxenet0 up
rdma link add rxe0 type rxe netdev rxenet0
'
# siw0 on a dummy netdev of its own: rdma_cm binds an address to the first
# device registered on its netdev, so beside rxe0 on rxenet0 it would never
# reach siw0
SIW_SETUP='
ip link add siwnet0 type dummy && ip addr add 10.77.1.1/24 dev siwnet0 && ip link set siwnet0 up
rdma link add siw0 type siw netdev siwnet0
'
[ -n "$SIW_KO" ] && DEFAULT_SETUP+=$SIW_SETUP
{
  # the initramfs runs this with /bin/sh (dash), but printf %q below may emit
  # bash-only $'...' quoting (arguments with newlines): re-exec under bash
  echo '[ -n "${BASH_VERSION:-}" ] || exec /bin/bash /run/softroce/job.sh'
  echo 'export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
  echo "export HOME=/root LANG=C.UTF-8 SOFTROCE_IP=10.77.0.1"
  [ -n "$SIW_KO" ] && echo "export SOFTROCE_SIW_IP=10.77.1.1"
  [ -n "${JAVA_HOME:-}" ] && printf 'export JAVA_HOME=%q\n' "$JAVA_HOME"
  printf '%s\n' "${SOFTROCE_ENV:-}"
  echo '{'; printf '%s\n' "${SOFTROCE_SETUP:-$DEFAULT_SETUP}"; echo '} >/dev/null 2>/tmp/softroce-setup.err || { echo "softroce setup failed:"; cat /tmp/softroce-setup.err; exit 254; }'
  printf 'cd %q || exit 253\n' "$(pwd -P)"
  printf 'exec'; printf ' %q' "$@"; printf '\n'
} > "$JOB/job.sh"

# ------------------------------------------------ boot
# TCG threading: with thread=multi (one host thread per vCPU) the JDK 25 JIT
# crashed intermittently (SIGSEGV in C1-compiled code): qemu 7.2 6 of 15
# `mvn test` runs; qemu 10.0 (bookworm-backports) 0 of 18 with the 6.1 guest
# kernel but 2 of 4 with 7.3.  thread=single: no crash seen.  So single is the
# default; multi is much faster for busy-polling C tests.
TCG_THREAD=${SOFTROCE_TCG_THREAD:-single}
ACCEL_ARGS=(-accel "tcg,thread=$TCG_THREAD" -cpu "${SOFTROCE_CPU:-Westmere}")
[ "$ACCEL" = kvm ] && ACCEL_ARGS=(-accel kvm -cpu host)
QUIET="quiet loglevel=0"; [ "${SOFTROCE_VERBOSE:-0}" = 1 ] && QUIET=""
log "booting kernel $KVER (tcg thread=$TCG_THREAD, smp=$SMP, mem=$MEM, timeout ${TIMEOUT}s): $(printf '%s ' "$@" | tr '\n' ' ' | cut -c1-120)"
T_BOOT=$(date +%s.%N)
set +e
# qemu runs in the background (timeout --foreground: same process group as
# this script, so killing the group, as two-hosts.sh does, reaches qemu) and
# a TERM/INT/HUP to this script kills it (the pipeline form of the recipe
# left qemu running when only the script was killed)
timeout --foreground "$TIMEOUT" qemu-system-x86_64 -nodefaults -no-user-config -no-reboot \
  "${ACCEL_ARGS[@]}" -smp "$SMP" -m "$MEM" \
  -display none -serial stdio -monitor none \
  -kernel "$KIMG" -initrd "$INITRD" \
  -append "console=ttyS0 panic=-1 tsc=reliable $QUIET rdinit=/init" \
  -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
  -virtfs local,path="$JOB",mount_tag=job,security_model=none,multidevs=remap \
  -virtfs local,path="$(pwd -P)",mount_tag=work,security_model=none,multidevs=remap \
  ${SOFTROCE_QEMU_ARGS:-} \
  < /dev/null > >(sed -u 's/\r$//') &
qpid=$!
killed=0
trap 'killed=1; log "got a signal: stopping the VM"; kill -TERM $qpid 2>/dev/null' TERM INT HUP
wait $qpid; qrc=$?
while kill -0 $qpid 2>/dev/null; do wait $qpid; qrc=$?; done
trap - TERM INT HUP
wait   # for the sed of the process substitution (bash >= 5.1)
set -e
T_END=$(date +%s.%N)
took=$(awk -v a="$T_START" -v b="$T_BOOT" -v c="$T_END" 'BEGIN{printf "%.1f s (VM %.1f s)", c-a, c-b}')
if [ -f "$JOB/rc" ]; then
  rc=$(cat "$JOB/rc")
  case $rc in
    254) echo "softroce-vm: ERROR: RDMA/network setup failed in the guest (see output above)" >&2 ;;
    253) echo "softroce-vm: ERROR: cd to $(pwd -P) failed in the guest" >&2 ;;
  esac
  log "done in $took, exit status $rc"
  exit "$rc"
fi
if [ $killed = 1 ]; then
  echo "softroce-vm: ERROR: killed by a signal, VM stopped; $took" >&2
elif [ "$qrc" = 124 ]; then
  echo "softroce-vm: ERROR: timed out after ${TIMEOUT}s (SOFTROCE_TIMEOUT), VM killed; $took" >&2
else
  echo "softroce-vm: ERROR: VM ended without a result (qemu rc=$qrc, guest crash/panic or qemu error; try SOFTROCE_VERBOSE=1); $took" >&2
fi
exit 255
