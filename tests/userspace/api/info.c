// SPDX-License-Identifier: GPL-2.0
/*
 * The RDS_INFO_* getsockopts: the length protocol, and what each
 * snapshot lists of two sockets, their connection and a waiting message.
 * Between IPv4 addresses both forms list them (RDS6_INFO_* with mapped
 * addresses); between IPv6 ones (--ipv6) only the RDS6_INFO_* forms do.
 */
#include "api.h"

/* A and B, and what the snapshots must show of them. */
struct info_ctx {
	int a, b;
	union rds_sa sa, sb;
	ino_t ino_a, ino_b;
	int sndbuf, rcvbuf;	/* A's */
	bool ib;		/* --transport ib */
};

/* How many of a snapshot's entries a check wants to match. */
enum info_count {
	INFO_SOME,	/* at least one */
	INFO_EVERY,	/* all of them, and there is one */
	INFO_ONE,	/* exactly one */
	INFO_NONE,
};

/* Over which transport a check is made. */
enum info_on {
	INFO_ALWAYS,
	INFO_IB,	/* --transport ib only */
	INFO_NOT_IB,	/* any other only */
};

/* A check of a snapshot, named @name; no @name: none. */
struct info_check {
	const char *name;
	/* whether entry @e matches; NULL: every entry does */
	bool (*match)(const void *e, const struct info_ctx *c);
	enum info_count count;
	enum info_on on;
	int family;	/* made between addresses of this family; 0: both */
};

#define INFO_CHECKS 3

/* An RDS_INFO_* option, its entry, and the checks of its snapshot. */
struct info_probe {
	int opt;
	const char *name;
	size_t size;		/* of an entry: what getsockopt() returns */
	bool ib;		/* the IB transport's: asked of rds_doca only */
	bool on_b;		/* asked on B's socket, else on A's */
	int tries;		/* snapshots until the checks pass (0: one) */
	/* print entry @i of a snapshot that failed a check */
	void (*dump)(const void *e, size_t i);
	struct info_check check[INFO_CHECKS];
};

/* The option @o, by number and by name, whose entries are @entry. */
#define INFO_OPT(o, entry) .opt = o, .name = #o, .size = sizeof(entry)

/* @a is the IPv4 address of @s. */
static bool addr4_is(in_addr_t a, const union rds_sa *s)
{
	return s->sa.sa_family == AF_INET && a == s->sin.sin_addr.s_addr;
}

/* @a is the address of @s as RDS6_INFO_* give it: IPv4 ones mapped. */
static bool addr6_is(struct in6_addr a, const union rds_sa *s)
{
	if (s->sa.sa_family == AF_INET6)
		return !memcmp(&a, &s->sin6.sin6_addr, sizeof(a));
	return IN6_IS_ADDR_V4MAPPED(&a) &&
	       a.s6_addr32[3] == s->sin.sin_addr.s_addr;
}

/* The port of @s in network order. */
static uint16_t port_of(const union rds_sa *s)
{
	return htons(sa_port(s));
}

static bool counter_named(const void *e, const struct info_ctx *c)
{
	const struct rds_info_counter *k = e;

	(void)c;
	return k->name[0] && memchr(k->name, 0, sizeof(k->name));
}

/* received: "local" is the receiving socket */
static bool msg_a_to_b(const void *e, const struct info_ctx *c)
{
	const struct rds_info_message *m = e;

	return m->len == 4 && addr4_is(m->laddr, &c->sb) &&
	       m->lport == port_of(&c->sb) &&
	       addr4_is(m->faddr, &c->sa) && m->fport == port_of(&c->sa);
}

/* a message to B's port, whatever its addresses */
static bool msg_to_b_port(const void *e, const struct info_ctx *c)
{
	const struct rds_info_message *m = e;

	return m->lport == port_of(&c->sb);
}

static void msg_dump(const void *e, size_t i)
{
	const struct rds_info_message *m = e;

	tap_diag("entry %zu: len %u, local %08x:%u, peer %08x:%u",
		 i, m->len, ntohl(m->laddr), ntohs(m->lport),
		 ntohl(m->faddr), ntohs(m->fport));
}

static bool sock_is_a(const void *e, const struct info_ctx *c)
{
	const struct rds_info_socket *s = e;

	return s->inum == c->ino_a && s->bound_port == port_of(&c->sa) &&
	       addr4_is(s->bound_addr, &c->sa) &&
	       (int)s->sndbuf == c->sndbuf / 2 &&
	       (int)s->rcvbuf == c->rcvbuf / 2;
}

static bool sock_is_b(const void *e, const struct info_ctx *c)
{
	const struct rds_info_socket *s = e;

	return s->inum == c->ino_b && s->bound_port == port_of(&c->sb);
}

static bool sock_is_a_or_b(const void *e, const struct info_ctx *c)
{
	const struct rds_info_socket *s = e;

	return s->inum == c->ino_a || s->inum == c->ino_b;
}

static bool conn_a_to_b(const void *e, const struct info_ctx *c)
{
	const struct rds_info_connection *k = e;

	return addr4_is(k->laddr, &c->sa) &&
	       addr4_is(k->faddr, &c->sb) && k->next_tx_seq > 0 &&
	       k->transport[0] &&
	       memchr(k->transport, 0, sizeof(k->transport));
}

static bool sock6_is_a(const void *e, const struct info_ctx *c)
{
	const struct rds6_info_socket *s = e;

	return s->inum == c->ino_a && s->bound_port == port_of(&c->sa) &&
	       addr6_is(s->bound_addr, &c->sa);
}

static bool conn6_a_to_b(const void *e, const struct info_ctx *c)
{
	const struct rds6_info_connection *k = e;

	return addr6_is(k->laddr, &c->sa) && addr6_is(k->faddr, &c->sb) &&
	       k->next_tx_seq > 0 &&
	       memchr(k->transport, 0, sizeof(k->transport));
}

static bool msg6_a_to_b(const void *e, const struct info_ctx *c)
{
	const struct rds6_info_message *m = e;

	return m->len == 4 && m->lport == port_of(&c->sb) &&
	       addr6_is(m->laddr, &c->sb) && addr6_is(m->faddr, &c->sa) &&
	       m->fport == port_of(&c->sa);
}

static const uint8_t zero_gid[RDS_IB_GID_LEN];

static bool ib_conn_a_to_b(const void *e, const struct info_ctx *c)
{
	const struct rds_info_rdma_connection *k = e;

	return addr4_is(k->src_addr, &c->sa) &&
	       addr4_is(k->dst_addr, &c->sb) &&
	       memcmp(k->src_gid, zero_gid, sizeof(zero_gid)) &&
	       memcmp(k->dst_gid, zero_gid, sizeof(zero_gid)) &&
	       k->max_send_wr > 0 && k->max_recv_wr > 0 &&
	       k->max_send_sge > 0 && k->rdma_mr_size > 0 &&
	       !k->cache_allocs && !k->tos;	/* other lanes may be up */
}

static bool ib6_conn_a_to_b(const void *e, const struct info_ctx *c)
{
	const struct rds6_info_rdma_connection *k = e;

	return addr6_is(k->src_addr, &c->sa) &&
	       addr6_is(k->dst_addr, &c->sb) &&
	       memcmp(k->src_gid, zero_gid, sizeof(zero_gid)) &&
	       k->max_send_wr > 0 && !k->tos;
}

/* Taken before A sends anything. */
static const struct info_probe info_counters = {
	INFO_OPT(RDS_INFO_COUNTERS, struct rds_info_counter),
	.check = {
		{ "every counter has a NUL-terminated name", counter_named,
		  INFO_EVERY },
	},
};

/* Taken while A's message waits at B, in this order. */
static const struct info_probe info_probes[] = {
	{ INFO_OPT(RDS_INFO_RECV_MESSAGES, struct rds_info_message),
	  .on_b = true,
	  /*
	   * net/rds has been seen, rarely, to leave a message it reports
	   * readable out of one snapshot: look up to five times, 50 ms
	   * apart.
	   */
	  .tries = 5,
	  .dump = msg_dump,
	  .check = {
		{ "the waiting message is listed, from A to B", msg_a_to_b,
		  .family = 4 },
		{ "RDS_INFO_RECV_MESSAGES does not list an IPv6 message",
		  msg_to_b_port, INFO_NONE, .family = 6 },
	  } },
	{ INFO_OPT(RDS_INFO_SOCKETS, struct rds_info_socket),
	  .check = {
		{ "socket A is listed: inode, address, port, buffers",
		  sock_is_a, .family = 4 },
		{ "socket B is listed", sock_is_b, .family = 4 },
		{ "RDS_INFO_SOCKETS lists neither IPv6 socket", sock_is_a_or_b,
		  INFO_NONE, .family = 6 },
	  } },
	{ INFO_OPT(RDS_INFO_CONNECTIONS, struct rds_info_connection),
	  .check = {
		{ "the connection from A to B is listed, with its transport",
		  conn_a_to_b, .family = 4 },
	  } },
	{ INFO_OPT(RDS_INFO_SEND_MESSAGES, struct rds_info_message) },
	{ INFO_OPT(RDS_INFO_RETRANS_MESSAGES, struct rds_info_message) },
	/*
	 * The RDS6_INFO_* forms list IPv4 objects too, with mapped addresses:
	 * A's socket, its connection to B and the message waiting at B.
	 */
	{ INFO_OPT(RDS6_INFO_SOCKETS, struct rds6_info_socket),
	  .check = {
		{ "RDS6_INFO_SOCKETS lists A with its IPv4-mapped address",
		  sock6_is_a, .family = 4 },
		{ "RDS6_INFO_SOCKETS lists A with its IPv6 address",
		  sock6_is_a, .family = 6 },
	  } },
	{ INFO_OPT(RDS6_INFO_CONNECTIONS, struct rds6_info_connection),
	  .check = {
		{ "RDS6_INFO_CONNECTIONS lists A -> B, mapped", conn6_a_to_b,
		  .family = 4 },
		{ "RDS6_INFO_CONNECTIONS lists A -> B", conn6_a_to_b,
		  .family = 6 },
	  } },
	{ INFO_OPT(RDS6_INFO_SEND_MESSAGES, struct rds6_info_message) },
	{ INFO_OPT(RDS6_INFO_RETRANS_MESSAGES, struct rds6_info_message) },
	{ INFO_OPT(RDS6_INFO_RECV_MESSAGES, struct rds6_info_message),
	  .check = {
		{ "RDS6_INFO_RECV_MESSAGES lists the waiting message, mapped",
		  msg6_a_to_b, .family = 4 },
		{ "RDS6_INFO_RECV_MESSAGES lists the waiting message",
		  msg6_a_to_b, .family = 6 },
	  } },
	/*
	 * RDS_INFO_IB_CONNECTIONS lists the IB connection A -> B with its
	 * GIDs and queue pair sizes over IB, and nothing over loopback.
	 */
	{ INFO_OPT(RDS_INFO_IB_CONNECTIONS, struct rds_info_rdma_connection),
	  .ib = true,
	  .check = {
		{ "RDS_INFO_IB_CONNECTIONS lists A -> B: GIDs, queue sizes",
		  ib_conn_a_to_b, INFO_ONE, INFO_IB, 4 },
		{ "RDS_INFO_IB_CONNECTIONS lists no loopback connection",
		  NULL, INFO_NONE, INFO_NOT_IB },
	  } },
	{ INFO_OPT(RDS6_INFO_IB_CONNECTIONS, struct rds6_info_rdma_connection),
	  .ib = true,
	  .check = {
		{ "RDS6_INFO_IB_CONNECTIONS agrees, with mapped addresses",
		  ib6_conn_a_to_b, INFO_ONE, INFO_IB, 4 },
		{ "RDS6_INFO_IB_CONNECTIONS agrees, with mapped addresses",
		  ib6_conn_a_to_b, INFO_NONE, INFO_NOT_IB, 4 },
		{ "RDS6_INFO_IB_CONNECTIONS lists A -> B: GIDs, queue sizes",
		  ib6_conn_a_to_b, INFO_ONE, INFO_IB, 6 },
	  } },
};

/* Whether check @k is made here, over the transport of @c. */
static bool info_check_made(const struct info_check *k,
			    const struct info_ctx *c)
{
	return k->name && (!k->family || k->family == (cfg.v6 ? 6 : 4)) &&
	       (k->on == INFO_ALWAYS || (k->on == INFO_IB) == c->ib);
}

/* Whether @hits matching entries of @n are what @k wants. */
static bool info_count_ok(const struct info_check *k, size_t n, size_t hits)
{
	switch (k->count) {
	case INFO_SOME:
		return hits > 0;
	case INFO_EVERY:
		return n > 0 && hits == n;
	case INFO_ONE:
		return hits == 1;
	case INFO_NONE:
		return hits == 0;
	}
	return false;
}

/*
 * Take @p's snapshot the way rds-info does (up to p->tries times, until
 * its checks pass), check the entry size getsockopt() returns, then make
 * each of its checks.
 */
static void info_probe(const struct info_probe *p, const struct info_ctx *c)
{
	size_t hits[INFO_CHECKS], n = 0, i, k;
	char fa[64], fb[64];
	const struct info_check *ck;
	bool pass = false;
	void *buf = NULL;
	socklen_t len;
	int r = 0, tries;

	for (tries = 0; !pass && tries < (p->tries ? p->tries : 1); tries++) {
		if (tries) {
			free(buf);
			usleep(50000);
		}
		r = info_get(p->on_b ? c->b : c->a, p->opt, &buf, &len);
		n = r > 0 ? len / r : 0;
		pass = true;
		for (k = 0; k < INFO_CHECKS; k++) {
			ck = &p->check[k];
			hits[k] = 0;
			for (i = 0; i < n; i++)
				if (!ck->match ||
				    ck->match((char *)buf + i * p->size, c))
					hits[k]++;
			if (info_check_made(ck, c) &&
			    !info_count_ok(ck, n, hits[k]))
				pass = false;
		}
	}
	is_eq(r, (int)p->size, "%s returns the entry size", p->name);
	if (tries > 1)
		tap_diag("the message was listed after %d snapshots", tries);
	for (k = 0; k < INFO_CHECKS; k++) {
		ck = &p->check[k];
		if (!info_check_made(ck, c))
			continue;
		if (ok_diag(info_count_ok(ck, n, hits[k]), ck->name,
			    "%zu entries, %zu match", n, hits[k]) || !p->dump)
			continue;
		for (i = 0; i < n; i++)
			p->dump((char *)buf + i * p->size, i);
		tap_diag("A %s, B %s", sa_fmt(&c->sa, fa, sizeof(fa)),
			 sa_fmt(&c->sb, fb, sizeof(fb)));
	}
	free(buf);
}

/* Bind A and B, and note what the snapshots must show of them. */
static bool info_setup(struct info_ctx *c)
{
	struct stat st;

	memset(c, 0, sizeof(*c));
	if (!make_pair(&c->a, &c->b))
		return false;
	c->sa = sock_addr(c->a);
	c->sb = sock_addr(c->b);
	if (!fstat(c->a, &st))
		c->ino_a = st.st_ino;
	if (!fstat(c->b, &st))
		c->ino_b = st.st_ino;
	get_int(c->a, SOL_SOCKET, SO_SNDBUF, &c->sndbuf);
	get_int(c->a, SOL_SOCKET, SO_RCVBUF, &c->rcvbuf);
	c->ib = cfg.transport == RDS_TRANS_IB;
	return true;
}

/* RDS_INFO_* getsockopts: Linux's structures and length protocol. */
void test_info(void)
{
	struct info_ctx c;
	socklen_t len;
	void *buf;
	size_t i;
	int a, r, v;

	if (!info_setup(&c))
		return;
	a = c.a;

	/* counters: probe, too small, negative, then the snapshot */
	len = 0;
	r = getsockopt(a, SOL_RDS, RDS_INFO_COUNTERS, NULL, &len);
	ok_diag(r < 0 && errno == ENOSPC && len > 0 &&
		len % sizeof(struct rds_info_counter) == 0,
		"RDS_INFO_COUNTERS, length 0 -> ENOSPC and the length needed",
		"returned %d (%s), length %u", r, tap_errname(errno), len);
	v = len;
	len = sizeof(struct rds_info_counter);
	buf = calloc(1, len);
	r = getsockopt(a, SOL_RDS, RDS_INFO_COUNTERS, buf, &len);
	ok_diag(r < 0 && errno == ENOSPC && (int)len == v,
		"room for one counter -> ENOSPC and the whole length",
		"returned %d (%s), length %u", r, tap_errname(errno), len);
	free(buf);
	len = -1;
	is_err(getsockopt(a, SOL_RDS, RDS_INFO_COUNTERS, NULL, &len), EINVAL,
	       "negative length -> EINVAL");
	if (!cfg.impl_doca) {
		/* no IB module answers here (run.sh checks none is loaded) */
		len = 0;
		is_err(getsockopt(a, SOL_RDS, RDS_INFO_IB_CONNECTIONS, NULL,
				  &len), ENOPROTOOPT,
		       "RDS_INFO_IB_CONNECTIONS -> ENOPROTOOPT");
	}
	if (cfg.impl_doca) {
		len = 0;
		is_err(getsockopt(a, SOL_RDS, RDS_INFO_IWARP_CONNECTIONS, NULL,
				  &len), ENOPROTOOPT,
		       "RDS_INFO_IWARP_CONNECTIONS (no iWARP transport) -> ENOPROTOOPT");
		/* a probe: the entry size, or ENOSPC with whole entries */
		len = 0;
		r = getsockopt(a, SOL_RDS, RDS_INFO_TCP_SOCKETS, NULL, &len);
		ok_diag(r >= 0 ? r == (int)sizeof(struct rds_info_tcp_socket) &&
				 len == 0 :
				 errno == ENOSPC && len > 0 &&
				 len % sizeof(struct rds_info_tcp_socket) == 0,
			"RDS_INFO_TCP_SOCKETS probe -> entry size or ENOSPC",
			"returned %d (%s), length %u", r, tap_errname(errno),
			len);
		/* net/rds pins the buffer first and answers EAGAIN */
		len = 4096;
		is_err(getsockopt(a, SOL_RDS, RDS_INFO_COUNTERS, (void *)8,
				  &len), EFAULT,
		       "unwritable buffer -> EFAULT");
	}
	info_probe(&info_counters, &c);

	/* a message waiting at B (over IB, once it has arrived) */
	is_eq(send_str(a, c.b, "info"), 4, "send a message to B");
	{
		struct pollfd pfd = { .fd = c.b, .events = POLLIN };

		is_eq(poll(&pfd, 1, ARRIVE_MS), 1, "it arrives at B");
	}
	for (i = 0; i < ARRAY_SIZE(info_probes); i++)
		if (!info_probes[i].ib || cfg.impl_doca)
			info_probe(&info_probes[i], &c);

	recv_expect(c.b, "info", 4, a, "the message is still delivered");
	close(a);
	close(c.b);
}

/*
 * Over IB: once A has sent to B, RDS_INFO_IB_CONNECTIONS and its IPv6
 * form list the connection with its GIDs and queue pair sizes.
 */
void test_info_ib_conn(void)
{
	struct info_ctx c;
	size_t i;

	if (!info_setup(&c))
		return;
	is_eq(send_str(c.a, c.b, "ib"), 2, "send a message to B");
	recv_expect(c.b, "ib", 2, c.a, "B receives it: the connection is up");
	for (i = 0; i < ARRAY_SIZE(info_probes); i++)
		if (info_probes[i].ib)
			info_probe(&info_probes[i], &c);
	close(c.a);
	close(c.b);
}
