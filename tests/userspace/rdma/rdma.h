/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of rds_rdma_test share: limits, the pair of sockets, the
 * fixture most tests start from, control messages, and the checks.
 */
#ifndef RDS_RDMA_TEST_H
#define RDS_RDMA_TEST_H

#include "rds_util.h"

#include <sys/mman.h>

/* Wait this long for something that must arrive. */
#define WAIT_MS		10000
/* Watch this long for something that must not arrive. */
#define QUIET_WAIT_MS	300

#define PAGE		4096UL
#define KIB		1024UL
#define MIB		(1024UL * 1024UL)

#define NOTE_SPACE	CMSG_SPACE(sizeof(struct rds_rdma_notify))

/* A flag no RDS_RDMA_* or RDS_DOCA_* definition uses. */
#define UNKNOWN_FLAG	0x100000ULL

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

/*
 * The refused-input cases also run against net/rds over loopback (--impl
 * rds), where RDMA is not available: there every argument check comes
 * first, and what passes them fails with EOPNOTSUPP.  LX() picks the
 * errno each implementation gives; DIFFERENCES.txt (k) says why they
 * differ where they do.
 */
#define LX(doca, rds)	(cfg.impl_doca ? (doca) : (rds))

static inline uint64_t cookie_key(uint64_t c)
{
	return c & 0xffffffffULL;
}

static inline uint64_t cookie_off(uint64_t c)
{
	return c >> 32;
}

static inline uint64_t cookie_make(uint64_t key, uint64_t off)
{
	return (off << 32) | (key & 0xffffffffULL);
}

bool over_ib(void);
extern bool no_atomics;
extern unsigned long mr_pages;
extern unsigned long read_sinks;
bool mr_too_big(const void *p, uint64_t len);

void *xmap(size_t len);
void xunmap(void *p, size_t len);
void *unmapped_addr(void);
void *map_read_only(void);

/* A and B on fresh ports. */
struct pair {
	int a, b;
	union rds_sa sa, sb;
};

bool pair_open(struct pair *p);
void pair_close(struct pair *p);

/*
 * What most tests start from: @alen bytes of A's memory (abuf), @blen of
 * B's (bbuf; none for 0), the pair, and the cookie of the region of abuf
 * fixture_mr() registered.  fixture_close() releases what there is,
 * however far fixture_open() got.
 */
struct rdma_fixture {
	struct pair p;
	char *abuf, *bbuf;
	size_t alen, blen;
	uint64_t cookie;
};

bool fixture_open(struct rdma_fixture *f, size_t alen, size_t blen);
bool fixture_mr(struct rdma_fixture *f, size_t off, uint64_t len,
		uint64_t flags, const char *what);
bool fixture_open_mr(struct rdma_fixture *f, size_t alen, size_t blen,
		     uint64_t len);
void fixture_close(struct rdma_fixture *f);

/* The payload of the messages that carry the operations. */
#define OP_PAYLOAD	"rdma op"
extern const char op_payload[sizeof(OP_PAYLOAD)];
extern uint64_t next_token;

ssize_t send_cm(int fd, const union rds_sa *to, const void *payload,
		size_t plen, const struct cm *c);
ssize_t send_rdma(int fd, const union rds_sa *to,
		  const struct rds_rdma_args *ra);
ssize_t send_atomic(int fd, const union rds_sa *to, int type,
		    const struct rds_atomic_args *aa);
void mk_rdma(struct rds_rdma_args *ra, uint64_t cookie, uint64_t raddr,
	     uint64_t bytes, const struct rds_iovec *lv, uint64_t nr,
	     uint64_t flags);
void mk_atomic(struct rds_atomic_args *aa, uint64_t cookie, uint64_t raddr,
	       void *local, uint64_t flags);

/* What one recvmsg() returned. */
struct rx {
	ssize_t len;
	int msg_flags;
	unsigned int nnotes;
	struct rds_rdma_notify notes[256];
	bool has_dest;
	uint64_t dest;
	unsigned int other_cmsgs;
	union rds_sa from;
	char data[256];
};

ssize_t rx_one(int fd, struct rx *rx, size_t ctl, int timeout_ms);
const char *rx_err(void);
bool get_notice(int fd, struct rds_rdma_notify *n, const char *what);
__printf(4, 5)
bool expect_notice(int fd, uint64_t token, int status, const char *fmt, ...);
__printf(3, 4)
bool expect_msg(int fd, struct rx *rx, const char *fmt, ...);
__printf(3, 4)
bool expect_quiet(int fd, int ms, const char *fmt, ...);
void expect_refused_quiet(struct pair *p, const char *what);

int op_outcome(struct pair *p, uint64_t token, bool msg, const char *what);
int run_rdma_msg(struct pair *p, uint64_t cookie, uint64_t raddr,
		 void *local, uint64_t len, uint64_t flags, bool empty,
		 const char *what);
int run_rdma(struct pair *p, uint64_t cookie, uint64_t raddr, void *local,
	     uint64_t len, uint64_t flags, const char *what);
int run_atomic(struct pair *p, int type, struct rds_atomic_args *aa,
	       const char *what);
int run_write(struct pair *p, uint64_t cookie, uint64_t raddr, void *local,
	      uint64_t len, const char *what);
int run_read(struct pair *p, uint64_t cookie, uint64_t raddr, void *local,
	     uint64_t len, const char *what);

__printf(4, 5)
bool check_pattern(const void *p, size_t len, uint32_t seed,
		   const char *fmt, ...);
__printf(4, 5)
bool check_fill(const void *p, size_t len, int c, const char *fmt, ...);

void sort_u64(uint64_t *v, size_t n);
unsigned int count_dups(uint64_t *v, size_t n);
bool counter_get(int fd, const char *name, uint64_t *val);
bool refused_cookie(int fd, void *buf, uint64_t len, uint64_t *c);

/* mr.c */
void test_mr_errors(void);
void test_mr_cookies(void);
void test_mr_free(void);
void test_mr_memlock(void);
void test_mr_for_dest_family(void);

/* rdma_ops.c */
void test_rdma_write_read(void);
void test_rdma_iovecs(void);
void test_rdma_many_pieces(void);
void test_rdma_read_pieces(void);
void test_rdma_visible_on_delivery(void);
void test_rdma_silent(void);
void test_rdma_refused(void);
void test_rdma_resolve_once(void);

/* remote.c */
void test_remote_errors(void);
void test_remote_read_only(void);
void test_remote_for_dest(void);
void test_remote_use_once(void);
void test_remote_revoke(void);
void test_silent_use_once(void);

/* notify.c */
void test_notify_tokens(void);
void test_notify_none_on_success(void);
void test_notify_recverr(void);
void test_notify_one_per_recv(void);

/* dest.c */
void test_dest_live(void);
void test_dest_refused(void);
void test_dest_map(void);

/* atomic.c */
void test_atomic_fadd(void);
void test_atomic_cswp(void);
void test_atomic_masked_cswp(void);
void test_atomic_masked_fadd(void);
void test_atomic_refused(void);
void test_atomic_remote_errors(void);
void test_atomic_concurrent(void);

/* lifetime.c */
void test_life_close_owner(void);
void test_life_close_initiator(void);
void test_life_munmap_owner(void);
void test_life_munmap_local(void);

/* mrlist.c */
void test_mrlist_basic(void);
void test_mrlist_errors(void);

/* security.c */
void test_sec_cookie_owner(void);
void test_sec_refusals_throttled(void);
void test_sec_cookie_random(void);

#endif /* RDS_RDMA_TEST_H */
