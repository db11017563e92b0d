#!/usr/bin/env bash
# siw-module-build.sh - build the Soft-iWARP kernel module (siw.ko) for the
# guest kernel of one Debian suite, so that softroce-vm.sh can give the guest a
# siw0 device beside rxe0.  Debian's kernels are built without it
# (`# CONFIG_RDMA_SIW is not set`), but the driver is in their source.
#
#   usage: siw-module-build.sh KERNEL_SUITE      e.g. siw-module-build.sh bookworm-backports
#
# The kernel release is the one softroce-vm.sh boots for
# SOFTROCE_KERNEL_SUITE=KERNEL_SUITE: the one it has cached in
# $SOFTROCE_CACHE/kernel-KERNEL_SUITE, else that suite's linux-image-amd64
# (what softroce-vm.sh fetches on its first run).  For that release it fetches,
# through softroce-vm.sh's private apt configuration of the suite (the host's
# apt sources are not touched), with `apt-get download`:
#   linux-headers-REL, linux-headers-*-common, linux-kbuild-*  (kbuild + Module.symvers)
#   linux-source-MAJOR.MINOR                                    (Debian's patched source)
# all of the kernel's package version.  The headers are unpacked into the
# cache, not installed: linux-headers-REL depends on linux-image-REL, and
# installing it would put a second kernel on the host.  The unpacked
# headers' Makefile includes the -common tree by its absolute /usr/src path,
# which is rewritten to the unpacked copy.  Only drivers/infiniband/sw/siw is
# taken from the source, and built with kbuild as an external module:
#   make -C <headers> M=<siw source> CONFIG_RDMA_SIW=m CONFIG_DEBUG_INFO_BTF_MODULES= modules
# The module's vermagic is checked against the release.  Cached in
# $SOFTROCE_CACHE/siw-REL (default /var/tmp/softroce) with the siw source and
# the build log; the packages and the unpacked headers are deleted after the
# build.  Delete the directory to rebuild.
#
# Prints, on stdout, for eval:
#   SIW_MODULE=.../siw.ko        pass it as SOFTROCE_SIW_MODULE to softroce-vm.sh
#   SIW_KERNEL_RELEASE=REL
# e.g.  eval "$(softroce/siw-module-build.sh bookworm-backports)"
#       SOFTROCE_KERNEL_SUITE=bookworm-backports SOFTROCE_SIW_MODULE=$SIW_MODULE \
#           softroce/softroce-vm.sh ibv_devinfo -d siw0
# Progress and the duration go to stderr.
#
# Environment: SOFTROCE_CACHE (cache root), SIW_BUILD_JOBS (make -j, default: nproc).
set -euo pipefail

log() { echo "siw-module-build: $*" >&2; }
die() { echo "siw-module-build: ERROR: $*" >&2; exit 2; }

[ $# -eq 1 ] && [[ $1 =~ ^[a-z]+(-[a-z]+)*$ ]] ||
  die "usage: $0 KERNEL_SUITE (a Debian suite whose kernel softroce-vm.sh boots, e.g. bookworm-backports)"
SUITE=$1
CACHE=${SOFTROCE_CACHE:-/var/tmp/softroce}
T_START=$(date +%s.%N)
for tool in make gcc strip dpkg-deb xz modinfo; do
  command -v "$tool" >/dev/null || die "$tool not found (apt-get install build-essential binutils dpkg xz-utils kmod)"
done
mkdir -p "$CACHE" || die "cannot create the cache dir $CACHE"

# softroce-vm.sh's private apt configuration of the suite; its lock
# ($CACHE/.lock) is held around each apt-get, which softroce-vm.sh runs under
# the same lock
A=$CACHE/apt-$SUITE
APT=(-o "Dir::Etc::SourceList=$A/sources.list" -o Dir::Etc::SourceParts=/nonexistent
     -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache")
apt_locked() { flock "$CACHE/.lock" "$@"; }
apt_update() {
  mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $SUITE main" > "$A/sources.list"
  apt_locked apt-get "${APT[@]}" update -q >&2 || die "apt-get update of $SUITE failed"
}

# ------------------------------------------------ kernel release
cached_kernel=$CACHE/kernel-$SUITE/.done
if [ -f "$cached_kernel" ]; then
  release=$(cat "$cached_kernel")
  log "kernel $release (softroce-vm.sh's cached guest kernel for $SUITE)"
  updated=0
else
  apt_update; updated=1
  release=$(apt-cache "${APT[@]}" depends linux-image-amd64 |
            awk '/Depends: linux-image-[0-9]/ && !n++ {sub(/^linux-image-/, "", $2); print $2}')
  [ -n "$release" ] || die "no linux-image-amd64 in $SUITE"
  log "kernel $release ($SUITE's linux-image-amd64; softroce-vm.sh will fetch the same)"
fi
DIR=$CACHE/siw-$release
report() {
  echo "SIW_MODULE=$DIR/siw.ko"
  echo "SIW_KERNEL_RELEASE=$release"
}

# one build per release at a time; its own lock, so that Soft-RoCE VMs are not
# held up by a build
exec 9>"$CACHE/siw-$release.lock"
flock 9
if [ -f "$DIR/.done" ]; then
  log "siw.ko for $release already built in $DIR"
  report
  exit 0
fi
rm -rf "$DIR"
mkdir -p "$DIR/deb"

# ------------------------------------------------ packages
[ $updated = 1 ] || apt_update
version_of() { apt-cache "${APT[@]}" show "$1" 2>/dev/null | awk '$1 == "Version:" {print $2; exit}'; }
kversion=$(version_of "linux-image-$release")
[ -n "$kversion" ] ||
  die "$SUITE no longer has linux-image-$release (the guest kernel softroce-vm.sh cached); delete $CACHE/kernel-$SUITE so that it fetches $SUITE's current kernel, then rerun this"
headers=linux-headers-$release
common=$(apt-cache "${APT[@]}" depends "$headers" | awk '/Depends: linux-headers-.*-common$/ {print $2; exit}')
kbuild=$(apt-cache "${APT[@]}" depends "$headers" | awk '/Depends: linux-kbuild-/ {print $2; exit}')
[ -n "$common" ] && [ -n "$kbuild" ] || die "$SUITE's $headers (or its -common/linux-kbuild dependency) not found"
source=linux-source-$(awk -F. '{print $1 "." $2}' <<<"$release")
packages=("$headers" "$common" "$kbuild" "$source")
for package in "${packages[@]}"; do
  v=$(version_of "$package")
  [ "$v" = "$kversion" ] ||
    die "$package is ${v:-missing} in $SUITE, the kernel linux-image-$release is $kversion: a module must be built from the kernel's own version"
done
log "downloading ${packages[*]} ($kversion)"
(cd "$DIR/deb" && apt_locked apt-get "${APT[@]}" -o APT::Sandbox::User=root download "${packages[@]}" >&2) ||
  die "apt-get download ${packages[*]} failed"

# ------------------------------------------------ kbuild tree and siw source
for deb in "$DIR/deb/$headers"_*.deb "$DIR/deb/$common"_*.deb "$DIR/deb/$kbuild"_*.deb; do
  dpkg-deb -x "$deb" "$DIR/root"
done
kbuild_tree=$DIR/root/usr/src/$headers
sed -i "s#^include /usr/src/#include $DIR/root/usr/src/#" "$kbuild_tree/Makefile"
grep -q "^include $DIR/root/" "$kbuild_tree/Makefile" ||
  die "$kbuild_tree/Makefile does not include the -common tree by /usr/src/... (Debian changed its headers layout)"
dpkg-deb -x "$DIR/deb/$source"_*.deb "$DIR/root"
top=$(basename "$DIR"/root/usr/src/linux-source-*.tar.xz .tar.xz)
log "extracting drivers/infiniband/sw/siw from $top.tar.xz"
tar -xJf "$DIR/root/usr/src/$top.tar.xz" -C "$DIR" "$top/drivers/infiniband/sw/siw"
mv "$DIR/$top/drivers/infiniband/sw/siw" "$DIR/src"
rm -rf "${DIR:?}/$top"

# ------------------------------------------------ build
# without the module's BTF (type information for BPF and debuggers, not needed
# to load it): generating it needs pahole (dwarves), and one older than the
# kernel's may write BTF that the kernel refuses, and with it the module
log "building siw.ko with $kbuild_tree"
make -C "$kbuild_tree" M="$DIR/src" CONFIG_RDMA_SIW=m CONFIG_DEBUG_INFO_BTF_MODULES= -j "${SIW_BUILD_JOBS:-$(nproc)}" modules \
  > "$DIR/build.log" 2>&1 || { tail -30 "$DIR/build.log" >&2; die "make failed (log: $DIR/build.log)"; }
vermagic=$(modinfo -F vermagic "$DIR/src/siw.ko")
[ "${vermagic%% *}" = "$release" ] || die "siw.ko's vermagic is '$vermagic', not for $release"
# without its debugging information, as Debian ships its modules (5.8 MB -> a
# few hundred kB in every initramfs that carries it)
strip --strip-debug -o "$DIR/siw.ko" "$DIR/src/siw.ko"
make -C "$kbuild_tree" M="$DIR/src" clean >> "$DIR/build.log" 2>&1
rm -rf "$DIR/deb" "$DIR/root"
touch "$DIR/.done"
log "siw.ko for $release (vermagic: $vermagic; depends: $(modinfo -F depends "$DIR/siw.ko")) built in $DIR in $(awk -v s="$T_START" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}') s"
report
