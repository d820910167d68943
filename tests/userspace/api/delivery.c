// SPDX-License-Identifier: GPL-2.0
/*
 * Delivery after the sender closes: every message a closed socket sent
 * still arrives, in order.
 */
#include "api.h"

#define DLV_ROUNDS 10
#define DLV_MSGS 50

void test_delivery_close(void)
{
	union rds_sa to;
	uint32_t next[DLV_ROUNDS] = { 0 };
	char buf[2048];
	int b, r, i, sent = 0, got = 0, bad = 0;

	b = bound_socket_cfg(true, 0, "setup");
	if (b < 0)
		return;
	set_int(b, SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20);
	to = sock_addr(b);
	for (r = 0; r < DLV_ROUNDS; r++) {
		union rds_sa src = cfg_sa(false, 0);
		int a;

		/* on IPv4 loopback, a new source address each round */
		if (cfg_loopback() && !cfg.v6)
			src.sin.sin_addr.s_addr =
				htonl(ntohl(inet_addr("127.0.0.0")) + 10 + r);
		a = bound_socket_sa(&src, "setup: sender");
		if (a < 0)
			break;
		for (i = 0; i < DLV_MSGS; i++) {
			size_t len = 8 + (i * 37) % 1500;

			memcpy(buf, &r, 4);
			memcpy(buf + 4, &i, 4);
			pattern_fill(buf + 8, len - 8, r * 1000 + i);
			if (send_to(a, &to, buf, len, 0) == (ssize_t)len)
				sent++;
		}
		close(a);
	}
	is_eq(sent, DLV_ROUNDS * DLV_MSGS, "all sends succeeded");
	for (;;) {
		ssize_t n = recv_wait(b, buf, sizeof(buf), NULL, NULL, 0,
				      got == sent ? QUIET_MS : ARRIVE_MS);
		int rr, ii;

		if (n < 0)
			break;
		got++;
		if (n < 8) {
			bad++;
			continue;
		}
		memcpy(&rr, buf, 4);
		memcpy(&ii, buf + 4, 4);
		if (rr < 0 || rr >= DLV_ROUNDS || (uint32_t)ii != next[rr] ||
		    n != 8 + (ii * 37) % 1500 ||
		    pattern_check(buf + 8, n - 8, rr * 1000 + ii) != -1)
			bad++;
		else
			next[rr]++;
	}
	is_eq(got, sent,
	      "every message arrives although its sender closed at once");
	is_eq(bad, 0, "in order and intact");
	close(b);
}
