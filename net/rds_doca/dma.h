/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * rds_doca copy engine: copies of payload handed to a dmaengine DMA_MEMCPY
 * channel, with the CPU as fallback.  See dma.c.
 */
#ifndef _RDSD_DMA_H
#define _RDSD_DMA_H

#include <linux/scatterlist.h>
#include <linux/types.h>

struct iov_iter;
struct page;
struct rdsd_net;
struct sk_buff;

/* Where a copy is made; each has its own threshold and counters. */
enum rdsd_copy_dir {
	RDSD_COPY_SEND,		/* sendmsg: user pages into the message */
	RDSD_COPY_RECV,		/* recvmsg: the message into user pages */
	RDSD_COPY_RDMA,		/* loopback RDMA between two pinned buffers */
	RDSD_COPY_NR
};

/* Who made it. */
enum rdsd_copy_path {
	RDSD_COPY_ENGINE,	/* the DMA engine */
	RDSD_COPY_CPU,		/* the CPU, as chosen (threshold, no channel) */
	RDSD_COPY_FALLBACK,	/* the CPU, after the engine failed */
	RDSD_COPY_PATH_NR
};

/**
 * struct rdsd_dma_sgl - one side of an engine copy
 * @sg: entries describing the side's bytes, from its first; owned.
 * @nents: entries in @sg.
 * @pages: pinned user pages to release after the copy, or NULL.
 * @npages: pages in @pages.
 * @dirty: the copy wrote @pages.
 *
 * Built by the use point's helper in dma.c and freed by
 * rdsd_dma_sgl_release() once no engine may touch the pages.  A
 * MSG_ZEROCOPY message holds its payload's pages in one (zcopy.c).
 */
struct rdsd_dma_sgl {
	struct scatterlist	*sg;
	unsigned int		nents;
	struct page		**pages;
	unsigned int		npages;
	bool			dirty;
};

/**
 * struct rdsd_dma_chunk - one descriptor of an engine copy
 * @dst: bus address written.
 * @src: bus address read.
 * @len: bytes.
 */
struct rdsd_dma_chunk {
	u64	dst;
	u64	src;
	u32	len;
};

int rdsd_dma_init(void);
void rdsd_dma_exit(void);

int rdsd_dma_from_iter(struct rdsd_net *rn, struct scatterlist *sg,
		       unsigned int nents, struct iov_iter *from, size_t len);
int rdsd_dma_to_iter(struct rdsd_net *rn, struct scatterlist *sg,
		     unsigned int nents, struct iov_iter *to, size_t len);
int rdsd_dma_copy_pages(struct rdsd_net *rn, struct page **pages, u64 off,
			struct scatterlist *sg, unsigned int nents,
			size_t len, bool to_pages);
int rdsd_dma_sgl_pin(struct rdsd_dma_sgl *s, struct iov_iter *it, size_t len);
void rdsd_dma_sgl_release(struct rdsd_dma_sgl *s);

/* settings (netlink) */
#define RDSD_DMA_MAX_CHANS	8

/**
 * struct rdsd_dma_state - what the control plane shows
 * @enabled: mode "auto" (else "off").
 * @nr: channels held.
 * @chans: their names.
 * @min: threshold of each enum rdsd_copy_dir, bytes.
 */
struct rdsd_dma_state {
	bool	enabled;
	u32	nr;
	char	chans[RDSD_DMA_MAX_CHANS][32];
	u32	min[RDSD_COPY_NR];
};

void rdsd_dma_get_state(struct rdsd_dma_state *st);
int rdsd_dma_set(int enabled, const s64 *min);

#if IS_ENABLED(CONFIG_KUNIT)
#include <linux/dmaengine.h>

/* internals the KUnit suite reaches */
int rdsd_dma_chunks(struct scatterlist *dst, int dn, struct scatterlist *src,
		    int sn, size_t len, u32 max_chunk,
		    int (*emit)(void *arg, const struct rdsd_dma_chunk *c),
		    void *arg);
enum rdsd_copy_path rdsd_dma_decide(bool enabled, unsigned int nr, u32 min,
				    size_t len, bool *probe);
extern unsigned int rdsd_dma_timeout_ms;
int rdsd_dma_map(struct device *dev, struct scatterlist *sg,
		 unsigned int nents, enum dma_data_direction dir);
void rdsd_dma_unmap(struct device *dev, struct scatterlist *sg,
		    unsigned int nents, enum dma_data_direction dir);
struct dma_async_tx_descriptor *rdsd_dma_prep(struct dma_chan *chan,
					      dma_addr_t dst, dma_addr_t src,
					      size_t len);
dma_cookie_t rdsd_dma_submit(struct dma_async_tx_descriptor *tx);
void rdsd_dma_issue(struct dma_chan *chan);
void rdsd_dma_terminate(struct dma_chan *chan);
int rdsd_dma_engine_copy(struct dma_chan *chan, struct rdsd_dma_sgl *dst,
			 struct rdsd_dma_sgl *src, size_t len);
void rdsd_dma_cpu_copy(struct rdsd_dma_sgl *dst, struct rdsd_dma_sgl *src,
		       size_t len);
#endif

#endif /* _RDSD_DMA_H */
