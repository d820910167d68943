// SPDX-License-Identifier: GPL-2.0-only
/*
 * rdsctl: show and control rds_doca through its generic netlink family.
 *
 *   rdsctl [OPTIONS] OBJECT [COMMAND] [ARGS]
 *
 * Objects are connections, sockets, memory regions, RDMA devices,
 * counters, module information, the copy engine, the event stream and
 * ping; see rdsctl(8).
 * This file reads the global options and hands the rest of the command
 * line to the object's command; rdsctl.h says which file does what.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/rds_doca.h>

#include "printer.h"
#include "rdsctl.h"

struct options opt;

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

void oom(void)
{
	fputs("rdsctl: out of memory\n", stderr);
	exit(1);
}

/*
 * Index of arg in names[] (NULL-terminated), which arg may abbreviate:
 * -1 if it matches nothing, -2 if it abbreviates several names.
 */
int lookup(const char *arg, const char *const *names)
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

/*
 * The command after the object: an index in cmds[] (which starts with
 * "show", "list"), consumed; CMD_SHOW when there is none or when the next
 * word is no command, taken then as the first filter.
 */
int get_command(const char *object, int *argc, char ***argv,
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

void no_args(const char *what, int argc, char **argv)
{
	if (argc)
		usage_error("%s: unexpected argument \"%s\"", what, argv[0]);
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
