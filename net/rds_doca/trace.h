/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca tracepoints: the copy engine's submissions and completions
 * (events/rds_doca/ in tracefs).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rds_doca

#if !defined(_RDSD_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _RDSD_TRACE_H

#include <linux/dmaengine.h>
#include <linux/tracepoint.h>

/* An engine copy was cut into @nr descriptors; @err stopped the cutting. */
TRACE_EVENT(rdsd_dma_submit,
	    TP_PROTO(struct dma_chan *chan, size_t len, unsigned int nr,
		     int err),
	    TP_ARGS(chan, len, nr, err),
	    TP_STRUCT__entry(__field(const void *, chan)
			     __field(size_t, len)
			     __field(unsigned int, nr)
			     __field(int, err)),
	    TP_fast_assign(__entry->chan = chan;
			   __entry->len = len;
			   __entry->nr = nr;
			   __entry->err = err;),
	    TP_printk("chan=%p len=%zu descriptors=%u err=%d",
		      __entry->chan, __entry->len, __entry->nr, __entry->err)
);

/* The engine is done with a copy: 0, or why the CPU makes it again. */
TRACE_EVENT(rdsd_dma_complete,
	    TP_PROTO(struct dma_chan *chan, size_t len, int status),
	    TP_ARGS(chan, len, status),
	    TP_STRUCT__entry(__field(const void *, chan)
			     __field(size_t, len)
			     __field(int, status)),
	    TP_fast_assign(__entry->chan = chan;
			   __entry->len = len;
			   __entry->status = status;),
	    TP_printk("chan=%p len=%zu status=%d",
		      __entry->chan, __entry->len, __entry->status)
);

#endif /* _RDSD_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
