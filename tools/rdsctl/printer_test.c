// SPDX-License-Identifier: GPL-2.0-only
/*
 * printer_test: checks rdsctl's attribute parsing and printing without a
 * kernel.  Messages of the rds_doca family are built in memory with libnl,
 * printed into a memory stream and compared with the expected output.
 * Covers unknown attributes (ignored), missing and short ones (left out
 * of JSON, "-" in text), repeated attributes, JSON escaping and each
 * kind of value.
 * Prints TAP; exits non-zero if a check failed.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>
#include <linux/rds_doca.h>

#include "printer.h"
#include "rdsctl.h"

#define TEST_FAMILY	0x20		/* any generic netlink family id */
#define UNKNOWN_ATTR	200		/* beyond every attribute set */

static FILE *stream;
static char *buf;
static size_t len;
static int tests, failed;

static void capture(bool json, bool pretty)
{
	stream = open_memstream(&buf, &len);
	if (!stream) {
		perror("open_memstream");
		exit(1);
	}
	pr_init(stream, json, pretty);
}

/* Compare what was printed since capture() with want. */
static void check(const char *name, const char *want)
{
	fclose(stream);
	tests++;
	if (!strcmp(buf, want)) {
		printf("ok %d - %s\n", tests, name);
	} else {
		failed++;
		printf("not ok %d - %s\n# want: %s# got:  %s", tests, name,
		       want, buf);
	}
	free(buf);
}

static struct nl_msg *new_msg(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, TEST_FAMILY,
				 0, 0, cmd, RDS_DOCA_GENL_VERSION)) {
		fputs("cannot build a message\n", stderr);
		exit(1);
	}
	return msg;
}

static uint32_t addr(const char *s)
{
	struct in_addr in;

	inet_pton(AF_INET, s, &in);
	return in.s_addr;
}

static void print_obj(const struct object_type *type, struct nl_msg *msg,
		      bool details)
{
	struct nlattr *tb[RDSCTL_TB_SIZE];

	if (obj_parse(type, nlmsg_hdr(msg), tb) < 0) {
		fputs("parse failed\n", stderr);
		exit(1);
	}
	obj_print(type, nlmsg_hdr(msg), tb, details);
}

/* An up connection with no device, no counters and extra attributes. */
static struct nl_msg *conn_msg(uint8_t cmd)
{
	struct nl_msg *msg = new_msg(cmd);
	uint16_t short_attr = 5;

	nla_put_u32(msg, RDS_DOCA_A_CONN_ID, 7);
	nla_put_u32(msg, RDS_DOCA_A_CONN_LADDR, addr("192.0.2.1"));
	nla_put_u32(msg, RDS_DOCA_A_CONN_PEER, addr("192.0.2.2"));
	nla_put_string(msg, RDS_DOCA_A_CONN_TRANSPORT, "ib");
	nla_put_u8(msg, RDS_DOCA_A_CONN_PATH, 1);
	nla_put_u8(msg, RDS_DOCA_A_CONN_STATE, RDS_DOCA_CONN_STATE_UP);
	nla_put_u8(msg, RDS_DOCA_A_CONN_PORT, 1);
	nla_put_u64(msg, RDS_DOCA_A_CONN_NEXT_TX_SEQ, 1ULL << 32);
	nla_put_s32(msg, RDS_DOCA_A_CONN_LAST_ERROR, -110);
	/* too short for a u32: shown as missing */
	nla_put(msg, RDS_DOCA_A_CONN_QPN, sizeof(short_attr), &short_attr);
	nla_put_u32(msg, UNKNOWN_ATTR, 0xdead);
	return msg;
}

static void test_conn(void)
{
	struct nl_msg *msg = conn_msg(RDS_DOCA_CMD_CONN_GET);

	capture(true, false);
	pr_list_start();
	print_obj(&conn_type, msg, false);
	pr_list_end();
	check("conn: JSON, unknown, short and missing attributes",
	      "[{\"id\":7,\"laddr\":\"192.0.2.1\",\"peer\":\"192.0.2.2\","
	      "\"transport\":\"ib\",\"path\":1,\"state\":\"up\",\"port\":1,"
	      "\"next_tx_seq\":4294967296,\"last_error\":-110}]\n");

	capture(false, false);
	pr_list_start();
	print_obj(&conn_type, msg, false);
	print_obj(&conn_type, msg, false);
	pr_list_end();
	check("conn: text table",
	      "ID LADDR     PEER      TRANSPORT PATH TOS STATE DEV PORT "
	      "SEND_QUEUE RETRANS CONNECTS LAST_ERROR\n"
	      "7  192.0.2.1 192.0.2.2 ib        1    -   up    -   1    "
	      "-          -       -        -110\n"
	      "7  192.0.2.1 192.0.2.2 ib        1    -   up    -   1    "
	      "-          -       -        -110\n");

	capture(true, true);
	pr_list_start();
	pr_list_end();
	check("conn: empty list", "[]\n");
	nlmsg_free(msg);
}

static void test_sock(void)
{
	struct nl_msg *msg = new_msg(RDS_DOCA_CMD_SOCK_GET);

	nla_put_u32(msg, RDS_DOCA_A_SOCK_ID, 3);
	nla_put_u16(msg, RDS_DOCA_A_SOCK_PORT, 4000);
	nla_put_string(msg, RDS_DOCA_A_SOCK_TRANSPORT, "a\"b\\c\n\x01");
	nla_put_flag(msg, RDS_DOCA_A_SOCK_CONG_MONITOR);

	capture(true, true);
	pr_list_start();
	print_obj(&sock_type, msg, false);
	pr_list_end();
	check("sock: pretty JSON, escaping, flags",
	      "[\n"
	      "  {\n"
	      "    \"id\": 3,\n"
	      "    \"port\": 4000,\n"
	      "    \"transport\": \"a\\\"b\\\\c\\n\\u0001\",\n"
	      "    \"congested\": false,\n"
	      "    \"cong_monitor\": true\n"
	      "  }\n"
	      "]\n");
	nlmsg_free(msg);
}

static void test_mr(void)
{
	struct nl_msg *msg = new_msg(RDS_DOCA_CMD_MR_GET);

	nla_put_u32(msg, RDS_DOCA_A_MR_KEY, 9);
	nla_put_u64(msg, RDS_DOCA_A_MR_COOKIE, 0x0000000900001000ULL);
	nla_put_u64(msg, RDS_DOCA_A_MR_LEN, 8192);
	nla_put_flag(msg, RDS_DOCA_A_MR_USE_ONCE);

	capture(true, false);
	print_obj(&mr_type, msg, false);
	check("mr: JSON cookie as a number",
	      "{\"key\":9,\"cookie\":38654709760,\"len\":8192,"
	      "\"use_once\":true,\"read_only\":false}\n");

	capture(false, false);
	pr_list_start();
	print_obj(&mr_type, msg, true);
	pr_list_end();
	check("mr: text with details",
	      "KEY COOKIE             LEN  PAGES SOCK_ID TRANSPORT PEER "
	      "PEER_PORT USE_ONCE READ_ONLY\n"
	      "9   0x0000000900001000 8192 -     -       -         -    "
	      "-         yes      no\n");
	nlmsg_free(msg);
}

static void test_dev(void)
{
	static const uint8_t gid[16] = {
		0xfe, 0x80, 0, 0, 0, 0, 0, 0,
		0x02, 0x02, 0xc9, 0xff, 0xfe, 0x00, 0x00, 0x01,
	};
	struct nl_msg *msg = new_msg(RDS_DOCA_CMD_DEV_GET);

	nla_put_string(msg, RDS_DOCA_A_DEV_NAME, "rxe0");
	nla_put_u8(msg, RDS_DOCA_A_DEV_PROTOCOL, RDS_DOCA_DEV_PROTO_ROCE);
	nla_put_u8(msg, RDS_DOCA_A_DEV_STATE, 4);
	nla_put(msg, RDS_DOCA_A_DEV_GID, sizeof(gid), gid);
	nla_put_u8(msg, RDS_DOCA_A_DEV_ATOMIC_CAP, 1);
	nla_put_u8(msg, RDS_DOCA_A_DEV_MASKED_ATOMIC_CAP, 7);
	nla_put_u32(msg, RDS_DOCA_A_DEV_CAPS, RDS_DOCA_DEV_CAP_SEND |
		    RDS_DOCA_DEV_CAP_RDMA_READ | RDS_DOCA_DEV_CAP_MR_SG_GAPS |
		    0x100);

	capture(true, false);
	print_obj(&dev_type, msg, false);
	check("dev: JSON protocol, state, GID, atomic caps, caps",
	      "{\"name\":\"rxe0\",\"protocol\":\"roce\",\"state\":\"ACTIVE\","
	      "\"gid\":\"fe80:0000:0000:0000:0202:c9ff:fe00:0001\","
	      "\"atomic_cap\":\"hca\",\"masked_atomic_cap\":7,"
	      "\"caps\":[\"send\",\"rdma-read\",\"mr-sg-gaps\",\"0x100\"]}\n");

	capture(false, false);
	pr_list_start();
	print_obj(&dev_type, msg, false);
	pr_list_end();
	check("dev: text without details",
	      "INDEX NAME PORT PROTOCOL STATE  GID                                     "
	      "CONNS MRS\n"
	      "-     rxe0 -    roce     ACTIVE fe80:0000:0000:0000:0202:c9ff:fe00:0001 "
	      "-     -\n");
	nlmsg_free(msg);
}

static void put_counter(struct nl_msg *msg, const char *name, uint64_t val)
{
	struct nlattr *nest = nla_nest_start(msg, RDS_DOCA_A_STATS_COUNTER);

	nla_put_string(msg, RDS_DOCA_A_COUNTER_NAME, name);
	nla_put_u64(msg, RDS_DOCA_A_COUNTER_VALUE, val);
	nla_put_u32(msg, UNKNOWN_ATTR, 1);
	nla_nest_end(msg, nest);
}

static void test_stats(void)
{
	struct nl_msg *msg = new_msg(RDS_DOCA_CMD_STATS_GET);

	put_counter(msg, "tx_msgs", 12);
	nla_put_u32(msg, UNKNOWN_ATTR, 1);
	put_counter(msg, "conn_reset", 0);
	put_counter(msg, "copy_send_fallback_bytes", 1ULL << 40);

	capture(true, false);
	print_stats(nlmsg_hdr(msg));
	check("stats: JSON, in order received",
	      "{\"counters\":{\"tx_msgs\":12,\"conn_reset\":0,"
	      "\"copy_send_fallback_bytes\":1099511627776}}\n");

	capture(false, false);
	print_stats(nlmsg_hdr(msg));
	check("stats: text",
	      "tx_msgs                  12\n"
	      "conn_reset               0\n"
	      "copy_send_fallback_bytes 1099511627776\n");
	nlmsg_free(msg);
}

static void test_info(void)
{
	struct nl_msg *msg = new_msg(RDS_DOCA_CMD_INFO_GET);

	nla_put_string(msg, RDS_DOCA_A_INFO_VERSION, "1.2");
	nla_put_u32(msg, RDS_DOCA_A_INFO_FAMILY, 25);
	nla_put_u32(msg, RDS_DOCA_A_INFO_SOL, 276);
	nla_put_u16(msg, RDS_DOCA_A_INFO_IB_PORT, 18635);
	nla_put_u16(msg, RDS_DOCA_A_INFO_TCP_PORT, 18636);
	nla_put_string(msg, RDS_DOCA_A_INFO_TRANSPORT, "loop");
	nla_put_string(msg, RDS_DOCA_A_INFO_TRANSPORT, "ib");

	capture(true, false);
	print_info(nlmsg_hdr(msg));
	check("info: JSON, repeated transports, no copy engine attributes",
	      "{\"version\":\"1.2\",\"family\":25,\"sol\":276,"
	      "\"ib_port\":18635,\"tcp_port\":18636,"
	      "\"transports\":[\"loop\",\"ib\"],"
	      "\"dma_channels\":[]}\n");

	capture(false, false);
	print_info(nlmsg_hdr(msg));
	check("info: text",
	      "version      1.2\n"
	      "family       25\n"
	      "sol          276\n"
	      "ib_port      18635\n"
	      "tcp_port     18636\n"
	      "wire_version -\n"
	      "transports   loop,ib\n"
	      "dma          -\n"
	      "dma_mode     -\n"
	      "dma_channels -\n"
	      "dma_send_min -\n"
	      "dma_recv_min -\n"
	      "dma_rdma_min -\n");
	nlmsg_free(msg);
}

/* The copy engine's attributes, among the others of an info reply. */
static struct nl_msg *dma_msg(uint8_t mode, const char *state)
{
	struct nl_msg *msg = new_msg(RDS_DOCA_CMD_INFO_GET);

	nla_put_string(msg, RDS_DOCA_A_INFO_VERSION, "1.2");
	nla_put_u32(msg, RDS_DOCA_A_INFO_WIRE_VERSION, 2);
	nla_put_string(msg, RDS_DOCA_A_INFO_TRANSPORT, "loopback");
	nla_put_string(msg, RDS_DOCA_A_INFO_DMA, state);
	nla_put_u8(msg, RDS_DOCA_A_INFO_DMA_MODE, mode);
	nla_put_u32(msg, RDS_DOCA_A_INFO_DMA_SEND_MIN, 65536);
	nla_put_u32(msg, RDS_DOCA_A_INFO_DMA_RECV_MIN, 0xffffffff);
	nla_put_u32(msg, RDS_DOCA_A_INFO_DMA_RDMA_MIN, 0);
	nla_put_u32(msg, UNKNOWN_ATTR, 1);
	return msg;
}

static void test_dma(void)
{
	struct nl_msg *msg = dma_msg(RDS_DOCA_DMA_AUTO, "engine");
	struct nl_msg *off = dma_msg(RDS_DOCA_DMA_OFF, "off");
	struct nl_msg *odd = dma_msg(7, "cpu");

	nla_put_string(msg, RDS_DOCA_A_INFO_DMA_CHANNEL, "dma0chan0");
	nla_put_string(msg, RDS_DOCA_A_INFO_DMA_CHANNEL, "dma1chan3");

	capture(true, false);
	print_dma(nlmsg_hdr(msg));
	check("dma: JSON, mode, channels, thresholds",
	      "{\"dma\":\"engine\",\"dma_mode\":\"auto\","
	      "\"dma_channels\":[\"dma0chan0\",\"dma1chan3\"],"
	      "\"dma_send_min\":65536,\"dma_recv_min\":4294967295,"
	      "\"dma_rdma_min\":0}\n");

	capture(false, false);
	print_dma(nlmsg_hdr(msg));
	check("dma: text",
	      "dma          engine\n"
	      "dma_mode     auto\n"
	      "dma_channels dma0chan0,dma1chan3\n"
	      "dma_send_min 65536\n"
	      "dma_recv_min 4294967295\n"
	      "dma_rdma_min 0\n");

	capture(true, true);
	print_dma(nlmsg_hdr(off));
	check("dma: pretty JSON, mode off, no channel",
	      "{\n"
	      "  \"dma\": \"off\",\n"
	      "  \"dma_mode\": \"off\",\n"
	      "  \"dma_channels\": [],\n"
	      "  \"dma_send_min\": 65536,\n"
	      "  \"dma_recv_min\": 4294967295,\n"
	      "  \"dma_rdma_min\": 0\n"
	      "}\n");

	capture(false, false);
	print_dma(nlmsg_hdr(odd));
	check("dma: text, unknown mode as a number, no channel",
	      "dma          cpu\n"
	      "dma_mode     7\n"
	      "dma_channels -\n"
	      "dma_send_min 65536\n"
	      "dma_recv_min 4294967295\n"
	      "dma_rdma_min 0\n");

	capture(true, false);
	print_info(nlmsg_hdr(msg));
	check("info: JSON with the copy engine",
	      "{\"version\":\"1.2\",\"wire_version\":2,"
	      "\"transports\":[\"loopback\"],\"dma\":\"engine\","
	      "\"dma_mode\":\"auto\","
	      "\"dma_channels\":[\"dma0chan0\",\"dma1chan3\"],"
	      "\"dma_send_min\":65536,\"dma_recv_min\":4294967295,"
	      "\"dma_rdma_min\":0}\n");

	capture(false, false);
	print_info(nlmsg_hdr(msg));
	check("info: text with the copy engine",
	      "version      1.2\n"
	      "family       -\n"
	      "sol          -\n"
	      "ib_port      -\n"
	      "tcp_port     -\n"
	      "wire_version 2\n"
	      "transports   loopback\n"
	      "dma          engine\n"
	      "dma_mode     auto\n"
	      "dma_channels dma0chan0,dma1chan3\n"
	      "dma_send_min 65536\n"
	      "dma_recv_min 4294967295\n"
	      "dma_rdma_min 0\n");
	nlmsg_free(msg);
	nlmsg_free(off);
	nlmsg_free(odd);
}

static void test_events(void)
{
	struct nl_msg *msg = conn_msg(RDS_DOCA_CMD_CONN_DOWN_NTF);
	struct nl_msg *dev = new_msg(RDS_DOCA_CMD_DEV_ADD_NTF);
	struct nl_msg *unknown = new_msg(RDS_DOCA_CMD_MAX + 1);

	capture(true, true);
	print_event(nlmsg_hdr(msg), false);
	check("event: JSON line even when pretty",
	      "{\"event\":\"conn-down\",\"id\":7,\"laddr\":\"192.0.2.1\","
	      "\"peer\":\"192.0.2.2\",\"transport\":\"ib\",\"path\":1,"
	      "\"state\":\"up\",\"port\":1,\"next_tx_seq\":4294967296,\"last_error\":-110}\n");

	capture(false, false);
	print_event(nlmsg_hdr(msg), false);
	check("event: conn text line",
	      "conn down 192.0.2.1 -> 192.0.2.2 ib id 7 path 1 port 1 "
	      "last_error -110\n");

	nla_put_string(dev, RDS_DOCA_A_DEV_NAME, "rxe0");
	nla_put_u32(dev, RDS_DOCA_A_DEV_INDEX, 2);
	capture(false, false);
	print_event(nlmsg_hdr(dev), false);
	print_event(nlmsg_hdr(unknown), false);
	check("event: dev text line, unknown event skipped",
	      "dev add rxe0 index 2\n");

	nlmsg_free(msg);
	nlmsg_free(dev);
	nlmsg_free(unknown);
}

int main(void)
{
	test_conn();
	test_sock();
	test_mr();
	test_dev();
	test_stats();
	test_info();
	test_dma();
	test_events();
	printf("1..%d\n", tests);
	return failed ? 1 : 0;
}
