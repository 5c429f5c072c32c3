/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * mcfab.h: the soft-fabric file layout of docs/soft-fabric.md for host-side
 * C programs (the creator, the host peer of the tests). Offsets and
 * encodings come from memchan_regs.h, generated from regmap/memchan.toml.
 */
#ifndef MCFAB_H
#define MCFAB_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../include/memchan_regs.h"

struct mcfab_geom {
	uint32_t page_size;
	uint32_t page_count;
	uint32_t max_nodes;
	uint64_t file_size;
	uint64_t node_block_size;
	uint64_t data_offset;
};

static inline uint64_t mcfab_align(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static inline uint64_t mcfab_node_block_size(uint32_t ps, uint32_t pc)
{
	return MC_SF_NODE_REGS_SIZE + mcfab_align(4ULL * pc, ps) + mcfab_align(8ULL * pc, ps);
}

static inline uint64_t mcfab_data_offset(uint32_t ps, uint32_t pc, uint32_t nodes)
{
	return mcfab_align(MC_SF_HEADER_SIZE + nodes * mcfab_node_block_size(ps, pc), ps);
}

/* PAGE_COUNT: the largest count whose data pages fit, at most MC_MAX_PAGES. */
static inline int mcfab_geometry(struct mcfab_geom *g, uint64_t size, uint32_t ps, uint32_t nodes)
{
	uint32_t pc;

	if ((size & (size - 1)) || size < MC_SF_MIN_FILE_SIZE || (ps != 4096 && ps != 8192) ||
	    nodes < 2 || nodes > MC_MAX_NODES)
		return -EINVAL;
	for (pc = MC_MAX_PAGES; pc > 0; pc--)
		if (mcfab_data_offset(ps, pc, nodes) + (uint64_t)pc * ps <= size)
			break;
	if (pc <= MC_SYS_PAGES)
		return -EINVAL;
	g->page_size = ps;
	g->page_count = pc;
	g->max_nodes = nodes;
	g->file_size = size;
	g->node_block_size = mcfab_node_block_size(ps, pc);
	g->data_offset = mcfab_data_offset(ps, pc, nodes);
	return 0;
}

#define MCFAB_U32(base, off) (*(volatile uint32_t *)((char *)(base) + (off)))
#define MCFAB_U64(base, off) (*(volatile uint64_t *)((char *)(base) + (off)))

static inline char *mcfab_node(void *fab, const struct mcfab_geom *g, uint32_t node)
{
	return (char *)fab + MC_SF_HEADER_SIZE + (uint64_t)node * g->node_block_size;
}

static inline volatile uint32_t *mcfab_tx_pct(void *fab, const struct mcfab_geom *g,
					      uint32_t node, uint32_t page)
{
	return (volatile uint32_t *)(mcfab_node(fab, g, node) + MC_SF_NODE_TX_PCT + 4ULL * page);
}

static inline volatile uint64_t *mcfab_rx_pct(void *fab, const struct mcfab_geom *g,
					      uint32_t node, uint32_t page)
{
	return (volatile uint64_t *)(mcfab_node(fab, g, node) + MC_SF_NODE_TX_PCT +
				     mcfab_align(4ULL * g->page_count, g->page_size) + 8ULL * page);
}

static inline char *mcfab_page(void *fab, const struct mcfab_geom *g, uint32_t page)
{
	return (char *)fab + g->data_offset + (uint64_t)page * g->page_size;
}

/*
 * Validate an open file's header as docs/soft-fabric.md requires, before
 * anything is written. Returns 0 and fills g, or -1 with a message in err.
 */
static inline int mcfab_validate(const void *hdr, uint64_t real_size, struct mcfab_geom *g,
				 char *err, size_t errlen)
{
	struct mcfab_geom want;
	uint32_t ps = MCFAB_U32(hdr, MC_SF_HDR_PAGE_SIZE);
	uint32_t pc = MCFAB_U32(hdr, MC_SF_HDR_PAGE_COUNT);
	uint32_t nodes = MCFAB_U32(hdr, MC_SF_HDR_MAX_NODES);
	uint64_t size = MCFAB_U64(hdr, MC_SF_HDR_FILE_SIZE);

#define MCFAB_FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)
	if (MCFAB_U64(hdr, MC_SF_HDR_MAGIC) != MC_SF_MAGIC)
		MCFAB_FAIL("MAGIC");
	if (MCFAB_U32(hdr, MC_SF_HDR_VERSION) != MC_SF_VERSION)
		MCFAB_FAIL("VERSION");
	if (MCFAB_U32(hdr, MC_SF_HDR_HEADER_SIZE) != MC_SF_HEADER_SIZE)
		MCFAB_FAIL("HEADER_SIZE");
	if (ps != 4096 && ps != 8192)
		MCFAB_FAIL("PAGE_SIZE");
	if (nodes < 2 || nodes > MC_MAX_NODES)
		MCFAB_FAIL("MAX_NODES");
	if (size != real_size || (size & (size - 1)))
		MCFAB_FAIL("FILE_SIZE");
	if (pc == 0 || pc > MC_MAX_PAGES)
		MCFAB_FAIL("PAGE_COUNT");
	if (MCFAB_U64(hdr, MC_SF_HDR_NODE_AREA_OFFSET) != MC_SF_HEADER_SIZE)
		MCFAB_FAIL("NODE_AREA_OFFSET");
	want.node_block_size = mcfab_node_block_size(ps, pc);
	want.data_offset = mcfab_data_offset(ps, pc, nodes);
	if (MCFAB_U64(hdr, MC_SF_HDR_NODE_BLOCK_SIZE) != want.node_block_size)
		MCFAB_FAIL("NODE_BLOCK_SIZE");
	if (MCFAB_U64(hdr, MC_SF_HDR_DATA_OFFSET) != want.data_offset)
		MCFAB_FAIL("DATA_OFFSET");
	if (want.data_offset + (uint64_t)pc * ps > size)
		MCFAB_FAIL("PAGE_COUNT (data pages do not fit)");
	if (MCFAB_U32(hdr, MC_SF_HDR_STATE) != MC_SF_STATE_READY)
		MCFAB_FAIL("STATE");
#undef MCFAB_FAIL
	g->page_size = ps;
	g->page_count = pc;
	g->max_nodes = nodes;
	g->file_size = size;
	g->node_block_size = want.node_block_size;
	g->data_offset = want.data_offset;
	return 0;
}

#endif /* MCFAB_H */
