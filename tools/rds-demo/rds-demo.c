// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds-demo: two sockets exchange a few messages and say what happened.
 *
 * Shows the life of an rds_doca datagram: bind two sockets on the loopback
 * address, send a request from one to the other, answer it, then show the
 * boundaries of messages of several sizes and what a receiver sees when
 * its buffer is too small.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/rds_doca.h>

static int read_family(void)
{
	FILE *f = fopen("/sys/module/rds_doca/parameters/family", "r");
	int family = AF_INET_OFFLOAD;

	if (f) {
		if (fscanf(f, "%d", &family) != 1)
			family = AF_INET_OFFLOAD;
		fclose(f);
	}
	return family;
}

static const char *name(const struct sockaddr_in *sin)
{
	static char buf[2][32];
	static int i;

	i ^= 1;
	snprintf(buf[i], sizeof(buf[i]), "%s:%u", inet_ntoa(sin->sin_addr),
		 ntohs(sin->sin_port));
	return buf[i];
}

static int open_bound(int family, struct sockaddr_in *sin)
{
	socklen_t len = sizeof(*sin);
	int fd;

	fd = socket(family, SOCK_SEQPACKET, 0);
	if (fd < 0) {
		fprintf(stderr, "socket(%d, SOCK_SEQPACKET): %s\n", family,
			strerror(errno));
		exit(1);
	}
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)sin, sizeof(*sin)) ||
	    getsockname(fd, (struct sockaddr *)sin, &len)) {
		fprintf(stderr, "bind: %s\n", strerror(errno));
		exit(1);
	}
	return fd;
}

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "rds-demo: %s failed: %s\n", what,
			strerror(errno));
		exit(1);
	}
}

int main(void)
{
	static const size_t sizes[] = { 0, 64, 4096, 65536, 1 << 20 };
	size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
	struct sockaddr_in a, b, from;
	int family = read_family();
	socklen_t fromlen, optlen;
	static char buf[1 << 20];
	int fa, fb, bufsize = 4 << 20;
	ssize_t n;
	size_t i;

	printf("rds_doca demo: address family %d\n", family);
	fa = open_bound(family, &a);
	fb = open_bound(family, &b);
	printf("socket A bound to %s, socket B bound to %s\n", name(&a),
	       name(&b));

	n = sendto(fa, "ping", 4, 0, (struct sockaddr *)&b, sizeof(b));
	check(n == 4, "send ping");
	printf("A -> B: sent \"ping\" (%zd bytes)\n", n);

	fromlen = sizeof(from);
	n = recvfrom(fb, buf, sizeof(buf), 0, (struct sockaddr *)&from,
		     &fromlen);
	check(n == 4, "receive ping");
	printf("B: received \"%.*s\" from %s\n", (int)n, buf, name(&from));

	n = sendto(fb, "pong", 4, 0, (struct sockaddr *)&from, fromlen);
	check(n == 4, "send pong");
	fromlen = sizeof(from);
	n = recvfrom(fa, buf, sizeof(buf), 0, (struct sockaddr *)&from,
		     &fromlen);
	check(n == 4, "receive pong");
	printf("A: received \"%.*s\" from %s\n", (int)n, buf, name(&from));

	/*
	 * Half of SO_SNDBUF is usable; a 1 MiB message needs more than the
	 * default limit (net.core.wmem_max), which root may exceed.
	 */
	if (setsockopt(fa, SOL_SOCKET, SO_SNDBUFFORCE, &bufsize, sizeof(bufsize)))
		check(!setsockopt(fa, SOL_SOCKET, SO_SNDBUF, &bufsize,
				  sizeof(bufsize)), "SO_SNDBUF");
	if (setsockopt(fb, SOL_SOCKET, SO_RCVBUFFORCE, &bufsize, sizeof(bufsize)))
		check(!setsockopt(fb, SOL_SOCKET, SO_RCVBUF, &bufsize,
				  sizeof(bufsize)), "SO_RCVBUF");
	optlen = sizeof(bufsize);
	check(!getsockopt(fa, SOL_SOCKET, SO_SNDBUF, &bufsize, &optlen),
	      "SO_SNDBUF");
	if ((size_t)bufsize / 2 < sizes[nsizes - 1]) {
		nsizes--;
		printf("(send buffer %d bytes: the 1 MiB message needs root)\n",
		       bufsize);
	}
	for (i = 0; i < nsizes; i++) {
		memset(buf, 'a' + (int)i, sizes[i]);
		n = sendto(fa, buf, sizes[i], 0, (struct sockaddr *)&b,
			   sizeof(b));
		check(n == (ssize_t)sizes[i], "send");
	}
	printf("A -> B: sent %zu messages of 0 to %zu bytes\n", i,
	       sizes[nsizes - 1]);
	for (i = 0; i < nsizes; i++) {
		n = recv(fb, buf, sizeof(buf), 0);
		check(n == (ssize_t)sizes[i], "receive");
		check(!n || (buf[0] == 'a' + (int)i && buf[n - 1] == buf[0]),
		      "payload check");
		printf("B: received a whole message of %zd bytes\n", n);
	}

	n = sendto(fa, "a message longer than the buffer", 32, 0,
		   (struct sockaddr *)&b, sizeof(b));
	check(n == 32, "send");
	{
		struct iovec iov = { .iov_base = buf, .iov_len = 9 };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

		n = recvmsg(fb, &mh, 0);
		check(n == 9, "short receive");
		printf("B: read %zd of 32 bytes into a 9-byte buffer (\"%.9s\"), MSG_TRUNC %s; the rest is discarded\n",
		       n, buf, mh.msg_flags & MSG_TRUNC ? "set" : "not set");
	}

	close(fa);
	close(fb);
	printf("done\n");
	return 0;
}
