#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run inside a VM: Dave Jones's trinity against rds_doca's socket calls.
# The module is loaded in drop-in mode (family 21), so trinity's own
# knowledge of RDS (its addresses, SOL_RDS options) applies; trinity runs
# as nobody, restricted to the RDS domain and to the socket system calls.
# Kernel reports fail the run through the VM harness.  Prints TAP and a
# closing "N passed, N failed" line.
#
#   tests/fuzz/trinity.sh --ko PATH [--calls N] [--seed N] [--children N]
#
# A run is reproduced by its seed, printed first, with the same calls and
# children.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/userspace/tap.sh
. tests/userspace/tap.sh

ko=
calls=20000
seed=$(( (RANDOM << 15) | RANDOM ))
children=2
while [ $# -gt 0 ]; do
	case $1 in
	--ko) ko=$2; shift 2 ;;
	--calls) calls=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--children) children=$2; shift 2 ;;
	*) echo "usage: ${0##*/} --ko PATH [--calls N] [--seed N] [--children N]" >&2
	   exit 2 ;;
	esac
done
[ -n "$ko" ] || { echo "${0##*/}: --ko is required" >&2; exit 2; }

# The socket calls an RDS program makes, and those that reach any socket.
SYSCALLS=(socket socketpair bind connect listen accept accept4 getsockname
	  getpeername sendmsg sendmmsg sendto recvmsg recvmmsg recvfrom
	  setsockopt getsockopt shutdown poll ppoll select pselect6 epoll_ctl
	  ioctl fcntl dup dup2 dup3 read write readv writev splice)

diag "trinity: seed $seed, $calls calls, $children children, family 21 (drop-in)"
check "$(status modprobe -q rdma_cm)" "trinity: rdma_cm loaded"
out=$(insmod "$ko" family=21 2>&1)
check $? "trinity: insmod rds_doca family=21" "$out" || { tap_finish; exit; }

work=$(mktemp -d)
chmod 0777 "$work"
args=(-q -l off -N "$calls" -s "$seed" -C "$children" -P RDS
      --enable-fds=sockets)
for c in "${SYSCALLS[@]}"; do
	args+=(-c "$c")
done
t0=$SECONDS
# about 60 calls a second under KASAN and TCG, and room to spare
out=$(cd "$work" && timeout -k 10 $((calls / 20 + 600)) setpriv --reuid=65534 \
	--regid=65534 --clear-groups -- trinity "${args[@]}" 2>&1)
rc=$?
diag "trinity: $((SECONDS - t0)) s"
grep -E 'Ran [0-9]+ syscalls|Bailing|taint|exit_reason|BUG|WARN' <<<"$out" |
	tail -n 20 | sed 's/^/# /'
check "$rc" "trinity: $calls calls as nobody, seed $seed, exit status 0" \
	"exit status $rc"
done_calls=$(grep -o 'Ran [0-9]* syscalls' <<<"$out" | tail -n 1 | tr -dc 0-9)
check "$([ "${done_calls:-0}" -ge "$calls" ]; echo $?)" \
	"trinity: ran the $calls calls (${done_calls:-none})"
rm -rf "$work"

# everything trinity's sockets held is given back
out=$(rmmod rds_doca 2>&1)
check $? "trinity: rmmod rds_doca afterwards" "$out"
tap_finish
