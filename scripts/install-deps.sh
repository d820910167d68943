#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything needed to build rds_doca and to run its tests in QEMU
# on a Debian 12 (bookworm) amd64 host.  Run as root (or with sudo
# available).  The script is idempotent and returns within a few seconds
# when everything is already in place.
#
# It also picks the two test kernels (newest Debian 6.12 and 6.1 kernels
# for which both linux-headers-<ver> and linux-image-<ver>-unsigned exist)
# and records them in "$RDSD_CACHE/kernels.env":
#
#	KVER_612=6.12.N+deb12-amd64
#	KVER_61=6.1.0-N-amd64
#
# (i.e. "uname -r" of the guest kernel).  Other scripts source that file.
#
# Environment:
#	RDSD_CACHE	cache directory (default: $HOME/.cache/rds_doca)
#	RDSD_KVER_612	force the 6.12 kernel, e.g. 6.12.117+deb12[-amd64]
#	RDSD_KVER_61	force the 6.1 kernel, e.g. 6.1.0-56[-amd64]
#	RDSD_APT_UPDATE	1: always run "apt-get update", 0: never

set -euo pipefail

RDSD_CACHE=${RDSD_CACHE:-$HOME/.cache/rds_doca}
LOG=$RDSD_CACHE/install-deps.log
STAMP=$RDSD_CACHE/apt-update.stamp
KERNELS_ENV=$RDSD_CACHE/kernels.env
SRC_DIR=$RDSD_CACHE/linux-source-6.12

# Packages that must be present.
REQUIRED=(
	# toolchain and kernel build dependencies
	gcc make libc6-dev git bc bison flex libelf-dev libssl-dev pkg-config
	dwarves sparse python3 kmod cpio xz-utils zstd file
	# make dkms-install
	dkms
	# userspace RDMA/RDS libraries and tools
	rdma-core ibverbs-utils perftest rdmacm-utils libibverbs-dev
	librdmacm-dev libnl-genl-3-dev iproute2 iputils-ping ethtool
	# virtual machine test harness
	qemu-system-x86 busybox-static util-linux procps
	# the syscall fuzzer (tests/fuzz), make coverage
	trinity lcov
	# sources for the debug kernel
	linux-source-6.12
)

# Nice to have; installed when the archive carries them.
OPTIONAL=(gnuplot-nox shellcheck linux-perf gdb strace tcpdump)

msg() { printf '%s\n' "$*"; }

die() {
	msg "install-deps: error: $*" >&2
	if [[ -s $LOG ]]; then
		msg "---- last lines of $LOG ----" >&2
		tail -n 30 "$LOG" >&2
	fi
	exit 1
}

# Run a command with its output going to the log file only.
quiet() {
	printf '+ %s\n' "$*" >>"$LOG"
	"$@" >>"$LOG" 2>&1
}

SUDO=()
need_root() {
	[[ $EUID -eq 0 || ${#SUDO[@]} -gt 0 ]] && return 0
	command -v sudo >/dev/null || die "must be run as root to install packages"
	SUDO=(sudo)
}

apt_get() {
	need_root
	quiet "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get \
		-o Dpkg::Use-Pty=0 -o APT::Sandbox::User=root "$@"
}

# Refresh the package lists at most once an hour.
apt_update() {
	local force=${RDSD_APT_UPDATE:-}

	[[ $force == 0 ]] && return 0
	if [[ $force != 1 && -n $(find "$STAMP" -mmin -60 2>/dev/null) ]]; then
		return 0
	fi
	if apt_get update; then
		touch "$STAMP"
	elif compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
		msg "install-deps: warning: apt-get update failed, using the existing package lists" >&2
	else
		die "apt-get update failed"
	fi
}

# Kernel packages known to apt, one name a line (filled in by main).
KPKGS=

# resolve_kver VERSION-REGEX OVERRIDE
#
# Print the newest "<ver>-amd64" (a kernel release string) for which both
# linux-headers-<ver>-amd64 and linux-image-<ver>-amd64-unsigned exist.
resolve_kver() {
	local re=$1 override=$2 ver

	if [[ -n $override ]]; then
		ver=${override%-amd64}-amd64
		apt-cache show "linux-image-$ver-unsigned" >/dev/null 2>&1 ||
			die "linux-image-$ver-unsigned is not available"
		printf '%s\n' "$ver"
		return 0
	fi

	ver=$(comm -12 \
		<(grep -E "^linux-headers-${re}-amd64\$" <<<"$KPKGS" |
		  sed 's/^linux-headers-//' | sort -u) \
		<(grep -E "^linux-image-${re}-amd64-unsigned\$" <<<"$KPKGS" |
		  sed 's/^linux-image-//; s/-unsigned$//' | sort -u) |
		sort -V | tail -n 1)
	[[ -n $ver ]] || die "no kernel matching $re in the package lists"
	printf '%s\n' "$ver"
}

# Print those packages among the arguments that are not installed.
missing_pkgs() {
	local installed

	installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "$@" \
		2>/dev/null | awk '$1 == "ii" { print $2 }') || true
	comm -23 <(printf '%s\n' "$@" | sort -u) <(sort -u <<<"$installed")
}

# Print those packages among the arguments that the archive carries.
available_pkgs() {
	apt-cache policy "$@" 2>/dev/null | awk '
		/^[^ ]/ { pkg = $1; sub(/:$/, "", pkg) }
		/^  Candidate:/ && $2 != "(none)" { print pkg }'
}

# Extract Debian's linux-source-6.12 tarball into the cache (used to build
# a debug kernel).  Re-extract when the package version changed.
extract_source() {
	local tarball=/usr/src/linux-source-6.12.tar.xz
	local vfile=$SRC_DIR.version tmp ver

	ver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	if [[ -f $SRC_DIR/Makefile ]]; then
		if [[ ! -f $vfile ]]; then
			printf '%s\n' "$ver" >"$vfile"
		fi
		[[ $(<"$vfile") == "$ver" ]] && return 0
	fi
	[[ -f $tarball ]] || die "$tarball is missing"

	msg "install-deps: extracting linux-source-6.12 $ver into $SRC_DIR"
	tmp=$(mktemp -d "$RDSD_CACHE/.linux-source.XXXXXX")
	quiet tar -xf "$tarball" -C "$tmp" || die "extracting $tarball failed"
	rm -rf "$SRC_DIR"
	mv "$tmp/linux-source-6.12" "$SRC_DIR"
	rmdir "$tmp"
	printf '%s\n' "$ver" >"$vfile"
}

main() {
	local kver_612 kver_61 pkgs missing opt

	mkdir -p "$RDSD_CACHE"
	: >"$LOG"

	# On a fresh machine the package lists may be empty: always update
	# then, otherwise at most once an hour.
	if ! compgen -G '/var/lib/apt/lists/*_Packages*' >/dev/null; then
		RDSD_APT_UPDATE=${RDSD_APT_UPDATE:-1}
	fi
	apt_update

	KPKGS=$(apt-cache search --names-only \
		'^linux-(headers|image)-6\.(12\.[0-9]+\+deb12|1\.0-[0-9]+)-amd64(-unsigned)?$' |
		cut -d' ' -f1)
	kver_612=$(resolve_kver '6\.12\.[0-9]+\+deb12' "${RDSD_KVER_612:-}")
	kver_61=$(resolve_kver '6\.1\.0-[0-9]+' "${RDSD_KVER_61:-}")

	pkgs=("${REQUIRED[@]}" "linux-headers-$kver_612" "linux-headers-$kver_61")
	mapfile -t missing < <(missing_pkgs "${pkgs[@]}")
	mapfile -t opt < <(missing_pkgs "${OPTIONAL[@]}")
	if [[ ${#opt[@]} -gt 0 ]]; then
		mapfile -t opt < <(available_pkgs "${opt[@]}")
		missing+=("${opt[@]}")
	fi

	if [[ ${#missing[@]} -gt 0 ]]; then
		msg "install-deps: installing ${missing[*]}"
		apt_get install -y --no-install-recommends "${missing[@]}" ||
			die "apt-get install failed"
	fi

	extract_source

	cat >"$KERNELS_ENV.tmp" <<-EOF
	# Test kernels (uname -r), written by scripts/install-deps.sh
	KVER_612=$kver_612
	KVER_61=$kver_61
	EOF
	mv "$KERNELS_ENV.tmp" "$KERNELS_ENV"

	msg "install-deps: ok (${#missing[@]} packages installed)"
	msg "  6.12 kernel:  $kver_612"
	msg "  6.1 kernel:   $kver_61"
	msg "  kernels.env:  $KERNELS_ENV"
	msg "  6.12 source:  $SRC_DIR"
}

main "$@"
