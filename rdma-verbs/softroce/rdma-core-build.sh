#!/usr/bin/env bash
# rdma-core-build.sh - build one rdma-core release from Debian's source package,
# so the native provider can be tested against an rdma-core other than the
# host's (bookworm: 44).  Newer Debian binaries cannot simply be unpacked here:
# trixie's libibverbs (56.1) needs glibc 2.38, bookworm has 2.36.
#
#   usage: rdma-core-build.sh VERSION        e.g. rdma-core-build.sh 56.1
#
# Fetches the source package of that upstream version from a Debian suite
# (RDMA_CORE_SUITE, default trixie) through a private apt configuration (the
# host's apt sources are not touched), installs the build dependencies it is
# missing from the host's own suite, and builds only libibverbs, librdmacm and
# the rxe provider, in place (-DIN_PLACE=1: the libraries find their providers
# and driver files in the build directory, no install step).  The result is
# cached in $SOFTROCE_CACHE/rdma-core-VERSION (default /var/tmp/softroce) and
# reused on the next call; delete that directory to rebuild.
#
# Prints, on stdout, the environment that makes a process (or the Soft-RoCE
# guest, whose root is the host's) load this build:
#   RDMA_CORE_DIR=...      the build directory
#   RDMA_CORE_LIB=...      libibverbs.so.*, librdmacm.so.* and the providers
#   RDMA_CORE_INCLUDE=...  its public headers (infiniband/verbs.h, rdma/rdma_cma.h)
# e.g.  eval "$(softroce/rdma-core-build.sh 56.1)"
#       SOFTROCE_ENV="export LD_LIBRARY_PATH=$RDMA_CORE_LIB" softroce/run-junit-in-guest.sh ...
# Progress and the duration go to stderr.
#
# Environment: SOFTROCE_CACHE (cache root), RDMA_CORE_SUITE (Debian suite with
# that version, default trixie), RDMA_CORE_JOBS (ninja -j, default: nproc).
set -euo pipefail

log() { echo "rdma-core-build: $*" >&2; }
die() { echo "rdma-core-build: ERROR: $*" >&2; exit 2; }

[ $# -eq 1 ] && [[ $1 =~ ^[0-9]+\.[0-9]+$ ]] ||
  die "usage: $0 VERSION (an upstream rdma-core version such as 56.1)"
VERSION=$1
[ "$(id -u)" = 0 ] || die "must run as root (apt-get of the build dependencies)"
SUITE=${RDMA_CORE_SUITE:-trixie}
CACHE=${SOFTROCE_CACHE:-/var/tmp/softroce}
DIR=$CACHE/rdma-core-$VERSION
T_START=$(date +%s.%N)

report() {
  echo "RDMA_CORE_DIR=$DIR"
  echo "RDMA_CORE_LIB=$DIR/build/lib"
  echo "RDMA_CORE_INCLUDE=$DIR/build/include"
}

mkdir -p "$CACHE" || die "cannot create the cache dir $CACHE"
# one build per version at a time; its own lock, so that Soft-RoCE VMs (which
# hold $CACHE/.lock while they set up) are not held up by a build
exec 9>"$CACHE/rdma-core-$VERSION.lock"
flock 9
if [ -f "$DIR/.done" ]; then
  log "rdma-core $VERSION already built in $DIR"
  report
  exit 0
fi
rm -rf "$DIR"
mkdir -p "$DIR"

# ------------------------------------------------ build dependencies
# what Debian's rdma-core needs for libibverbs, librdmacm and the providers,
# without pyverbs (cython) and man pages (pandoc)
packages=(cmake ninja-build pkg-config gcc python3 dpkg-dev libnl-3-dev libnl-route-3-dev libudev-dev)
missing=()
for package in "${packages[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" = "install ok installed" ] || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing the build dependencies ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi

# ------------------------------------------------ source package
A=$CACHE/apt-src-$SUITE
APT=(-o "Dir::Etc::SourceList=$A/sources.list" -o Dir::Etc::SourceParts=/nonexistent
     -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache")
mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $SUITE main" > "$A/sources.list"
log "reading $SUITE's source index"
apt-get "${APT[@]}" update -q >&2
# the Debian version of that upstream release, e.g. 56.1-1 for 56.1
debversion=$(apt-cache "${APT[@]}" showsrc rdma-core |
             awk -v v="$VERSION" '$1 == "Version:" && index($2, v "-") == 1 {print $2; exit}')
[ -n "$debversion" ] ||
  die "$SUITE has no rdma-core $VERSION source package (it has: $(apt-cache "${APT[@]}" showsrc rdma-core | awk '$1 == "Version:" {print $2}' | xargs)); set RDMA_CORE_SUITE to a suite that has it"
log "fetching rdma-core $debversion from $SUITE"
# The upstream tarball and Debian's packaging, without the .dsc: this
# network's Debian mirror answers 404 for it.  apt checks both files against
# the suite's signed Sources index, so the .dsc's own signature adds nothing.
for part in --tar-only --diff-only; do
  (cd "$DIR" && apt-get "${APT[@]}" source -q --download-only "$part" "rdma-core=$debversion" >&2)
done
src=$DIR/rdma-core-$debversion
mkdir -p "$src"
tar -xzf "$DIR/rdma-core_$VERSION.orig.tar.gz" -C "$src" --strip-components=1
tar -xJf "$DIR/rdma-core_$debversion.debian.tar.xz" -C "$src"
log "applying Debian's patches: $(grep -cv '^#' "$src/debian/patches/series" || true)"
while read -r patch; do
  patch -d "$src" -p1 -s < "$src/debian/patches/$patch"
done < <(grep -v '^#' "$src/debian/patches/series")
[ -f "$src/CMakeLists.txt" ] || die "no rdma-core source tree in $src"
ln -sfn "$(basename "$src")" "$DIR/src"

# ------------------------------------------------ build
# The build directory is $DIR/build; IN_PLACE compiles that path into
# libibverbs as its driver directory, so the tree must stay where it is.
log "configuring"
cmake -S "$DIR/src" -B "$DIR/build" -G Ninja -DIN_PLACE=1 -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 \
  -DENABLE_STATIC=0 -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
# the provider's target carries the provider ABI version (rxe-rdmav34 in 56.1)
rxe=$(ninja -C "$DIR/build" -t targets all | awk -F: '$1 ~ /^rxe-rdmav[0-9]+$/ {print $1; exit}')
[ -n "$rxe" ] || die "rdma-core $VERSION's build has no rxe-rdmavN target (is the rxe provider still in providers/rxe?)"
log "building libibverbs, librdmacm and the rxe provider ($rxe)"
ninja -C "$DIR/build" -j "${RDMA_CORE_JOBS:-$(nproc)}" ibverbs rdmacm "$rxe" >&2
# configure wrote a driver file for every provider; libibverbs warns about each
# one whose library is missing, so only the one built stays listed
find "$DIR/build/etc/libibverbs.d" -name '*.driver' ! -name rxe.driver -delete
touch "$DIR/.done"
log "rdma-core $VERSION built in $DIR in $(awk -v s="$T_START" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}') s"
report
