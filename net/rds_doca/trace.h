/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca tracepoints (events/rds_doca/ in tracefs): connections going
 * up, down and reset, IB connection manager events and refusals, RDMA and
 * atomic operations posted and completed, cookies resolved and revoked
 * over IB, and the copy engine's submissions and completions.
 *
 * Strings are copied into fixed arrays, so the events read the same on
 * every kernel the module builds for.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rds_doca

#if !defined(_RDSD_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RDSD_TRACE_H

#include <linux/dmaengine.h>
#include <linux/tracepoint.h>
#include <linux/rds.h>

#include "rdsd.h"
#include "mr.h"
#include "transport.h"

#define RDSD_TRACE_NAME_LEN	32

TRACE_DEFINE_ENUM(RDSD_CONN_DOWN);
TRACE_DEFINE_ENUM(RDSD_CONN_CONNECTING);
TRACE_DEFINE_ENUM(RDSD_CONN_UP);

#define rdsd_show_conn_state(s)					\
	__print_symbolic(s,					\
			 { RDSD_CONN_DOWN,	 "down" },	\
			 { RDSD_CONN_CONNECTING, "connecting" },	\
			 { RDSD_CONN_UP,	 "up" })

TRACE_DEFINE_ENUM(RDSD_OP_READ);
TRACE_DEFINE_ENUM(RDSD_OP_WRITE);
TRACE_DEFINE_ENUM(RDSD_OP_FADD);
TRACE_DEFINE_ENUM(RDSD_OP_CSWP);
TRACE_DEFINE_ENUM(RDSD_OP_MASKED_FADD);
TRACE_DEFINE_ENUM(RDSD_OP_MASKED_CSWP);

#define rdsd_show_op_kind(k)					\
	__print_symbolic(k,					\
			 { RDSD_OP_READ,	"read" },	\
			 { RDSD_OP_WRITE,	"write" },	\
			 { RDSD_OP_FADD,	"fadd" },	\
			 { RDSD_OP_CSWP,	"cswp" },	\
			 { RDSD_OP_MASKED_FADD,	"masked_fadd" },	\
			 { RDSD_OP_MASKED_CSWP,	"masked_cswp" })

#define rdsd_show_op_status(s)					\
	__print_symbolic(s,					\
			 { RDS_RDMA_SUCCESS,	  "success" },	\
			 { RDS_RDMA_REMOTE_ERROR, "remote_error" },	\
			 { RDS_RDMA_CANCELED,	  "canceled" },	\
			 { RDS_RDMA_DROPPED,	  "dropped" },	\
			 { RDS_RDMA_OTHER_ERROR,  "other_error" })

TRACE_DEFINE_ENUM(RDSD_RESET_DEVICE);
TRACE_DEFINE_ENUM(RDSD_RESET_QP_EVENT);
TRACE_DEFINE_ENUM(RDSD_RESET_PEER);
TRACE_DEFINE_ENUM(RDSD_RESET_DROP);
TRACE_DEFINE_ENUM(RDSD_RESET_POST);
TRACE_DEFINE_ENUM(RDSD_RESET_SEND_ERROR);
TRACE_DEFINE_ENUM(RDSD_RESET_RECV_ERROR);
TRACE_DEFINE_ENUM(RDSD_RESET_PROTOCOL);
TRACE_DEFINE_ENUM(RDSD_RESET_CM);

#define rdsd_show_reset_why(w)					\
	__print_symbolic(w,					\
			 { RDSD_RESET_DEVICE,	  "device_removal" },	\
			 { RDSD_RESET_QP_EVENT,	  "qp_event" },	\
			 { RDSD_RESET_PEER,	  "peer_reconnects" },	\
			 { RDSD_RESET_DROP,	  "dropped_by_admin" },	\
			 { RDSD_RESET_POST,	  "post_failed" },	\
			 { RDSD_RESET_SEND_ERROR, "send_error" },	\
			 { RDSD_RESET_RECV_ERROR, "recv_error" },	\
			 { RDSD_RESET_PROTOCOL,	  "protocol_error" },	\
			 { RDSD_RESET_CM,	  "cm_event" })

/* Connections ------------------------------------------------------------ */

DECLARE_EVENT_CLASS(rdsd_conn_class,
		    TP_PROTO(const struct rdsd_conn *conn, int val),
		    TP_ARGS(conn, val),
		    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct sockaddr_in6))
				     __array(u8, faddr, sizeof(struct sockaddr_in6))
				     __array(char, trans, TRANSNAMSIZ)
				     __field(int, state)
				     __field(int, val)),
		    TP_fast_assign(rdsd_trace_addr(__entry->laddr, &conn->laddr);
				   rdsd_trace_addr(__entry->faddr, &conn->faddr);
				   strscpy(__entry->trans, conn->trans->name, TRANSNAMSIZ);
				   __entry->state = READ_ONCE(conn->state);
				   __entry->val = val;),
		    TP_printk("%pISc->%pISc %s state=%s val=%d", __entry->laddr,
			      __entry->faddr, __entry->trans,
			      rdsd_show_conn_state(__entry->state), __entry->val)
);

/* The transport can carry messages; @val: times it came up before. */
DEFINE_EVENT(rdsd_conn_class, rdsd_conn_up,
	     TP_PROTO(const struct rdsd_conn *conn, int val),
	     TP_ARGS(conn, val));

/* The transport lost the path; @val: the last error, a negative errno. */
DEFINE_EVENT(rdsd_conn_class, rdsd_conn_down,
	     TP_PROTO(const struct rdsd_conn *conn, int val),
	     TP_ARGS(conn, val));

/* Nothing waits for a failed path: no attempt until a message is queued. */
DEFINE_EVENT(rdsd_conn_class, rdsd_conn_park,
	     TP_PROTO(const struct rdsd_conn *conn, int val),
	     TP_ARGS(conn, val));

/* A new path sends again what the peer did not acknowledge: @val of them. */
DEFINE_EVENT(rdsd_conn_class, rdsd_conn_requeue,
	     TP_PROTO(const struct rdsd_conn *conn, int val),
	     TP_ARGS(conn, val));

/* A transport tears its path down to reconnect, and why. */
TRACE_EVENT(rdsd_conn_reset,
	    TP_PROTO(const struct rdsd_conn *conn, int why),
	    TP_ARGS(conn, why),
	    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct sockaddr_in6))
			     __array(u8, faddr, sizeof(struct sockaddr_in6))
			     __array(char, trans, TRANSNAMSIZ)
			     __field(int, why)),
	    TP_fast_assign(rdsd_trace_addr(__entry->laddr, &conn->laddr);
			   rdsd_trace_addr(__entry->faddr, &conn->faddr);
			   strscpy(__entry->trans, conn->trans->name, TRANSNAMSIZ);
			   __entry->why = why;),
	    TP_printk("%pISc->%pISc %s why=%s", __entry->laddr, __entry->faddr,
		      __entry->trans, rdsd_show_reset_why(__entry->why))
);

/* The IB connection manager told a connection's identifier @event. */
TRACE_EVENT(rdsd_ib_cm_event,
	    TP_PROTO(const struct rdsd_conn *conn, const char *event, int status),
	    TP_ARGS(conn, event, status),
	    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct sockaddr_in6))
			     __array(u8, faddr, sizeof(struct sockaddr_in6))
			     __array(char, event, RDSD_TRACE_NAME_LEN)
			     __field(int, status)),
	    TP_fast_assign(rdsd_trace_addr(__entry->laddr, &conn->laddr);
			   rdsd_trace_addr(__entry->faddr, &conn->faddr);
			   strscpy(__entry->event, event, RDSD_TRACE_NAME_LEN);
			   __entry->status = status;),
	    TP_printk("%pISc->%pISc event=\"%s\" status=%d", __entry->laddr,
		      __entry->faddr, __entry->event, __entry->status)
);

/* The peer refused our connection request: @why, as it said it. */
TRACE_EVENT(rdsd_ib_reject,
	    TP_PROTO(const struct rdsd_conn *conn, const char *why),
	    TP_ARGS(conn, why),
	    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct sockaddr_in6))
			     __array(u8, faddr, sizeof(struct sockaddr_in6))
			     __array(char, why, 48)),
	    TP_fast_assign(rdsd_trace_addr(__entry->laddr, &conn->laddr);
			   rdsd_trace_addr(__entry->faddr, &conn->faddr);
			   strscpy(__entry->why, why, sizeof(__entry->why));),
	    TP_printk("%pISc->%pISc why=\"%s\"", __entry->laddr, __entry->faddr,
		      __entry->why)
);

/* RDMA and atomic operations ----------------------------------------------- */

DECLARE_EVENT_CLASS(rdsd_op_class,
		    TP_PROTO(const struct rdsd_op *op, int status),
		    TP_ARGS(op, status),
		    TP_STRUCT__entry(__field(u64, cookie)
				     __field(u64, raddr)
				     __field(u64, token)
				     __field(u32, bytes)
				     __field(int, kind)
				     __field(int, status)),
		    TP_fast_assign(__entry->cookie = op->cookie;
				   __entry->raddr = op->raddr;
				   __entry->token = op->token;
				   __entry->bytes = op->bytes;
				   __entry->kind = op->kind;
				   __entry->status = status;),
		    TP_printk("%s cookie=0x%llx raddr=0x%llx bytes=%u token=0x%llx status=%s",
			      rdsd_show_op_kind(__entry->kind), __entry->cookie,
			      __entry->raddr, __entry->bytes, __entry->token,
			      rdsd_show_op_status(__entry->status))
);

/* An operation is handed to a device, or executed in software. */
DEFINE_EVENT_PRINT(rdsd_op_class, rdsd_op_post,
		   TP_PROTO(const struct rdsd_op *op, int status),
		   TP_ARGS(op, status),
		   TP_printk("%s cookie=0x%llx raddr=0x%llx bytes=%u token=0x%llx",
			     rdsd_show_op_kind(__entry->kind), __entry->cookie,
			     __entry->raddr, __entry->bytes, __entry->token));

/* An operation's outcome is known, with its RDS_RDMA_* status. */
DEFINE_EVENT(rdsd_op_class, rdsd_op_complete,
	     TP_PROTO(const struct rdsd_op *op, int status),
	     TP_ARGS(op, status));

/* Cookies over IB ------------------------------------------------------------ */

DECLARE_EVENT_CLASS(rdsd_mr_class,
		    TP_PROTO(const struct rdsd_conn *conn, u64 cookie, u16 port,
			     bool granted),
		    TP_ARGS(conn, cookie, port, granted),
		    TP_STRUCT__entry(__array(u8, laddr, sizeof(struct sockaddr_in6))
				     __array(u8, faddr, sizeof(struct sockaddr_in6))
				     __field(u64, cookie)
				     __field(u16, port)
				     __field(bool, granted)),
		    TP_fast_assign(rdsd_trace_addr(__entry->laddr, &conn->laddr);
				   rdsd_trace_addr(__entry->faddr, &conn->faddr);
				   __entry->cookie = cookie;
				   __entry->port = port;
				   __entry->granted = granted;),
		    TP_printk("%pISc->%pISc cookie=0x%llx port=%u granted=%d",
			      __entry->laddr, __entry->faddr, __entry->cookie,
			      __entry->port, __entry->granted)
);

/* We ask the peer what @cookie, sent to its @port, stands for. */
DEFINE_EVENT(rdsd_mr_class, rdsd_mr_request,
	     TP_PROTO(const struct rdsd_conn *conn, u64 cookie, u16 port,
		      bool granted),
	     TP_ARGS(conn, cookie, port, granted));

/* We answer the peer's question about one of our cookies. */
DEFINE_EVENT(rdsd_mr_class, rdsd_mr_answer,
	     TP_PROTO(const struct rdsd_conn *conn, u64 cookie, u16 port,
		      bool granted),
	     TP_ARGS(conn, cookie, port, granted));

/* The peer answered our question. */
DEFINE_EVENT(rdsd_mr_class, rdsd_mr_answered,
	     TP_PROTO(const struct rdsd_conn *conn, u64 cookie, u16 port,
		      bool granted),
	     TP_ARGS(conn, cookie, port, granted));

/* A freed region's grant is revoked (cookie 0: every grant). */
DEFINE_EVENT(rdsd_mr_class, rdsd_mr_revoke,
	     TP_PROTO(const struct rdsd_conn *conn, u64 cookie, u16 port,
		      bool granted),
	     TP_ARGS(conn, cookie, port, granted));

/* The peer revoked what it granted us (cookie 0: every grant). */
DEFINE_EVENT(rdsd_mr_class, rdsd_mr_revoked,
	     TP_PROTO(const struct rdsd_conn *conn, u64 cookie, u16 port,
		      bool granted),
	     TP_ARGS(conn, cookie, port, granted));

/* The copy engine ------------------------------------------------------------ */

/* An engine copy was cut into @nr descriptors; @err stopped the cutting. */
TRACE_EVENT(rdsd_dma_submit,
	    TP_PROTO(struct dma_chan *chan, size_t len, unsigned int nr, int err),
	    TP_ARGS(chan, len, nr, err),
	    TP_STRUCT__entry(__array(char, chan, RDSD_TRACE_NAME_LEN)
			     __field(size_t, len)
			     __field(unsigned int, nr)
			     __field(int, err)),
	    TP_fast_assign(strscpy(__entry->chan, dma_chan_name(chan),
				   RDSD_TRACE_NAME_LEN);
			   __entry->len = len;
			   __entry->nr = nr;
			   __entry->err = err;),
	    TP_printk("chan=%s len=%zu descriptors=%u err=%d", __entry->chan,
		      __entry->len, __entry->nr, __entry->err)
);

/* The engine is done with a copy: 0, or why the CPU makes it again. */
TRACE_EVENT(rdsd_dma_complete,
	    TP_PROTO(struct dma_chan *chan, size_t len, int status),
	    TP_ARGS(chan, len, status),
	    TP_STRUCT__entry(__array(char, chan, RDSD_TRACE_NAME_LEN)
			     __field(size_t, len)
			     __field(int, status)),
	    TP_fast_assign(strscpy(__entry->chan, dma_chan_name(chan),
				   RDSD_TRACE_NAME_LEN);
			   __entry->len = len;
			   __entry->status = status;),
	    TP_printk("chan=%s len=%zu status=%d", __entry->chan, __entry->len,
		      __entry->status)
);

#endif /* _RDSD_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
