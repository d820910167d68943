/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What rdsctl's parts share.  objects.c turns the attributes of
 * the rds_doca generic netlink family into output through the printer;
 * it does no I/O of its own, so it can be tested on messages built in
 * memory.
 */
#ifndef RDSCTL_H
#define RDSCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#define RDSCTL_VERSION	"1.0"

/* How an attribute is read and shown. */
enum field_type {
	FT_U8,
	FT_U16,
	FT_U32,
	FT_U64,
	FT_S32,
	FT_HEX64,	/* u64, hexadecimal in text */
	FT_ADDR,	/* be32 IPv4 address */
	FT_STR,
	FT_FLAG,	/* true when present */
	FT_GID,		/* 16 raw bytes */
	FT_CONN_STATE,	/* u8, RDS_DOCA_CONN_STATE_* */
	FT_PORT_STATE,	/* u8, enum ib_port_state */
	FT_ATOMIC_CAP,	/* u8, enum ib_atomic_cap */
	FT_DEV_CAPS,	/* u32, RDS_DOCA_DEV_CAP_* bits */
	FT_DMA_MODE,	/* u8, RDS_DOCA_DMA_* */
	FT_BYTES,	/* u32 byte count; k, m suffixes on the command line */
	FT_STRS,	/* string, repeated: an array */
};

struct field {
	const char *key;	/* JSON key; upper-cased, the text header */
	int attr;
	enum field_type type;
	bool detail;		/* in text only with -d; JSON has them all */
};

struct object_type {
	const char *name;
	int maxattr;
	const struct field *fields;
	size_t nfields;
};

/* Big enough a tb[] for any attribute set of the family. */
#define RDSCTL_TB_SIZE	32

extern const struct object_type conn_type;
extern const struct object_type sock_type;
extern const struct object_type mr_type;
extern const struct object_type dev_type;
extern const struct object_type info_type;
extern const struct object_type dma_type;

/* Fill tb[0..type->maxattr] from a message of the family. */
int obj_parse(const struct object_type *type, struct nlmsghdr *nlh,
	      struct nlattr **tb);
/*
 * Print one object: a table row, or a JSON object.  Its repeated
 * attributes (FT_STRS) are read from nlh, and empty when nlh is NULL.
 */
void obj_print(const struct object_type *type, struct nlmsghdr *nlh,
	       struct nlattr **tb, bool details);

/* Whole replies and notifications of the family. */
int print_info(struct nlmsghdr *nlh);
int print_dma(struct nlmsghdr *nlh);
int print_stats(struct nlmsghdr *nlh);
int print_event(struct nlmsghdr *nlh, bool details);

/* Reading attributes; false when absent or too short. */
bool attr_uint(const struct nlattr *nla, enum field_type type,
	       uint64_t *val);
bool attr_str(const struct nlattr *nla, char *buf, size_t size);

int conn_state_from_name(const char *name);
int dma_mode_from_name(const char *name);

/* ping.c */
struct ping_opts {
	const char *target;	/* as given */
	struct in_addr addr;
	struct in_addr laddr;	/* INADDR_ANY: the route's source */
	unsigned long count;	/* 0: until interrupted */
	double interval;	/* seconds between probes */
	double timeout;		/* seconds to wait for each reply */
};

void ping_parse(int argc, char **argv, struct ping_opts *po);
int ping_run(const struct ping_opts *po, int family);

/* rdsctl.c: report a command line error, exit 2 */
void usage_error(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

#endif /* RDSCTL_H */
