// SPDX-License-Identifier: GPL-2.0-only
/*
 * The attribute sets of the rds_doca generic netlink family, and how rdsctl
 * prints each object, reply and notification.
 *
 * Each object is a table of fields: JSON key, attribute, type.  Unknown
 * attributes are skipped by the parser, and an attribute that is missing
 * or too short for its type is shown as missing ("-" in text, left out of
 * JSON), so output from an older or newer module is still printed.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>
#include <linux/rds_doca.h>

#include "printer.h"
#include "rdsctl.h"

#define OBJECT(_name, _max, _fields) {			\
	.name = _name,					\
	.maxattr = _max,				\
	.fields = _fields,				\
	.nfields = ARRAY_SIZE(_fields),			\
}

/* A field, and a field shown in text only with -d. */
#define F(_key, _attr, _type)	{ _key, _attr, _type, false }
#define D(_key, _attr, _type)	{ _key, _attr, _type, true }

_Static_assert(RDSCTL_TB_SIZE > RDS_DOCA_A_CONN_MAX &&
	       RDSCTL_TB_SIZE > RDS_DOCA_A_SOCK_MAX &&
	       RDSCTL_TB_SIZE > RDS_DOCA_A_MR_MAX &&
	       RDSCTL_TB_SIZE > RDS_DOCA_A_DEV_MAX &&
	       RDSCTL_TB_SIZE > RDS_DOCA_A_INFO_MAX &&
	       RDSCTL_TB_SIZE > RDS_DOCA_A_COUNTER_MAX,
	       "RDSCTL_TB_SIZE too small");

static const struct field conn_fields[] = {
	F("id",			RDS_DOCA_A_CONN_ID,		FT_U32),
	F("laddr",		RDS_DOCA_A_CONN_LADDR,		FT_ADDR),
	F("peer",		RDS_DOCA_A_CONN_PEER,		FT_ADDR),
	F("transport",		RDS_DOCA_A_CONN_TRANSPORT,	FT_STR),
	F("path",		RDS_DOCA_A_CONN_PATH,		FT_U8),
	F("tos",		RDS_DOCA_A_CONN_TOS,		FT_U8),
	F("state",		RDS_DOCA_A_CONN_STATE,		FT_CONN_STATE),
	F("dev",		RDS_DOCA_A_CONN_DEV,		FT_STR),
	F("port",		RDS_DOCA_A_CONN_PORT,		FT_U8),
	D("qpn",		RDS_DOCA_A_CONN_QPN,		FT_U32),
	D("credits",		RDS_DOCA_A_CONN_CREDITS,	FT_U32),
	D("next_tx_seq",	RDS_DOCA_A_CONN_NEXT_TX_SEQ,	FT_U64),
	D("next_rx_seq",	RDS_DOCA_A_CONN_NEXT_RX_SEQ,	FT_U64),
	D("last_acked",		RDS_DOCA_A_CONN_LAST_ACKED,	FT_U64),
	F("send_queue",		RDS_DOCA_A_CONN_SEND_QUEUE,	FT_U32),
	F("retrans",		RDS_DOCA_A_CONN_RETRANS,	FT_U32),
	F("connects",		RDS_DOCA_A_CONN_CONNECTS,	FT_U32),
	D("tx_msgs",		RDS_DOCA_A_CONN_TX_MSGS,	FT_U64),
	D("tx_bytes",		RDS_DOCA_A_CONN_TX_BYTES,	FT_U64),
	D("rx_msgs",		RDS_DOCA_A_CONN_RX_MSGS,	FT_U64),
	D("rx_bytes",		RDS_DOCA_A_CONN_RX_BYTES,	FT_U64),
	F("last_error",		RDS_DOCA_A_CONN_LAST_ERROR,	FT_S32),
	D("recv_bufs",		RDS_DOCA_A_CONN_RECV_BUFS,	FT_U32),
};

static const struct field sock_fields[] = {
	F("id",			RDS_DOCA_A_SOCK_ID,		FT_U32),
	D("inode",		RDS_DOCA_A_SOCK_INODE,		FT_U64),
	F("uid",		RDS_DOCA_A_SOCK_UID,		FT_U32),
	F("addr",		RDS_DOCA_A_SOCK_ADDR,		FT_ADDR),
	F("port",		RDS_DOCA_A_SOCK_PORT,		FT_U16),
	F("peer",		RDS_DOCA_A_SOCK_PEER,		FT_ADDR),
	F("peer_port",		RDS_DOCA_A_SOCK_PEER_PORT,	FT_U16),
	F("transport",		RDS_DOCA_A_SOCK_TRANSPORT,	FT_STR),
	D("sndbuf",		RDS_DOCA_A_SOCK_SNDBUF,		FT_U32),
	F("snd_queued",		RDS_DOCA_A_SOCK_SND_QUEUED,	FT_U32),
	D("rcvbuf",		RDS_DOCA_A_SOCK_RCVBUF,		FT_U32),
	F("rcv_queued",		RDS_DOCA_A_SOCK_RCV_QUEUED,	FT_U32),
	D("congested",		RDS_DOCA_A_SOCK_CONGESTED,	FT_FLAG),
	D("cong_monitor",	RDS_DOCA_A_SOCK_CONG_MONITOR,	FT_FLAG),
	F("mrs",		RDS_DOCA_A_SOCK_MRS,		FT_U32),
	D("notify_bytes",	RDS_DOCA_A_SOCK_NOTIFY_BYTES,	FT_U32),
};

static const struct field mr_fields[] = {
	F("key",		RDS_DOCA_A_MR_KEY,		FT_U32),
	F("cookie",		RDS_DOCA_A_MR_COOKIE,		FT_HEX64),
	F("len",		RDS_DOCA_A_MR_LEN,		FT_U64),
	F("pages",		RDS_DOCA_A_MR_PAGES,		FT_U32),
	F("sock_id",		RDS_DOCA_A_MR_SOCK_ID,		FT_U32),
	F("transport",		RDS_DOCA_A_MR_TRANSPORT,	FT_STR),
	D("peer",		RDS_DOCA_A_MR_PEER,		FT_ADDR),
	D("peer_port",		RDS_DOCA_A_MR_PEER_PORT,	FT_U16),
	D("use_once",		RDS_DOCA_A_MR_USE_ONCE,		FT_FLAG),
	D("read_only",		RDS_DOCA_A_MR_READ_ONLY,	FT_FLAG),
};

static const struct field dev_fields[] = {
	F("index",		RDS_DOCA_A_DEV_INDEX,		FT_U32),
	F("name",		RDS_DOCA_A_DEV_NAME,		FT_STR),
	F("port",		RDS_DOCA_A_DEV_PORT,		FT_U8),
	F("protocol",		RDS_DOCA_A_DEV_PROTOCOL,	FT_DEV_PROTO),
	F("state",		RDS_DOCA_A_DEV_STATE,		FT_PORT_STATE),
	F("gid",		RDS_DOCA_A_DEV_GID,		FT_GID),
	D("max_msg",		RDS_DOCA_A_DEV_MAX_MSG,		FT_U32),
	D("atomic_cap",		RDS_DOCA_A_DEV_ATOMIC_CAP,	FT_ATOMIC_CAP),
	D("masked_atomic_cap",	RDS_DOCA_A_DEV_MASKED_ATOMIC_CAP,
								FT_ATOMIC_CAP),
	D("frwr_depth",		RDS_DOCA_A_DEV_FRWR_DEPTH,	FT_U32),
	D("max_sge",		RDS_DOCA_A_DEV_MAX_SGE,		FT_U32),
	D("max_rd_sge",		RDS_DOCA_A_DEV_MAX_RD_SGE,	FT_U32),
	D("caps",		RDS_DOCA_A_DEV_CAPS,		FT_DEV_CAPS),
	F("conns",		RDS_DOCA_A_DEV_CONNS,		FT_U32),
	F("mrs",		RDS_DOCA_A_DEV_MRS,		FT_U32),
};

/* info: these, then the fields of dma */
static const struct field info_fields[] = {
	F("version",		RDS_DOCA_A_INFO_VERSION,	FT_STR),
	F("family",		RDS_DOCA_A_INFO_FAMILY,		FT_U32),
	F("sol",		RDS_DOCA_A_INFO_SOL,		FT_U32),
	F("ib_port",		RDS_DOCA_A_INFO_IB_PORT,	FT_U16),
	F("tcp_port",		RDS_DOCA_A_INFO_TCP_PORT,	FT_U16),
	F("wire_version",	RDS_DOCA_A_INFO_WIRE_VERSION,	FT_U32),
	F("transports",		RDS_DOCA_A_INFO_TRANSPORT,	FT_STRS),
};

/* The copy engine's part of the info object. */
static const struct field dma_fields[] = {
	F("dma",		RDS_DOCA_A_INFO_DMA,		FT_STR),
	F("dma_mode",		RDS_DOCA_A_INFO_DMA_MODE,	FT_DMA_MODE),
	F("dma_channels",	RDS_DOCA_A_INFO_DMA_CHANNEL,	FT_STRS),
	F("dma_send_min",	RDS_DOCA_A_INFO_DMA_SEND_MIN,	FT_BYTES),
	F("dma_recv_min",	RDS_DOCA_A_INFO_DMA_RECV_MIN,	FT_BYTES),
	F("dma_rdma_min",	RDS_DOCA_A_INFO_DMA_RDMA_MIN,	FT_BYTES),
};

const struct object_type conn_type =
	OBJECT("conn", RDS_DOCA_A_CONN_MAX, conn_fields);
const struct object_type sock_type =
	OBJECT("sock", RDS_DOCA_A_SOCK_MAX, sock_fields);
const struct object_type mr_type =
	OBJECT("mr", RDS_DOCA_A_MR_MAX, mr_fields);
const struct object_type dev_type =
	OBJECT("dev", RDS_DOCA_A_DEV_MAX, dev_fields);
const struct object_type info_type =
	OBJECT("info", RDS_DOCA_A_INFO_MAX, info_fields);
const struct object_type dma_type =
	OBJECT("dma", RDS_DOCA_A_INFO_MAX, dma_fields);

static const char *const conn_states[] = {
	[RDS_DOCA_CONN_STATE_DOWN]	 = "down",
	[RDS_DOCA_CONN_STATE_CONNECTING] = "connecting",
	[RDS_DOCA_CONN_STATE_UP]	 = "up",
};

static const char *const dma_modes[] = {
	[RDS_DOCA_DMA_OFF]	= "off",
	[RDS_DOCA_DMA_AUTO]	= "auto",
};

/* enum ib_port_state */
static const char *const port_states[] = {
	"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER",
};

static const char *const dev_protos[] = {
	[RDS_DOCA_DEV_PROTO_UNKNOWN]	= "unknown",
	[RDS_DOCA_DEV_PROTO_IB]		= "ib",
	[RDS_DOCA_DEV_PROTO_ROCE]	= "roce",
	[RDS_DOCA_DEV_PROTO_IWARP]	= "iwarp",
};

/* enum ib_atomic_cap */
static const char *const atomic_caps[] = { "none", "hca", "global" };

/* RDS_DOCA_DEV_CAP_* bits, lowest first */
static const char *const dev_caps[] = {
	"send", "rdma-write", "rdma-read", "atomic", "masked-atomic",
	"mr-list", "mr-sg-gaps",
};

/* The names of the values of each enumerated field type. */
static const struct {
	const char *const *names;
	size_t n;
} enums[] = {
	[FT_CONN_STATE]	= { conn_states, ARRAY_SIZE(conn_states) },
	[FT_PORT_STATE]	= { port_states, ARRAY_SIZE(port_states) },
	[FT_ATOMIC_CAP]	= { atomic_caps, ARRAY_SIZE(atomic_caps) },
	[FT_DMA_MODE]	= { dma_modes, ARRAY_SIZE(dma_modes) },
	[FT_DEV_PROTO]	= { dev_protos, ARRAY_SIZE(dev_protos) },
};

int enum_from_name(enum field_type type, const char *name)
{
	size_t i;

	if (type >= ARRAY_SIZE(enums))
		return -1;
	for (i = 0; i < enums[type].n; i++)
		if (enums[type].names[i] &&
		    !strcmp(name, enums[type].names[i]))
			return i;
	return -1;
}

/* Bytes of the unsigned value a field of @type carries, 0 if none. */
static size_t field_size(enum field_type type)
{
	switch (type) {
	case FT_U8:
	case FT_CONN_STATE:
	case FT_PORT_STATE:
	case FT_ATOMIC_CAP:
	case FT_DMA_MODE:
	case FT_DEV_PROTO:
		return sizeof(uint8_t);
	case FT_U16:
		return sizeof(uint16_t);
	case FT_U32:
	case FT_S32:
	case FT_DEV_CAPS:
	case FT_BYTES:
		return sizeof(uint32_t);
	case FT_U64:
	case FT_HEX64:
		return sizeof(uint64_t);
	default:
		return 0;
	}
}

/* An address attribute: its length says the family. */
bool attr_addr(const struct nlattr *nla, struct in6_addr *addr)
{
	if (!nla)
		return false;
	if (nla_len(nla) == 4) {
		memset(addr, 0, sizeof(*addr));
		addr->s6_addr32[2] = htonl(0xffff);
		memcpy(&addr->s6_addr32[3], nla_data(nla), 4);
		return true;
	}
	if (nla_len(nla) == (int)sizeof(*addr)) {
		memcpy(addr, nla_data(nla), sizeof(*addr));
		return true;
	}
	return false;
}

/* "192.0.2.1" for an IPv4-mapped address, else the IPv6 form */
const char *addr_str(const struct in6_addr *addr, char *buf, size_t size)
{
	if (IN6_IS_ADDR_V4MAPPED(addr))
		return inet_ntop(AF_INET, &addr->s6_addr32[3], buf, size);
	return inet_ntop(AF_INET6, addr, buf, size);
}

/* An address given by the user: IPv4, or IPv6; IPv4 comes IPv4-mapped. */
bool addr_parse(const char *text, struct in6_addr *addr)
{
	struct in_addr in;

	if (inet_pton(AF_INET, text, &in) == 1) {
		memset(addr, 0, sizeof(*addr));
		addr->s6_addr32[2] = htonl(0xffff);
		addr->s6_addr32[3] = in.s_addr;
		return true;
	}
	return inet_pton(AF_INET6, text, addr) == 1;
}

bool attr_uint(const struct nlattr *nla, enum field_type type, uint64_t *val)
{
	size_t size = field_size(type);
	union {
		uint8_t		u8;
		uint16_t	u16;
		uint32_t	u32;
		uint64_t	u64;
	} v;

	if (!nla || !size || nla_len(nla) < (int)size)
		return false;
	memcpy(&v, nla_data(nla), size);
	*val = size == 1 ? v.u8 : size == 2 ? v.u16 : size == 4 ? v.u32 :
	       v.u64;
	return true;
}

bool attr_str(const struct nlattr *nla, char *buf, size_t size)
{
	if (!nla)
		return false;
	nla_strlcpy(buf, nla, size);
	return true;
}

/* Print the name of an enumerated value, or the number when it has none. */
static void print_enum(const char *key, enum field_type type, uint64_t val)
{
	if (val < enums[type].n && enums[type].names[val])
		pr_str(key, enums[type].names[val]);
	else
		pr_u64(key, val);
}

static void print_gid(const char *key, const struct nlattr *nla)
{
	const uint8_t *g = nla_data(nla);
	char buf[40];
	int i, n = 0;

	for (i = 0; i < 16; i += 2)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%02x%02x",
			      i ? ":" : "", g[i], g[i + 1]);
	pr_str(key, buf);
}

static void print_caps(const char *key, uint32_t caps)
{
	char buf[16];
	unsigned int bit;

	pr_array_start(key);
	for (bit = 0; bit < 32; bit++) {
		if (!(caps & (1U << bit)))
			continue;
		if (bit < ARRAY_SIZE(dev_caps)) {
			pr_str(NULL, dev_caps[bit]);
		} else {
			snprintf(buf, sizeof(buf), "0x%x", 1U << bit);
			pr_str(NULL, buf);
		}
	}
	pr_array_end();
}

/* The strings of every attr attribute of the message, as an array. */
static void print_strs(const char *key, int attr, struct nlmsghdr *nlh)
{
	struct nlattr *nla;
	char str[256];
	int rem;

	pr_array_start(key);
	if (nlh)
		nla_for_each_attr(nla, genlmsg_attrdata(genlmsg_hdr(nlh), 0),
				  genlmsg_attrlen(genlmsg_hdr(nlh), 0), rem)
			if (nla_type(nla) == attr &&
			    attr_str(nla, str, sizeof(str)))
				pr_str(NULL, str);
	pr_array_end();
}

/* Print one field; false when the attribute is missing or malformed. */
static bool print_field(const struct field *f, struct nlmsghdr *nlh,
			const struct nlattr *nla)
{
	struct in6_addr addr;
	char str[256];
	uint64_t v;

	switch (f->type) {
	case FT_ADDR:
		if (!attr_addr(nla, &addr))
			return false;
		pr_addr(f->key, &addr);
		return true;
	case FT_STRS:
		print_strs(f->key, f->attr, nlh);
		return true;
	case FT_FLAG:
		pr_bool(f->key, nla);
		return true;
	case FT_STR:
		if (!attr_str(nla, str, sizeof(str)))
			return false;
		pr_str(f->key, str);
		return true;
	case FT_GID:
		if (!nla || nla_len(nla) < 16)
			return false;
		print_gid(f->key, nla);
		return true;
	default:
		break;
	}

	if (!attr_uint(nla, f->type, &v))
		return false;
	switch (f->type) {
	case FT_S32:
		pr_s64(f->key, (int32_t)v);
		break;
	case FT_HEX64:
		pr_hex64(f->key, v);
		break;
	case FT_CONN_STATE:
	case FT_PORT_STATE:
	case FT_ATOMIC_CAP:
	case FT_DMA_MODE:
	case FT_DEV_PROTO:
		print_enum(f->key, f->type, v);
		break;
	case FT_DEV_CAPS:
		print_caps(f->key, v);
		break;
	default:
		pr_u64(f->key, v);
		break;
	}
	return true;
}

/*
 * Print the fields of an object.  In text, detail fields need -d, and
 * missing ones are shown as "-" unless skip_missing (event lines, where
 * the key would be noise); attributes in skip (a mask of attribute
 * numbers) were already shown.  Repeated attributes are read from nlh.
 */
static void print_fields(const struct object_type *type, struct nlmsghdr *nlh,
			 struct nlattr **tb, bool details, bool skip_missing,
			 uint32_t skip)
{
	const struct field *f;

	for (f = type->fields; f < type->fields + type->nfields; f++) {
		if (!pr_is_json() &&
		    ((f->detail && !details) || (skip & (1U << f->attr))))
			continue;
		if (!print_field(f, nlh, tb[f->attr]) && !skip_missing)
			pr_none(f->key);
	}
}

int obj_parse(const struct object_type *type, struct nlmsghdr *nlh,
	      struct nlattr **tb)
{
	return genlmsg_parse(nlh, 0, tb, type->maxattr, NULL);
}

void obj_print(const struct object_type *type, struct nlmsghdr *nlh,
	       struct nlattr **tb, bool details)
{
	pr_obj_start(NULL);
	print_fields(type, nlh, tb, details, false, 0);
	pr_obj_end();
}

/* The module's information, then its copy engine's. */
int print_info(struct nlmsghdr *nlh)
{
	struct nlattr *tb[RDSCTL_TB_SIZE];

	if (obj_parse(&info_type, nlh, tb) < 0)
		return -1;
	pr_obj_start(NULL);
	print_fields(&info_type, nlh, tb, true, false, 0);
	print_fields(&dma_type, nlh, tb, true, false, 0);
	pr_obj_end();
	return 0;
}

/* The copy engine's part of an info reply. */
int print_dma(struct nlmsghdr *nlh)
{
	struct nlattr *tb[RDSCTL_TB_SIZE];

	if (obj_parse(&dma_type, nlh, tb) < 0)
		return -1;
	obj_print(&dma_type, nlh, tb, true);
	return 0;
}

/*
 * Counters in the order received: "name value" lines in text, and in
 * JSON {"counters": {"name": value, ...}}.  A counter without a name is
 * skipped, one without a value left out of JSON.
 */
int print_stats(struct nlmsghdr *nlh)
{
	struct nlattr *tb[RDSCTL_TB_SIZE], *nla;
	char name[256];
	uint64_t v;
	int rem;

	if (!genlmsg_valid_hdr(nlh, 0))
		return -1;
	pr_obj_start(NULL);
	pr_obj_start("counters");
	nla_for_each_attr(nla, genlmsg_attrdata(genlmsg_hdr(nlh), 0),
			  genlmsg_attrlen(genlmsg_hdr(nlh), 0), rem) {
		if (nla_type(nla) != RDS_DOCA_A_STATS_COUNTER ||
		    nla_parse_nested(tb, RDS_DOCA_A_COUNTER_MAX, nla,
				     NULL) < 0 ||
		    !attr_str(tb[RDS_DOCA_A_COUNTER_NAME], name,
			      sizeof(name)) ||
		    !*name)
			continue;
		if (attr_uint(tb[RDS_DOCA_A_COUNTER_VALUE], FT_U64, &v))
			pr_u64(name, v);
		else
			pr_none(name);
	}
	pr_obj_end();
	pr_obj_end();
	return 0;
}

/* An attribute as text for an event line: "-" when missing. */
static const char *addr_text(const struct nlattr *nla,
			     char buf[INET6_ADDRSTRLEN])
{
	struct in6_addr a;

	if (!attr_addr(nla, &a))
		return "-";
	return addr_str(&a, buf, INET6_ADDRSTRLEN);
}

static const char *str_text(const struct nlattr *nla, char *buf, size_t size)
{
	return attr_str(nla, buf, size) ? buf : "-";
}

/*
 * One line per notification.  Text: "conn up LADDR -> PEER TRANSPORT"
 * or "dev add NAME", then the other fields as "key value" pairs.  JSON:
 * {"event": "conn-up", ...the object's fields}.
 */
int print_event(struct nlmsghdr *nlh, bool details)
{
	struct nlattr *tb[RDSCTL_TB_SIZE];
	const struct object_type *type;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN], str[256];
	const char *event;
	uint32_t skip;

	if (!genlmsg_valid_hdr(nlh, 0))
		return -1;
	switch (genlmsg_hdr(nlh)->cmd) {
	case RDS_DOCA_CMD_CONN_UP_NTF:
		event = "conn-up";
		type = &conn_type;
		break;
	case RDS_DOCA_CMD_CONN_DOWN_NTF:
		event = "conn-down";
		type = &conn_type;
		break;
	case RDS_DOCA_CMD_DEV_ADD_NTF:
		event = "dev-add";
		type = &dev_type;
		break;
	case RDS_DOCA_CMD_DEV_DEL_NTF:
		event = "dev-del";
		type = &dev_type;
		break;
	default:
		return -1;	/* from a newer module: not ours to show */
	}
	if (obj_parse(type, nlh, tb) < 0)
		return -1;

	pr_line_start();
	if (pr_is_json())
		pr_str("event", event);
	if (type == &conn_type) {
		pr_text("conn %s %s -> %s %s", event + 5,
			addr_text(tb[RDS_DOCA_A_CONN_LADDR], a),
			addr_text(tb[RDS_DOCA_A_CONN_PEER], b),
			str_text(tb[RDS_DOCA_A_CONN_TRANSPORT], str,
				 sizeof(str)));
		skip = 1U << RDS_DOCA_A_CONN_LADDR |
		       1U << RDS_DOCA_A_CONN_PEER |
		       1U << RDS_DOCA_A_CONN_TRANSPORT |
		       1U << RDS_DOCA_A_CONN_STATE;
	} else {
		pr_text("dev %s %s", event + 4,
			str_text(tb[RDS_DOCA_A_DEV_NAME], str, sizeof(str)));
		skip = 1U << RDS_DOCA_A_DEV_NAME;
	}
	print_fields(type, nlh, tb, details, true, skip);
	pr_line_end();
	return 0;
}
