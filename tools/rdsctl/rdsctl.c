// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdsctl: show and control rds_doca through its generic netlink family.
 *
 *   rdsctl [OPTIONS] OBJECT [COMMAND] [ARGS]
 *
 * Objects are connections, sockets, memory regions, RDMA devices,
 * counters, module information, the copy engine, the event stream and
 * ping; see rdsctl(8).
 * This file parses the command line and talks to the kernel; printing is
 * in objects.c and printer.c, ping in ping.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <linux/rds_doca.h>

#include "printer.h"
#include "rds_doca_user.h"
#include "rdsctl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static struct {
	bool json;
	bool pretty;
	bool details;
} opt;

static struct nl_sock *sk;
static int family_id;
static char ack_msg[256];	/* extended ACK message of the last error */

static const char usage_text[] =
	"Usage: rdsctl [OPTIONS] OBJECT [COMMAND] [ARGS]\n"
	"       rdsctl conn [show] [peer ADDR] [laddr ADDR] [transport NAME]\n"
	"                          [state up|down|connecting]\n"
	"       rdsctl conn drop peer ADDR [laddr ADDR] [transport NAME]\n"
	"       rdsctl sock [show] [addr ADDR] [port PORT] [transport NAME]\n"
	"       rdsctl mr [show] [sock ID]\n"
	"       rdsctl dev [show] [name DEV]\n"
	"       rdsctl stats [show | reset]\n"
	"       rdsctl info\n"
	"       rdsctl dma [show]\n"
	"       rdsctl dma set [mode auto|off] [send-min BYTES]\n"
	"                      [recv-min BYTES] [rdma-min BYTES]\n"
	"       rdsctl monitor\n"
	"       rdsctl ping ADDR [-c COUNT] [-i INTERVAL] [-W TIMEOUT]\n"
	"                        [-I LOCALADDR]\n"
	"OPTIONS: -j, --json     JSON output\n"
	"         -p, --pretty   indented JSON (implies -j)\n"
	"         -d, --details  all fields in text output\n"
	"         -h, --help     this help\n"
	"         -V, --version  version\n";

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("rdsctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nUsage: rdsctl [OPTIONS] OBJECT [COMMAND] [ARGS]\n"
	      "Try \"rdsctl --help\" for more information.\n", stderr);
	exit(2);
}

static void oom(void)
{
	fputs("rdsctl: out of memory\n", stderr);
	exit(1);
}

/*
 * Index of arg in names[] (NULL-terminated), which arg may abbreviate:
 * -1 if it matches nothing, -2 if it abbreviates several names.
 */
static int lookup(const char *arg, const char *const *names)
{
	size_t len = strlen(arg);
	int i, found = -1;

	if (!len)
		return -1;
	for (i = 0; names[i]; i++) {
		if (!strcmp(arg, names[i]))
			return i;
		if (!strncmp(arg, names[i], len))
			found = found == -1 ? i : -2;
	}
	return found;
}

/* netlink */

static void report(const char *what, int err)
{
	fprintf(stderr, "rdsctl: %s: %s", what, strerror(-err));
	if (*ack_msg)
		fprintf(stderr, " (%s)", ack_msg);
	else if (err == -EPERM)
		fputs(" (needs CAP_NET_ADMIN)", stderr);
	fputc('\n', stderr);
}

/* The errno nearest a libnl error; its own text goes to ack_msg. */
static int nlerr_to_errno(int nlerr)
{
	switch (-nlerr) {
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_INTR:
		return -EINTR;
	default:
		snprintf(ack_msg, sizeof(ack_msg), "%s", nl_geterror(nlerr));
		return -EIO;
	}
}

static int finish_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	int *err = arg, e = 0;

	/* A dump cut short carries its error in NLMSG_DONE. */
	if (nlmsg_datalen(nlh) >= (int)sizeof(e))
		memcpy(&e, nlmsg_data(nlh), sizeof(e));
	*err = e < 0 ? e : 0;
	return NL_STOP;
}

static int ack_cb(struct nl_msg *msg, void *arg)
{
	int *err = arg;

	(void)msg;
	*err = 0;
	return NL_STOP;
}

/* Keep the errno, and the extended ACK message if there is one. */
static int error_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (void *)((char *)e - NLMSG_HDRLEN);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int *err = arg;
	int len, off;

	(void)nla;
	*err = e->error < 0 ? e->error : -EPROTO;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	len = nlh->nlmsg_len - NLMSG_HDRLEN;
	off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
	if (off < len &&
	    !nla_parse(tb, NLMSGERR_ATTR_MAX, (void *)((char *)e + off),
		       len - off, NULL) &&
	    tb[NLMSGERR_ATTR_MSG])
		nla_strlcpy(ack_msg, tb[NLMSGERR_ATTR_MSG], sizeof(ack_msg));
	return NL_STOP;
}

static void nl_open(void)
{
	int one = 1, err;

	sk = nl_socket_alloc();
	if (!sk)
		oom();
	err = genl_connect(sk);
	if (err < 0) {
		fprintf(stderr, "rdsctl: netlink: %s\n", nl_geterror(err));
		exit(1);
	}
	/* Take messages of any size; ask for error messages. */
	nl_socket_enable_msg_peek(sk);
	nl_socket_disable_auto_ack(sk);
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));

	family_id = genl_ctrl_resolve(sk, RDS_DOCA_GENL_NAME);
	if (family_id < 0) {
		fputs("rds_doca module not loaded (modprobe rds_doca)\n",
		      stderr);
		exit(3);
	}
}

/* A dump ends with NLMSG_DONE, anything else with an ACK. */
static struct nl_msg *genl_request(uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!(flags & NLM_F_DUMP))
		flags |= NLM_F_ACK;
	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family_id,
				 0, flags, cmd, RDS_DOCA_GENL_VERSION))
		oom();
	return msg;
}

/*
 * Send msg (and free it), hand every reply to valid, and wait for the
 * end of the dump or the ACK.  Returns 0 or a negative errno.
 */
static int nl_request(struct nl_msg *msg, nl_recvmsg_msg_cb_t valid,
		      void *arg)
{
	struct nl_cb *cb;
	int err = 1, ret;

	*ack_msg = '\0';
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		oom();
	if (valid)
		nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid, arg);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, finish_cb, &err);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, &err);
	nl_cb_err(cb, NL_CB_CUSTOM, error_cb, &err);

	ret = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (ret < 0)
		err = nlerr_to_errno(ret);
	while (err > 0) {
		ret = nl_recvmsgs(sk, cb);
		if (ret < 0 && err > 0)
			err = nlerr_to_errno(ret);
	}
	nl_cb_put(cb);
	return err;
}

/* Is this a reply of our family? */
static bool ours(struct nl_msg *msg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	return nlh->nlmsg_type == family_id && genlmsg_valid_hdr(nlh, 0);
}

/* filters */

/* A filter: its key and the attribute it matches, read as type. */
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
	} val[MAX_FILTER_KEYS];
};

static const struct filter_key conn_keys[] = {
	{ "peer",	RDS_DOCA_A_CONN_PEER,		FT_ADDR },
	{ "laddr",	RDS_DOCA_A_CONN_LADDR,		FT_ADDR },
	{ "transport",	RDS_DOCA_A_CONN_TRANSPORT,	FT_STR },
	{ "state",	RDS_DOCA_A_CONN_STATE,		FT_CONN_STATE },
	{ NULL }
};

/* conn drop: the attributes it sends, the first one required */
static const struct filter_key drop_keys[] = {
	{ "peer",	RDS_DOCA_A_CONN_PEER,		FT_ADDR },
	{ "laddr",	RDS_DOCA_A_CONN_LADDR,		FT_ADDR },
	{ "transport",	RDS_DOCA_A_CONN_TRANSPORT,	FT_STR },
	{ NULL }
};

static const struct filter_key sock_keys[] = {
	{ "addr",	RDS_DOCA_A_SOCK_ADDR,		FT_ADDR },
	{ "port",	RDS_DOCA_A_SOCK_PORT,		FT_U16 },
	{ "transport",	RDS_DOCA_A_SOCK_TRANSPORT,	FT_STR },
	{ NULL }
};

static const struct filter_key mr_keys[] = {
	{ "sock",	RDS_DOCA_A_MR_SOCK_ID,		FT_U32 },
	{ NULL }
};

static const struct filter_key dev_keys[] = {
	{ "name",	RDS_DOCA_A_DEV_NAME,		FT_STR },
	{ NULL }
};

/* dma set: the settings it sends, at least one */
static const struct filter_key dma_set_keys[] = {
	{ "mode",	RDS_DOCA_A_INFO_DMA_MODE,	FT_DMA_MODE },
	{ "send-min",	RDS_DOCA_A_INFO_DMA_SEND_MIN,	FT_BYTES },
	{ "recv-min",	RDS_DOCA_A_INFO_DMA_RECV_MIN,	FT_BYTES },
	{ "rdma-min",	RDS_DOCA_A_INFO_DMA_RDMA_MIN,	FT_BYTES },
	{ NULL }
};

/*
 * A byte count: decimal digits, optionally followed by k or m (KiB, MiB);
 * false unless it fits in a u32.
 */
static bool parse_bytes(const char *arg, uint64_t *val)
{
	unsigned long long n;
	uint64_t mult = 1;
	char *end;

	if (*arg < '0' || *arg > '9')
		return false;
	errno = 0;
	n = strtoull(arg, &end, 10);
	if (errno)
		return false;
	if (*end == 'k' || *end == 'K')
		mult = 1024;
	else if (*end == 'm' || *end == 'M')
		mult = 1024 * 1024;
	if (mult > 1)
		end++;
	if (*end || n > 0xffffffffULL / mult)
		return false;
	*val = n * mult;
	return true;
}

static void parse_value(const char *what, const struct filter_key *k,
			const char *arg, struct filters *f, int i)
{
	struct in_addr in;
	unsigned long n;
	char *end;
	int state, mode;

	f->val[i].set = true;
	switch (k->type) {
	case FT_ADDR:
		if (inet_pton(AF_INET, arg, &in) != 1)
			usage_error("%s: %s: invalid IPv4 address \"%s\"",
				    what, k->name, arg);
		f->val[i].num = in.s_addr;
		break;
	case FT_U16:
	case FT_U32:
		errno = 0;
		n = strtoul(arg, &end, 0);
		if (errno || end == arg || *end || *arg == '-' ||
		    n > (k->type == FT_U16 ? 0xffffUL : 0xffffffffUL))
			usage_error("%s: %s: invalid number \"%s\"",
				    what, k->name, arg);
		f->val[i].num = n;
		break;
	case FT_CONN_STATE:
		state = conn_state_from_name(arg);
		if (state < 0)
			usage_error("%s: state must be up, down or connecting",
				    what);
		f->val[i].num = state;
		break;
	case FT_DMA_MODE:
		mode = dma_mode_from_name(arg);
		if (mode < 0)
			usage_error("%s: mode must be auto or off", what);
		f->val[i].num = mode;
		break;
	case FT_BYTES:
		if (!parse_bytes(arg, &f->val[i].num))
			usage_error("%s: %s: invalid byte count \"%s\" (0..4294967295, k or m suffix)",
				    what, k->name, arg);
		break;
	default:
		f->val[i].str = arg;
		break;
	}
}

/* KEY VALUE pairs; a key given twice keeps its last value. */
static void parse_filters(const char *what, int argc, char **argv,
			  const struct filter_key *keys, struct filters *f)
{
	const char *names[MAX_FILTER_KEYS + 1];
	int i, n;

	memset(f, 0, sizeof(*f));
	f->keys = keys;
	for (n = 0; keys[n].name; n++)
		names[n] = keys[n].name;
	names[n] = NULL;

	for (; argc > 0; argc -= 2, argv += 2) {
		i = lookup(argv[0], names);
		if (i < 0)
			usage_error("%s: %s argument \"%s\"", what,
				    i == -2 ? "ambiguous" : "unknown",
				    argv[0]);
		if (argc < 2)
			usage_error("%s: %s needs a value", what,
				    keys[i].name);
		parse_value(what, &keys[i], argv[1], f, i);
	}
}

static bool filters_match(const struct filters *f, struct nlattr **tb)
{
	const struct filter_key *k;
	char str[256];
	uint64_t v;
	int i;

	for (i = 0, k = f->keys; k->name; i++, k++) {
		if (!f->val[i].set)
			continue;
		if (k->type == FT_STR) {
			if (!attr_str(tb[k->attr], str, sizeof(str)) ||
			    strcmp(str, f->val[i].str))
				return false;
		} else if (!attr_uint(tb[k->attr], k->type, &v) ||
			   v != f->val[i].num) {
			return false;
		}
	}
	return true;
}

/* commands */

enum { CMD_SHOW, CMD_LIST };

/*
 * The command after the object: an index in cmds[] (which starts with
 * "show", "list"), consumed; CMD_SHOW when there is none or when the next
 * word is no command, taken then as the first filter.
 */
static int get_command(const char *object, int *argc, char ***argv,
		       const char *const *cmds)
{
	int i;

	if (!*argc)
		return CMD_SHOW;
	i = lookup(**argv, cmds);
	if (i == -2)
		usage_error("%s: ambiguous command \"%s\"", object, **argv);
	if (i < 0)
		return CMD_SHOW;
	(*argc)--;
	(*argv)++;
	return i == CMD_LIST ? CMD_SHOW : i;
}

static void no_args(const char *what, int argc, char **argv)
{
	if (argc)
		usage_error("%s: unexpected argument \"%s\"", what, argv[0]);
}

struct show_ctx {
	const struct object_type *type;
	const struct filters *filters;
};

/* Send @msg and wait for its answers; 1 after saying why it failed. */
static int request(const char *what, struct nl_msg *msg,
		   nl_recvmsg_msg_cb_t valid, void *arg)
{
	int err = nl_request(msg, valid, arg);

	if (err) {
		report(what, err);
		return 1;
	}
	return 0;
}

/* An answer of ours goes to the printer in @arg. */
static int print_cb(struct nl_msg *msg, void *arg)
{
	int (*print)(struct nlmsghdr *nlh) = arg;

	if (ours(msg))
		print(nlmsg_hdr(msg));
	return NL_OK;
}

/* Put the attributes of the keys that were given into @msg. */
static void put_filters(struct nl_msg *msg, const struct filter_key *keys,
			const struct filters *f)
{
	const struct filter_key *k;
	int i, ret;

	for (i = 0, k = keys; k->name; i++, k++) {
		if (!f->val[i].set)
			continue;
		if (k->type == FT_STR)
			ret = nla_put_string(msg, k->attr, f->val[i].str);
		else if (k->type == FT_DMA_MODE)
			ret = nla_put_u8(msg, k->attr, f->val[i].num);
		else
			ret = nla_put_u32(msg, k->attr, f->val[i].num);
		if (ret < 0)
			oom();
	}
}

static int show_cb(struct nl_msg *msg, void *arg)
{
	struct show_ctx *ctx = arg;
	struct nlattr *tb[RDSCTL_TB_SIZE];

	if (!ours(msg) || obj_parse(ctx->type, nlmsg_hdr(msg), tb) < 0)
		return NL_SKIP;
	if (filters_match(ctx->filters, tb))
		obj_print(ctx->type, nlmsg_hdr(msg), tb, opt.details);
	return NL_OK;
}

/* Dump every object of a type, print those the filters let through. */
static int show(const char *what, uint8_t cmd, const struct object_type *type,
		const struct filters *filters)
{
	struct show_ctx ctx = { type, filters };
	int err;

	nl_open();
	pr_list_start();
	err = request(what, genl_request(cmd, NLM_F_DUMP), show_cb, &ctx);
	pr_list_end();
	return err;
}

static int conn_drop(int argc, char **argv)
{
	struct filters f;
	struct nl_msg *msg;
	int err;

	parse_filters("conn drop", argc, argv, drop_keys, &f);
	if (!f.val[0].set)
		usage_error("conn drop: peer ADDR is required");

	nl_open();
	msg = genl_request(RDS_DOCA_CMD_CONN_DROP, 0);
	put_filters(msg, drop_keys, &f);
	err = nl_request(msg, NULL, NULL);
	if (err == -ENOENT) {
		fputs("rdsctl: conn drop: no such connection\n", stderr);
		return 1;
	}
	if (err) {
		report("conn drop", err);
		return 1;
	}
	return 0;
}

static int cmd_conn(int argc, char **argv)
{
	static const char *const cmds[] = { "show", "list", "drop", NULL };
	struct filters f;

	if (get_command("conn", &argc, &argv, cmds) != CMD_SHOW)
		return conn_drop(argc, argv);
	parse_filters("conn show", argc, argv, conn_keys, &f);
	return show("conn show", RDS_DOCA_CMD_CONN_GET, &conn_type, &f);
}

/* OBJECT [show|list] [FILTERS] for an object that only shows. */
static int show_only(const char *object, int argc, char **argv, uint8_t cmd,
		     const struct object_type *type,
		     const struct filter_key *keys)
{
	static const char *const cmds[] = { "show", "list", NULL };
	char what[32];
	struct filters f;

	snprintf(what, sizeof(what), "%s show", object);
	get_command(object, &argc, &argv, cmds);
	parse_filters(what, argc, argv, keys, &f);
	return show(what, cmd, type, &f);
}

static int cmd_sock(int argc, char **argv)
{
	return show_only("sock", argc, argv, RDS_DOCA_CMD_SOCK_GET, &sock_type,
			 sock_keys);
}

static int cmd_mr(int argc, char **argv)
{
	return show_only("mr", argc, argv, RDS_DOCA_CMD_MR_GET, &mr_type,
			 mr_keys);
}

static int cmd_dev(int argc, char **argv)
{
	return show_only("dev", argc, argv, RDS_DOCA_CMD_DEV_GET, &dev_type,
			 dev_keys);
}

static int cmd_stats(int argc, char **argv)
{
	static const char *const cmds[] = { "show", "list", "reset", NULL };
	bool reset;

	reset = get_command("stats", &argc, &argv, cmds) != CMD_SHOW;
	no_args(reset ? "stats reset" : "stats show", argc, argv);

	nl_open();
	if (reset)
		return request("stats reset",
			       genl_request(RDS_DOCA_CMD_STATS_RESET, 0),
			       NULL, NULL);
	return request("stats show", genl_request(RDS_DOCA_CMD_STATS_GET, 0),
		       print_cb, print_stats);
}

static int cmd_info(int argc, char **argv)
{
	static const char *const cmds[] = { "show", "list", NULL };

	get_command("info", &argc, &argv, cmds);
	no_args("info", argc, argv);

	nl_open();
	return request("info", genl_request(RDS_DOCA_CMD_INFO_GET, 0),
		       print_cb, print_info);
}

static int dma_set(int argc, char **argv)
{
	struct filters f;
	struct nl_msg *msg;
	bool any = false;
	int i;

	parse_filters("dma set", argc, argv, dma_set_keys, &f);
	for (i = 0; dma_set_keys[i].name; i++)
		any |= f.val[i].set;
	if (!any)
		usage_error("dma set: one of mode, send-min, recv-min, rdma-min is required");

	nl_open();
	msg = genl_request(RDS_DOCA_CMD_SET, 0);
	put_filters(msg, dma_set_keys, &f);
	return request("dma set", msg, NULL, NULL);
}

static int cmd_dma(int argc, char **argv)
{
	static const char *const cmds[] = { "show", "list", "set", NULL };

	if (get_command("dma", &argc, &argv, cmds) != CMD_SHOW)
		return dma_set(argc, argv);
	no_args("dma show", argc, argv);

	nl_open();
	return request("dma show", genl_request(RDS_DOCA_CMD_INFO_GET, 0),
		       print_cb, print_dma);
}

static int event_cb(struct nl_msg *msg, void *arg)
{
	(void)arg;
	if (ours(msg))
		print_event(nlmsg_hdr(msg), opt.details);
	return NL_OK;
}

/* Print events until SIGINT or SIGTERM. */
static int cmd_monitor(int argc, char **argv)
{
	struct pollfd pfd[2];
	sigset_t mask;
	int grp, err;

	no_args("monitor", argc, argv);

	nl_open();
	grp = genl_ctrl_resolve_grp(sk, RDS_DOCA_GENL_NAME,
				    RDS_DOCA_GENL_MCGRP_EVENTS);
	if (grp < 0) {
		fprintf(stderr, "rdsctl: monitor: no \"%s\" group: %s\n",
			RDS_DOCA_GENL_MCGRP_EVENTS, nl_geterror(grp));
		return 1;
	}
	err = nl_socket_add_membership(sk, grp);
	if (err < 0) {
		fprintf(stderr, "rdsctl: monitor: %s\n", nl_geterror(err));
		return 1;
	}
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, event_cb, NULL);
	nl_socket_set_nonblocking(sk);

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	pfd[0].fd = nl_socket_get_fd(sk);
	pfd[0].events = POLLIN;
	pfd[1].fd = signalfd(-1, &mask, SFD_CLOEXEC);
	pfd[1].events = POLLIN;
	if (pfd[1].fd < 0) {
		perror("rdsctl: monitor: signalfd");
		return 1;
	}

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("rdsctl: monitor: poll");
			return 1;
		}
		if (pfd[1].revents)
			return 0;
		if (!pfd[0].revents)
			continue;
		err = nl_recvmsgs_default(sk);
		if (err == -NLE_NOMEM) {
			/* ENOBUFS: the socket overflowed */
			fputs("rdsctl: monitor: events lost\n", stderr);
		} else if (err < 0 && err != -NLE_AGAIN) {
			fprintf(stderr, "rdsctl: monitor: %s\n",
				nl_geterror(err));
			return 1;
		}
	}
}

static int info_family_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[RDSCTL_TB_SIZE];
	uint64_t v;

	if (ours(msg) && obj_parse(&info_type, nlmsg_hdr(msg), tb) >= 0 &&
	    attr_uint(tb[RDS_DOCA_A_INFO_FAMILY], FT_U32, &v) && v <= INT_MAX)
		*(int *)arg = v;
	return NL_OK;
}

/* The module's address family: from its info, else from sysfs. */
static int module_family(void)
{
	int family = -1;

	nl_request(genl_request(RDS_DOCA_CMD_INFO_GET, 0), info_family_cb,
		   &family);
	if (family > 0)
		return family;
	return rds_doca_family();
}

static int cmd_ping(int argc, char **argv)
{
	struct ping_opts po;

	ping_parse(argc, argv, &po);
	nl_open();
	return ping_run(&po, module_family());
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} objects[] = {
	{ "conn",	cmd_conn },
	{ "sock",	cmd_sock },
	{ "mr",		cmd_mr },
	{ "dev",	cmd_dev },
	{ "stats",	cmd_stats },
	{ "info",	cmd_info },
	{ "dma",	cmd_dma },
	{ "monitor",	cmd_monitor },
	{ "ping",	cmd_ping },
};

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json",	no_argument, NULL, 'j' },
		{ "pretty",	no_argument, NULL, 'p' },
		{ "details",	no_argument, NULL, 'd' },
		{ "help",	no_argument, NULL, 'h' },
		{ "version",	no_argument, NULL, 'V' },
		{ NULL }
	};
	const char *names[ARRAY_SIZE(objects) + 1];
	size_t n;
	int c, i;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+jpdhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt.json = true;
			break;
		case 'p':
			opt.json = true;
			opt.pretty = true;
			break;
		case 'd':
			opt.details = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			printf("rdsctl %s (generic netlink family %s, version %d)\n",
			       RDSCTL_VERSION, RDS_DOCA_GENL_NAME,
			       RDS_DOCA_GENL_VERSION);
			return 0;
		default:
			if (strncmp(argv[optind - 1], "--", 2))
				usage_error("invalid option -- '%c'", optopt);
			usage_error("invalid option \"%s\"", argv[optind - 1]);
		}
	}
	argc -= optind;
	argv += optind;
	if (!argc)
		usage_error("no object given");

	for (n = 0; n < ARRAY_SIZE(objects); n++)
		names[n] = objects[n].name;
	names[n] = NULL;
	i = lookup(argv[0], names);
	if (i < 0)
		usage_error("%s object \"%s\"",
			    i == -2 ? "ambiguous" : "unknown", argv[0]);

	pr_init(stdout, opt.json, opt.pretty);
	return objects[i].fn(argc - 1, argv + 1);
}
