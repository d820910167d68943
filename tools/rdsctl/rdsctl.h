/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What rdsctl's files share, laid out as iproute2's rdma tool:
 *
 *   rdsctl.c	main(), the command table, usage, global options
 *   netlink.c	the generic netlink socket and the one request helper
 *   filter.c	KEY VALUE filters: parsed, matched, sent in requests
 *   objects.c	the family's attribute sets and how they print; no I/O,
 *		so printer_test checks it on messages built in memory
 *   printer.c	text and JSON output (printer.h)
 *   res.c	dump-and-show, shared by conn; the sock, mr, dev objects
 *   conn.c, stats.c, info.c, dma.c, monitor.c, ping.c: one command each
 */
#ifndef RDSCTL_H
#define RDSCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>

#include <netlink/attr.h>
#include <netlink/handlers.h>
#include <netlink/msg.h>

#define RDSCTL_VERSION	"1.0"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* objects.c: how an attribute is read and shown */
enum field_type {
	FT_U8,
	FT_U16,
	FT_U32,
	FT_U64,
	FT_S32,
	FT_HEX64,	/* u64, hexadecimal in text */
	FT_ADDR,	/* IPv4 (4 bytes) or IPv6 (16 bytes) address */
	FT_STR,
	FT_FLAG,	/* true when present */
	FT_GID,		/* 16 raw bytes */
	FT_CONN_STATE,	/* u8, RDS_DOCA_CONN_STATE_* */
	FT_PORT_STATE,	/* u8, enum ib_port_state */
	FT_ATOMIC_CAP,	/* u8, enum ib_atomic_cap */
	FT_DEV_CAPS,	/* u32, RDS_DOCA_DEV_CAP_* bits */
	FT_DMA_MODE,	/* u8, RDS_DOCA_DMA_* */
	FT_DEV_PROTO,	/* u8, RDS_DOCA_DEV_PROTO_* */
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
bool attr_addr(const struct nlattr *nla, struct in6_addr *addr);
const char *addr_str(const struct in6_addr *addr, char *buf, size_t size);
bool addr_parse(const char *text, struct in6_addr *addr);
bool attr_uint(const struct nlattr *nla, enum field_type type,
	       uint64_t *val);
bool attr_str(const struct nlattr *nla, char *buf, size_t size);

/* The value of an enumerated type (FT_CONN_STATE, ...) by name, or -1. */
int enum_from_name(enum field_type type, const char *name);

/* rdsctl.c: the command line */
struct options {
	bool json;
	bool pretty;
	bool details;
};

extern struct options opt;

/* Report a command line error, exit 2; or running out of memory, exit 1. */
void usage_error(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));
void oom(void);

/* Words: abbreviations, the command after the object, no more words. */
int lookup(const char *arg, const char *const *names);

enum { CMD_SHOW, CMD_LIST };

int get_command(const char *object, int *argc, char ***argv,
		const char *const *cmds);
void no_args(const char *what, int argc, char **argv);

/* netlink.c: the family; every command sends through request() */
struct nl_sock *nl_open(void);
struct nl_msg *genl_request(uint8_t cmd, int flags);
int request(const char *what, const char *enoent, struct nl_msg *msg,
	    nl_recvmsg_msg_cb_t valid, void *arg);
bool ours(struct nl_msg *msg);
int print_cb(struct nl_msg *msg, void *arg);

/* filter.c: KEY VALUE pairs after a command */
struct filter_key {
	const char *name;
	int attr;
	enum field_type type;	/* FT_ADDR, _U16, _U32, _BYTES, _STR,
				 * _CONN_STATE, _DMA_MODE
				 */
};

#define MAX_FILTER_KEYS	4

struct filters {
	const struct filter_key *keys;
	struct {
		bool set;
		uint64_t num;
		const char *str;
		struct in6_addr addr;	/* FT_ADDR: IPv4-mapped for IPv4 */
	} val[MAX_FILTER_KEYS];
};

void parse_filters(const char *what, int argc, char **argv,
		   const struct filter_key *keys, struct filters *f);
bool filters_match(const struct filters *f, struct nlattr **tb);
int send_filters(const char *what, const char *enoent, uint8_t cmd,
		 const struct filters *f);

/* res.c: dump objects and show those the filters let through */
int show(const char *what, uint8_t cmd, const struct object_type *type,
	 const struct filters *filters);

/* The objects of the command table, each in its file (sock..dev: res.c). */
int cmd_conn(int argc, char **argv);
int cmd_sock(int argc, char **argv);
int cmd_mr(int argc, char **argv);
int cmd_dev(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_dma(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_ping(int argc, char **argv);

#endif /* RDSCTL_H */
