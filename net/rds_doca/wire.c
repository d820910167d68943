// SPDX-License-Identifier: GPL-2.0-only
/*
 * rds_doca wire header encoding and validation.
 *
 * Encoding writes every byte of the header, reserved ones included, so no
 * kernel memory leaks onto the wire.  Validation takes a header straight
 * from a receive buffer together with the number of bytes that arrived and
 * refuses anything a correct peer cannot send: a wrong magic or version,
 * an unknown type or flag, non-zero reserved bytes, a length over the
 * message limit, a fragment that does not fit its message or the bytes
 * received, and fields that make no sense for the type.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/build_bug.h>
#include <linux/rds_doca.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "rdsd.h"
#include "wire.h"

static_assert(sizeof(struct rdsd_wire_hdr) == 64);
static_assert(offsetof(struct rdsd_wire_hdr, seq) == 8);
static_assert(offsetof(struct rdsd_wire_hdr, frag_len) == 36);
static_assert(offsetof(struct rdsd_wire_hdr, bufs) == 42);
static_assert(offsetof(struct rdsd_wire_hdr, reserved) == 44);
static_assert(offsetof(struct rdsd_wire_hdr, rdma_cookie) == 48);
static_assert(sizeof(struct rdsd_ib_cm_data) == 56);
static_assert(sizeof(struct rdsd_tcp_hello) == 48);
static_assert(sizeof(struct rdsd_wire_rdma_req) == 64);
static_assert(sizeof(struct rdsd_wire_rdma_resp) == 32);

/**
 * rdsd_wire_encode - fill @hdr from @info
 * @hdr: header to write, completely.
 * @info: the values, in host order.
 */
void rdsd_wire_encode(struct rdsd_wire_hdr *hdr,
		      const struct rdsd_wire_info *info)
{
	memset(hdr, 0, sizeof(*hdr));
	hdr->magic = cpu_to_be32(RDSD_WIRE_MAGIC);
	hdr->version = RDSD_WIRE_VERSION;
	hdr->type = info->type;
	hdr->flags = cpu_to_be16(info->flags);
	hdr->seq = cpu_to_be64(info->seq);
	hdr->ack = cpu_to_be64(info->ack);
	hdr->len = cpu_to_be32(info->len);
	hdr->frag_off = cpu_to_be32(info->frag_off);
	hdr->frag_len = cpu_to_be32(info->frag_len);
	hdr->sport = info->sport;
	hdr->dport = info->dport;
	hdr->credits = cpu_to_be16(info->credits);
	hdr->bufs = cpu_to_be16(info->bufs);
	hdr->rdma_cookie = cpu_to_be64(info->rdma_cookie);
	hdr->rdma_key = cpu_to_be32(info->rdma_key);
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_wire_encode);

/**
 * rdsd_wire_validate - check a received header and decode it
 * @hdr: the header as received.
 * @received: bytes received, header included.
 * @info: filled in when the header is valid.
 *
 * Returns 0, -EPROTO for a header this version does not speak (magic,
 * version, type, flags, reserved bytes, fields foreign to the type), or
 * -EBADMSG for lengths that do not add up.
 */
int rdsd_wire_validate(const struct rdsd_wire_hdr *hdr, size_t received,
		       struct rdsd_wire_info *info)
{
	struct rdsd_wire_info i;
	unsigned int k;

	if (received < sizeof(*hdr))
		return -EBADMSG;
	if (be32_to_cpu(hdr->magic) != RDSD_WIRE_MAGIC ||
	    hdr->version != RDSD_WIRE_VERSION)
		return -EPROTO;
	if (hdr->type == 0 || hdr->type >= __RDSD_WIRE_TYPE_MAX)
		return -EPROTO;
	for (k = 0; k < sizeof(hdr->reserved); k++)
		if (hdr->reserved[k])
			return -EPROTO;
	if (hdr->reserved2)
		return -EPROTO;

	i.type = hdr->type;
	i.flags = be16_to_cpu(hdr->flags);
	i.seq = be64_to_cpu(hdr->seq);
	i.ack = be64_to_cpu(hdr->ack);
	i.len = be32_to_cpu(hdr->len);
	i.frag_off = be32_to_cpu(hdr->frag_off);
	i.frag_len = be32_to_cpu(hdr->frag_len);
	i.sport = hdr->sport;
	i.dport = hdr->dport;
	i.credits = be16_to_cpu(hdr->credits);
	i.bufs = be16_to_cpu(hdr->bufs);
	i.rdma_cookie = be64_to_cpu(hdr->rdma_cookie);
	i.rdma_key = be32_to_cpu(hdr->rdma_key);

	if (i.flags & ~RDSD_WIRE_F_ALL)
		return -EPROTO;
	if (!(i.flags & RDSD_WIRE_F_ACK_VALID) && i.ack)
		return -EPROTO;
	if (i.frag_len != received - sizeof(*hdr))
		return -EBADMSG;
	if (i.type != RDSD_WIRE_DATA &&
	    (i.flags & (RDSD_WIRE_F_RDMA_DEST | RDSD_WIRE_F_RDMA_USED |
			RDSD_WIRE_F_SILENT)))
		return -EPROTO;
	if (i.type != RDSD_WIRE_MR_ANS && i.type != RDSD_WIRE_MR_GRANT &&
	    (i.flags & (RDSD_WIRE_F_MR_RO | RDSD_WIRE_F_MR_ONCE)))
		return -EPROTO;

	switch (i.type) {
	case RDSD_WIRE_MR_REQ:
	case RDSD_WIRE_MR_ANS:
	case RDSD_WIRE_MR_REVOKE:
	case RDSD_WIRE_MR_GRANT:
		/* one per receive buffer, no payload, no message */
		if (i.frag_off || i.frag_len)
			return -EBADMSG;
		if (i.seq ||
		    (i.flags & (RDSD_WIRE_F_LAST_FRAG | RDSD_WIRE_F_MORE)))
			return -EPROTO;
		if (i.type == RDSD_WIRE_MR_REVOKE) {
			if (i.len || i.sport || i.dport || i.rdma_key)
				return -EPROTO;
			break;
		}
		if (!i.rdma_cookie || !i.dport)
			return -EPROTO;
		if (i.type == RDSD_WIRE_MR_REQ) {
			if (i.len || i.rdma_key || !i.sport)
				return -EPROTO;
			break;
		}
		/* a grant names the region's length; a refusal nothing */
		if (i.type == RDSD_WIRE_MR_GRANT && !i.rdma_key)
			return -EPROTO;
		if (i.rdma_key ? !i.len || i.len > RDS_DOCA_MAX_MR_SIZE :
		    i.len || i.sport ||
		    (i.flags & (RDSD_WIRE_F_MR_RO | RDSD_WIRE_F_MR_ONCE)))
			return -EPROTO;
		break;
	case RDSD_WIRE_DATA:
		if (!(i.flags & RDSD_WIRE_F_RDMA_DEST) != !i.rdma_cookie ||
		    !(i.flags & RDSD_WIRE_F_RDMA_USED) != !i.rdma_key)
			return -EPROTO;
		/* no sender gets there, and the next one expected would wrap */
		if (i.seq == U64_MAX)
			return -EPROTO;
		if (i.len > RDSD_MSG_SIZE_LIMIT)
			return -EBADMSG;
		if (i.frag_off > i.len || i.frag_len > i.len - i.frag_off)
			return -EBADMSG;
		/* the last fragment, and only it, ends the message */
		if (!!(i.flags & RDSD_WIRE_F_LAST_FRAG) !=
		    (i.frag_off + i.frag_len == i.len))
			return -EBADMSG;
		/* only whole messages share a buffer */
		if ((i.flags & RDSD_WIRE_F_MORE) &&
		    (i.frag_off || i.frag_len != i.len))
			return -EPROTO;
		break;
	case RDSD_WIRE_RDMA_REQ:
	case RDSD_WIRE_RDMA_RESP:
		/* a descriptor, then a write's or a read's data, in one piece */
		k = i.type == RDSD_WIRE_RDMA_REQ ?
		    sizeof(struct rdsd_wire_rdma_req) :
		    sizeof(struct rdsd_wire_rdma_resp);
		if (i.len < k || i.len - k > RDS_DOCA_MAX_RDMA_SIZE ||
		    i.frag_off || i.frag_len != i.len)
			return -EBADMSG;
		if (i.seq || i.rdma_cookie || i.rdma_key ||
		    (i.flags & (RDSD_WIRE_F_LAST_FRAG | RDSD_WIRE_F_MORE)))
			return -EPROTO;
		/*
		 * who asks (a bound socket), and the port the operation is
		 * addressed to (the owner refuses a wrong one); an answer
		 * names neither
		 */
		if (i.type == RDSD_WIRE_RDMA_REQ ? !i.sport :
		    i.sport || i.dport)
			return -EPROTO;
		break;
	case RDSD_WIRE_CONG:
		if (i.rdma_cookie || i.rdma_key)
			return -EPROTO;
		/* a whole map, in one piece */
		if (i.len != RDSD_NR_PORTS / 8 || i.frag_off ||
		    i.frag_len != i.len)
			return -EBADMSG;
		if (i.sport || i.dport || (i.flags & RDSD_WIRE_F_MORE))
			return -EPROTO;
		break;
	default:
		/* ACK, PING, PONG carry no payload and no message */
		if (i.rdma_cookie || i.rdma_key)
			return -EPROTO;
		if (i.len || i.frag_off || i.frag_len)
			return -EBADMSG;
		if (i.seq ||
		    (i.flags & (RDSD_WIRE_F_LAST_FRAG | RDSD_WIRE_F_MORE)))
			return -EPROTO;
		break;
	}

	*info = i;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdsd_wire_validate);
