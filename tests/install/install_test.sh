#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# "make install" and "make uninstall" in a disposable machine (a VM: its
# root is an overlay, so whatever is installed goes with it).  Installs the
# already built module for the running kernel, loads it with modprobe,
# checks what was installed (module, <linux/rds_doca.h>, rdsctl, man
# pages, completion, the commented modprobe.d file naming every module
# parameter, the modules-load.d example left disabled), runs the demo's
# loopback part, rdsctl and a program built against the installed header,
# unloads, uninstalls and checks that nothing is left behind, and that
# nothing was written anywhere else.
#
# By default (make check) into DESTDIR, a staging root: modprobe -d loads
# the module from there once depmod -b has indexed it.  --root installs as
# an administrator does, into / (modprobe then finds the module through
# the system's depmod, which takes about a minute per run under TCG).
# --dkms does the same through "make dkms-install" and "make dkms-remove":
# DKMS builds the module for the running kernel (minutes under TCG).
#
# usage: tests/install/install_test.sh --ko PATH [--root | --dkms]
#   --ko PATH  rds_doca.ko built for the running kernel
# Output is TAP, closed by "N passed, N failed".

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
# shellcheck source=tests/userspace/tap.sh
. "$TOP/tests/userspace/tap.sh"

KO=
MODE=destdir
while [[ $# -gt 0 ]]; do
	case $1 in
	--ko) KO=$(realpath "${2?--ko needs a path}"); shift ;;
	--root) MODE=root ;;
	--dkms) MODE=dkms ;;
	*) echo "usage: ${0##*/} --ko PATH [--root | --dkms]" >&2; exit 2 ;;
	esac
	shift
done

REL=$(uname -r)
PREFIX=/usr/local
DEST=
if [[ $MODE == destdir ]]; then
	DEST=$(mktemp -d /tmp/rds_doca-destdir.XXXXXX)
	PREFIX=/usr
fi
MODROOT=/lib/modules/$REL
# Where an install may leave files: compared before and after.
WATCH=("$MODROOT" /usr/local /etc/modprobe.d /etc/modules-load.d
       /var/lib/dkms)
MAKEARGS=(-s -C "$TOP" KVER="$REL" PREFIX="$PREFIX" DESTDIR="$DEST")
MODPROBE=(modprobe)
[[ -n $DEST ]] && MODPROBE=(modprobe -d "$DEST" -C "$DEST/etc/modprobe.d")
MPNAME=modprobe${DEST:+ -d DESTDIR}

snapshot() {
	local d

	for d in "${WATCH[@]}"; do
		# not the kernel's own modules: thousands of files over 9p
		# nor the signing key DKMS makes for itself on first use
		[[ -e $d ]] && find "$d" -path "$MODROOT/kernel" -prune -o \
			\( -type f -o -type l \) ! -name 'modules.*' \
			! -path '/var/lib/dkms/mok.*' -print
	done | sort
	# the sources DKMS is given (not the kernel headers beside them)
	find /usr/src -maxdepth 1 -print | sort
}

loaded() { [[ -d /sys/module/$1 ]]; }

if loaded rds_doca && ! rmmod rds_doca; then
	check 1 "install: rds_doca not loaded before the test"
	tap_finish
	exit 1
fi
before=$(mktemp)
after=$(mktemp)
snapshot >"$before"

if [[ $MODE == dkms ]]; then
	out=$(make "${MAKEARGS[@]}" dkms-install 2>&1)
	check $? "install: make dkms-install" "$out"
	diag "$out"
	path=$(modinfo -n rds_doca 2>&1)
	check "$(status grep -q "^/lib/modules/$REL/updates/dkms/rds_doca.ko" \
		<<<"$path")" "install: DKMS put rds_doca in updates/dkms" "$path"
else
	[[ -f $KO ]]
	check $? "install: module $KO exists" || { tap_finish; exit 1; }
	out=$(make "${MAKEARGS[@]}" install KO="$KO" 2>&1)
	check $? "install: make install${DEST:+ DESTDIR=... PREFIX=$PREFIX}" "$out"
	if [[ -n $DEST ]]; then
		out=$(depmod -b "$DEST" "$REL" 2>&1)
		check $? "install: depmod -b DESTDIR, as a package would" "$out"
	fi
	path=$(modinfo -b "${DEST:-/}" -k "$REL" -n rds_doca 2>&1)
	check "$(status test "$path" = "$DEST$MODROOT/updates/rds_doca.ko")" \
		"install: depmod found rds_doca in updates/" "$path"
	for f in include/linux/rds_doca.h sbin/rdsctl share/man/man7/rds_doca.7 \
		 share/man/man8/rdsctl.8 share/bash-completion/completions/rdsctl \
		 share/doc/rds_doca/modules-load.d/rds_doca.conf; do
		check "$(status test -f "$DEST$PREFIX/$f")" "install: $PREFIX/$f"
	done
	conf=$DEST/etc/modprobe.d/rds_doca.conf
	cname=/etc/modprobe.d/rds_doca.conf
	check "$(status grep -q '^#options rds_doca family=' "$conf")" \
		"install: $cname documents the family"
	check "$(status test -z "$(grep -vE '^(#.*)?$' "$conf")")" \
		"install: $cname changes no default (comments only)" \
		"$(grep -vE '^(#.*)?$' "$conf")"
	# the parameters named there are the module's, all of them
	named=$(grep -E '^#options rds_doca ' "$conf" | grep -oE '[a-z_]+=' |
		tr -d = | sort)
	params=$(modinfo -p "$KO" | cut -d: -f1 | sort)
	out=$(diff <(echo "$named") <(echo "$params"))
	check $? "install: $cname names every module parameter, and only those" \
		"$out"
	check "$(status test ! -e "$DEST/etc/modules-load.d/rds_doca.conf")" \
		"install: no modules-load.d entry: the module does not load at boot"
fi

# modprobe -d finds no dependency outside DESTDIR: rdma_cm first
modprobe rdma_cm
out=$("${MODPROBE[@]}" rds_doca 2>&1)
if check $? "install: $MPNAME rds_doca" "$out"; then
	check "$(status test "$(cat /sys/module/rds_doca/parameters/family)" = 25)" \
		"install: family 25"
	ctl=$DEST$PREFIX/sbin/rdsctl
	[[ $MODE == dkms ]] && ctl=$TOP/tools/rdsctl/rdsctl
	out=$("$ctl" info 2>&1)
	check $? "install: rdsctl info" "$out"
	diag "rdsctl info:" "$out"
	out=$("$TOP/tools/rds-demo/rds-demo" 2>&1)
	check $? "install: the demo over loopback" "$out"
	if [[ $MODE != dkms ]]; then
		# a program built against the installed header only
		prog=$(mktemp -d)/hello
		out=$(gcc -Wall -Werror -I"$DEST$PREFIX/include" -o "$prog" \
			-x c - 2>&1 <<'EOF'
#include <arpa/inet.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/rds_doca.h>

int main(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	char buf[16] = "";
	rds_tos_t tos = 3;
	int fd = socket(AF_INET_OFFLOAD, SOCK_SEQPACKET, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)))
		return 1;
	socklen_t l = sizeof(a);
	if (getsockname(fd, (struct sockaddr *)&a, &l) ||
	    ioctl(fd, SIOCRDSGETTOS, &tos) || tos)
		return 2;
	if (sendto(fd, "installed", 10, 0, (struct sockaddr *)&a,
		   sizeof(a)) != 10 || recv(fd, buf, sizeof(buf), 0) != 10)
		return 3;
	return strcmp(buf, "installed") ? 4 : 0;
}
EOF
)
		if check $? "install: a program builds against <linux/rds_doca.h>" "$out"; then
			out=$("$prog" 2>&1)
			check $? "install: ... and exchanges a message" "$out (status $?)"
		fi
		rm -rf "$(dirname "$prog")"
	fi
	out=$("${MODPROBE[@]}" -r rds_doca 2>&1)
	check $? "install: $MPNAME -r rds_doca" "$out"
fi

# a family someone else holds (AF_INET): the load fails with EEXIST and
# a line in the kernel log, and leaves nothing loaded
if ! loaded rds_doca; then
	tag="rds_doca-install-$$-$RANDOM"
	echo "$tag" >/dev/kmsg
	# insmod: modprobe takes EEXIST for "already loaded"; and insmod
	# loads no dependency (modprobe -r may have unloaded rdma_cm)
	modprobe rdma_cm
	out=$(insmod "$path" family=2 2>&1)
	klog=$(dmesg | sed -n "/$tag/,\$p" | grep 'rds_doca:')
	check "$(status grep -q 'File exists' <<<"$out")" \
		"install: insmod of the installed module, family=2 (AF_INET's) -> EEXIST" "$out"
	out=$("${MODPROBE[@]}" rds_doca family=2 2>&1)
	diag "install: $MPNAME rds_doca family=2: status $?${out:+, $out}"
	loaded rds_doca && rmmod rds_doca
	check "$(status grep -q 'address family 2 is already registered' <<<"$klog")" \
		"install: ... the kernel log says why" "${klog:-nothing in dmesg}"
	check "$(status eval '! loaded rds_doca')" "install: ... and rds_doca is not loaded"
fi

if [[ $MODE == dkms ]]; then
	out=$(make "${MAKEARGS[@]}" dkms-remove 2>&1)
	check $? "install: make dkms-remove" "$out"
	diag "$out"
else
	out=$(make "${MAKEARGS[@]}" uninstall 2>&1)
	check $? "install: make uninstall" "$out"
fi
if [[ -n $DEST ]]; then
	depmod -b "$DEST" "$REL" 2>/dev/null
	# what is left: depmod's index, and directories
	out=$(find "$DEST" -type f ! -path "$DEST$MODROOT/modules.*" -o -type l)
	check "$(status test -z "$out")" "install: nothing left in DESTDIR" "$out"
fi
out=$(modinfo -b "${DEST:-/}" -k "$REL" -n rds_doca 2>&1)
check "$(status test $? != 0)" "install: modprobe no longer finds rds_doca" "$out"
snapshot >"$after"
out=$(diff "$before" "$after")
check $? "install: nothing left behind${DEST:+, and nothing written outside DESTDIR}" "$out"
rm -f "$before" "$after"
[[ -n $DEST ]] && rm -rf "$DEST"
diag "install: $SECONDS s"
tap_finish
