#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# DKMS builds rds_doca from the sources "make dkms-install" registers, for
# kernels that need not be running: dkms add and build in a private tree
# (--dkmstree, --sourcetree), from each kernel's headers, nothing
# installed.  Checks that the module came out of DKMS's build for that
# kernel (its vermagic).  The whole cycle, install, modprobe and removal
# included, runs inside a VM: tests/userspace/run.sh --stage dkms (make
# check-dkms).
#
# usage: tests/install/dkms_build.sh KERNEL-RELEASE...
# Output is TAP, closed by "N passed, N failed".

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
# shellcheck source=tests/userspace/tap.sh
. "$TOP/tests/userspace/tap.sh"

[[ $# -gt 0 ]] || { echo "usage: ${0##*/} KERNEL-RELEASE..." >&2; exit 2; }

VER=$(sed -n 's/^#define RDSD_VERSION[[:space:]]*"\(.*\)"/\1/p' \
	"$TOP/net/rds_doca/rdsd.h")
TMP=$(mktemp -d /tmp/rds_doca-dkms.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
TREE=(--dkmstree "$TMP/dkms" --sourcetree "$TMP/src")
mkdir -p "$TMP/dkms"

out=$(make -s -C "$TOP" dkms-source DKMS_SRC="$TMP/src/rds_doca-$VER" 2>&1 &&
      dkms add "rds_doca/$VER" "${TREE[@]}" 2>&1)
check $? "dkms: add rds_doca/$VER, private tree" "$out"

for k in "$@"; do
	out=$(dkms build "rds_doca/$VER" -k "$k" "${TREE[@]}" 2>&1)
	check $? "dkms: build for $k" "$out"
	ko=$TMP/dkms/rds_doca/$VER/$k/$(uname -m)/module/rds_doca.ko
	[[ -e $ko ]] || ko=$ko.xz
	magic=$(modinfo -F vermagic "$ko" 2>&1)
	check "$(status test "${magic%% *}" = "$k")" \
		"dkms: the module is built for $k" "$ko: $magic"
done
tap_finish
