// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdsctl's filters: the KEY VALUE pairs after a command, parsed against
 * the keys the command takes, matched against dumped objects, or sent
 * as the attributes of a request.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdsctl.h"

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
	unsigned long n;
	char *end;
	int val;

	f->val[i].set = true;
	switch (k->type) {
	case FT_ADDR:
		if (!addr_parse(arg, &f->val[i].addr))
			usage_error("%s: %s: invalid address \"%s\"",
				    what, k->name, arg);
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
		val = enum_from_name(k->type, arg);
		if (val < 0)
			usage_error("%s: state must be up, down or connecting",
				    what);
		f->val[i].num = val;
		break;
	case FT_DMA_MODE:
		val = enum_from_name(k->type, arg);
		if (val < 0)
			usage_error("%s: mode must be auto or off", what);
		f->val[i].num = val;
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
void parse_filters(const char *what, int argc, char **argv,
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

/* Does the object in @tb have every value that was given? */
bool filters_match(const struct filters *f, struct nlattr **tb)
{
	const struct filter_key *k;
	struct in6_addr a;
	char str[256];
	uint64_t v;
	int i;

	for (i = 0, k = f->keys; k->name; i++, k++) {
		if (!f->val[i].set)
			continue;
		if (k->type == FT_ADDR) {
			if (!attr_addr(tb[k->attr], &a) ||
			    memcmp(&a, &f->val[i].addr, sizeof(a)))
				return false;
		} else if (k->type == FT_STR) {
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

/*
 * Send @cmd with the attributes of the keys that were given, and wait
 * for its ACK; returns as request() does.
 */
int send_filters(const char *what, const char *enoent, uint8_t cmd,
		 const struct filters *f)
{
	const struct filter_key *k;
	struct nl_msg *msg;
	int i, ret;

	nl_open();
	msg = genl_request(cmd, 0);
	for (i = 0, k = f->keys; k->name; i++, k++) {
		if (!f->val[i].set)
			continue;
		if (k->type == FT_ADDR &&
		    IN6_IS_ADDR_V4MAPPED(&f->val[i].addr))
			ret = nla_put(msg, k->attr, 4,
				      &f->val[i].addr.s6_addr32[3]);
		else if (k->type == FT_ADDR)
			ret = nla_put(msg, k->attr, sizeof(f->val[i].addr),
				      &f->val[i].addr);
		else if (k->type == FT_STR)
			ret = nla_put_string(msg, k->attr, f->val[i].str);
		else if (k->type == FT_DMA_MODE)
			ret = nla_put_u8(msg, k->attr, f->val[i].num);
		else
			ret = nla_put_u32(msg, k->attr, f->val[i].num);
		if (ret < 0)
			oom();
	}
	return request(what, enoent, msg, NULL, NULL);
}
