// SPDX-License-Identifier: GPL-2.0
/*
 * close() with messages queued: none of them reach the port's next
 * owner.
 */
#include "api.h"

void test_close_pending(void)
{
	union rds_sa to;
	uint16_t port;
	int a, b, i, sent = 0;
	char buf[64];

	if (!make_pair(&a, &b))
		return;
	port = bound_port(b);
	to = sock_addr(b);
	pattern_fill(buf, sizeof(buf), 9);
	for (i = 0; i < 20; i++)
		if (send_to(a, &to, buf, sizeof(buf), 0) == sizeof(buf))
			sent++;
	is_eq(sent, 20, "20 messages sent");
	/* wait until they are queued on B */
	recv_wait(b, buf, sizeof(buf), NULL, NULL, MSG_PEEK, ARRIVE_MS);
	sleep_ms(50);
	is_ok(close(b), "close with 20 messages queued");

	b = bound_socket_cfg(true, port, "the port can be bound again");
	if (b < 0) {
		close(a);
		return;
	}
	quiet(b, "the new socket inherits none of the old messages");
	marker(a, b, "and receives new ones");
	close(b);

	/* close with messages queued while a sender keeps sending */
	b = bound_socket_cfg(true, 0, "setup");
	to = sock_addr(b);
	for (i = 0; i < 50; i++)
		send_to(a, &to, buf, sizeof(buf), MSG_DONTWAIT);
	close(b);
	for (i = 0; i < 50; i++)
		send_to(a, &to, buf, sizeof(buf), MSG_DONTWAIT);
	b = bound_socket_cfg(true, 0, "sockets still work afterwards");
	if (b >= 0) {
		marker(a, b, "messaging still works afterwards");
		close(b);
	}
	close(a);
}
