#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Check, before anything is compiled, that what a build step needs is
# installed, and when it is not, say which Debian package provides it and
# how to install everything at once, instead of leaving a compiler error.
#
# usage: scripts/check-build-deps.sh module KDIR
#        scripts/check-build-deps.sh tools
#
#   module KDIR  the kernel tree the module is built against (KDIR may be
#                empty: no tree was found)
#   tools        a C compiler, pkg-config and libnl-genl-3 (rdsctl)
#
# Exit status 0 when everything is there, 1 otherwise (the messages go to
# standard error).

set -u

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
missing=()
why=()

need() {
	missing+=("$1")
	why+=("$2")
}

check_module() {
	local kdir=$1 rel

	rel=$(uname -r)
	if [[ -z $kdir ]]; then
		need "linux-headers-$rel" \
			"no kernel tree for the running kernel $rel (KDIR unset, /lib/modules/$rel/build missing)"
	elif [[ ! -f $kdir/Makefile ]]; then
		need "linux-headers-<release>" "KDIR=$kdir is not a kernel tree (no Makefile there)"
	elif [[ ! -f $kdir/include/generated/utsrelease.h ]]; then
		need "linux-headers-<release>" \
			"KDIR=$kdir is not configured and prepared (no include/generated/utsrelease.h)"
	fi
	command -v gcc >/dev/null || need gcc "no C compiler (gcc)"
}

check_tools() {
	command -v "${CC:-cc}" >/dev/null || need gcc "no C compiler (${CC:-cc})"
	if ! command -v pkg-config >/dev/null; then
		need pkg-config "pkg-config is missing (rdsctl finds libnl with it)"
		need libnl-genl-3-dev "rdsctl needs libnl-genl-3 (<netlink/genl/ctrl.h>)"
	elif ! pkg-config --exists libnl-genl-3.0; then
		need libnl-genl-3-dev "rdsctl needs libnl-genl-3 (<netlink/genl/ctrl.h>); pkg-config does not know libnl-genl-3.0"
	fi
}

case ${1-} in
module) check_module "${2-}" ;;
tools) check_tools ;;
*)
	echo "usage: ${0##*/} module KDIR | tools" >&2
	exit 2
	;;
esac

[[ ${#missing[@]} -eq 0 ]] && exit 0

{
	echo "rds_doca: cannot build, something is missing:"
	for i in "${!missing[@]}"; do
		echo "  - ${why[$i]}"
	done
	echo "Install it with:"
	echo "  sudo apt-get install $(printf "%s\n" "${missing[@]}" | sort -u | paste -sd " ")"
	echo "or install everything the build and the tests need with:"
	echo "  sudo $top/scripts/install-deps.sh"
} >&2
exit 1
