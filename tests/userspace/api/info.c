// SPDX-License-Identifier: GPL-2.0
/*
 * The RDS_INFO_* getsockopts: the length protocol, and what each
 * snapshot lists of two sockets, their connection and a waiting message.
 */
#include "api.h"

/* A and B, and what the snapshots must show of them. */
struct info_ctx {
	int a, b;
	struct sockaddr_in sa, sb;
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
};

#define INFO_CHECKS 2

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

/* @a is the IPv4-mapped form of @v4. */
static bool mapped_is(struct in6_addr a, in_addr_t v4)
{
	return IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr32[3] == v4;
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

	return m->len == 4 && m->laddr == c->sb.sin_addr.s_addr &&
	       m->lport == c->sb.sin_port &&
	       m->faddr == c->sa.sin_addr.s_addr &&
	       m->fport == c->sa.sin_port;
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

	return s->inum == c->ino_a && s->bound_port == c->sa.sin_port &&
	       s->bound_addr == c->sa.sin_addr.s_addr &&
	       (int)s->sndbuf == c->sndbuf / 2 &&
	       (int)s->rcvbuf == c->rcvbuf / 2;
}

static bool sock_is_b(const void *e, const struct info_ctx *c)
{
	const struct rds_info_socket *s = e;

	return s->inum == c->ino_b && s->bound_port == c->sb.sin_port;
}

static bool conn_a_to_b(const void *e, const struct info_ctx *c)
{
	const struct rds_info_connection *k = e;

	return k->laddr == c->sa.sin_addr.s_addr &&
	       k->faddr == c->sb.sin_addr.s_addr && k->next_tx_seq > 0 &&
	       k->transport[0] &&
	       memchr(k->transport, 0, sizeof(k->transport));
}

static bool sock6_is_a(const void *e, const struct info_ctx *c)
{
	const struct rds6_info_socket *s = e;

	return s->inum == c->ino_a && s->bound_port == c->sa.sin_port &&
	       mapped_is(s->bound_addr, c->sa.sin_addr.s_addr);
}

static bool conn6_a_to_b(const void *e, const struct info_ctx *c)
{
	const struct rds6_info_connection *k = e;

	return mapped_is(k->laddr, c->sa.sin_addr.s_addr) &&
	       mapped_is(k->faddr, c->sb.sin_addr.s_addr) &&
	       k->next_tx_seq > 0 &&
	       memchr(k->transport, 0, sizeof(k->transport));
}

static bool msg6_a_to_b(const void *e, const struct info_ctx *c)
{
	const struct rds6_info_message *m = e;

	return m->len == 4 && m->lport == c->sb.sin_port &&
	       mapped_is(m->laddr, c->sb.sin_addr.s_addr) &&
	       mapped_is(m->faddr, c->sa.sin_addr.s_addr) &&
	       m->fport == c->sa.sin_port;
}

static const uint8_t zero_gid[RDS_IB_GID_LEN];

static bool ib_conn_a_to_b(const void *e, const struct info_ctx *c)
{
	const struct rds_info_rdma_connection *k = e;

	return k->src_addr == c->sa.sin_addr.s_addr &&
	       k->dst_addr == c->sb.sin_addr.s_addr &&
	       memcmp(k->src_gid, zero_gid, sizeof(zero_gid)) &&
	       memcmp(k->dst_gid, zero_gid, sizeof(zero_gid)) &&
	       k->max_send_wr > 0 && k->max_recv_wr > 0 &&
	       k->max_send_sge > 0 && k->rdma_mr_size > 0 &&
	       !k->cache_allocs && !k->tos;	/* other lanes may be up */
}

static bool ib6_conn_a_to_b(const void *e, const struct info_ctx *c)
{
	const struct rds6_info_rdma_connection *k = e;

	return mapped_is(k->src_addr, c->sa.sin_addr.s_addr) &&
	       mapped_is(k->dst_addr, c->sb.sin_addr.s_addr) &&
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
		{ "the waiting message is listed, from A to B", msg_a_to_b },
	  } },
	{ INFO_OPT(RDS_INFO_SOCKETS, struct rds_info_socket),
	  .check = {
		{ "socket A is listed: inode, address, port, buffers",
		  sock_is_a },
		{ "socket B is listed", sock_is_b },
	  } },
	{ INFO_OPT(RDS_INFO_CONNECTIONS, struct rds_info_connection),
	  .check = {
		{ "the connection from A to B is listed, with its transport",
		  conn_a_to_b },
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
		  sock6_is_a },
	  } },
	{ INFO_OPT(RDS6_INFO_CONNECTIONS, struct rds6_info_connection),
	  .check = {
		{ "RDS6_INFO_CONNECTIONS lists A -> B, mapped", conn6_a_to_b },
	  } },
	{ INFO_OPT(RDS6_INFO_SEND_MESSAGES, struct rds6_info_message) },
	{ INFO_OPT(RDS6_INFO_RETRANS_MESSAGES, struct rds6_info_message) },
	{ INFO_OPT(RDS6_INFO_RECV_MESSAGES, struct rds6_info_message),
	  .check = {
		{ "RDS6_INFO_RECV_MESSAGES lists the waiting message, mapped",
		  msg6_a_to_b },
	  } },
	/*
	 * RDS_INFO_IB_CONNECTIONS lists the IB connection A -> B with its
	 * GIDs and queue pair sizes over IB, and nothing over loopback.
	 */
	{ INFO_OPT(RDS_INFO_IB_CONNECTIONS, struct rds_info_rdma_connection),
	  .ib = true,
	  .check = {
		{ "RDS_INFO_IB_CONNECTIONS lists A -> B: GIDs, queue sizes",
		  ib_conn_a_to_b, INFO_ONE, INFO_IB },
		{ "RDS_INFO_IB_CONNECTIONS lists no loopback connection",
		  NULL, INFO_NONE, INFO_NOT_IB },
	  } },
	{ INFO_OPT(RDS6_INFO_IB_CONNECTIONS, struct rds6_info_rdma_connection),
	  .ib = true,
	  .check = {
		{ "RDS6_INFO_IB_CONNECTIONS agrees, with mapped addresses",
		  ib6_conn_a_to_b, INFO_ONE, INFO_IB },
		{ "RDS6_INFO_IB_CONNECTIONS agrees, with mapped addresses",
		  ib6_conn_a_to_b, INFO_NONE, INFO_NOT_IB },
	  } },
};

/* Whether check @k is made here, over the transport of @c. */
static bool info_check_made(const struct info_check *k,
			    const struct info_ctx *c)
{
	return k->name && (k->on == INFO_ALWAYS || (k->on == INFO_IB) == c->ib);
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
		tap_diag("A %08x:%u, B %08x:%u",
			 ntohl(c->sa.sin_addr.s_addr), ntohs(c->sa.sin_port),
			 ntohl(c->sb.sin_addr.s_addr), ntohs(c->sb.sin_port));
	}
	free(buf);
}

/* Bind A and B, and note what the snapshots must show of them. */
static bool info_setup(struct info_ctx *c)
{
	struct stat st;
	socklen_t sl;

	memset(c, 0, sizeof(*c));
	if (!make_pair(&c->a, &c->b))
		return false;
	sl = sizeof(c->sa);
	getsockname(c->a, (struct sockaddr *)&c->sa, &sl);
	sl = sizeof(c->sb);
	getsockname(c->b, (struct sockaddr *)&c->sb, &sl);
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
