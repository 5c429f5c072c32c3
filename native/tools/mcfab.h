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

/*
 * The geometry comes from the generated mc_sf_* functions of memchan_regs.h
 * (the formulas of regmap/memchan.toml, shared with Java and the driver).
 * PAGE_COUNT: the largest count whose data pages fit, at most MC_MAX_PAGES.
 */
static inline int mcfab_geometry(struct mcfab_geom *g, uint64_t size, uint32_t ps, uint32_t nodes)
{
	if (mc_sf_geometry_problem(size, ps, nodes))
		return -EINVAL;
	g->page_size = ps;
	g->page_count = mc_sf_page_count(size, ps, nodes);
	g->max_nodes = nodes;
	g->file_size = size;
	g->node_block_size = mc_sf_node_block_size(ps, g->page_count);
	g->data_offset = mc_sf_data_offset(ps, g->page_count, nodes);
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
	return (volatile uint32_t *)(mcfab_node(fab, g, node) + MC_SF_NODE_TX_PCT +
				     (uint64_t)MC_TX_PCT_ENTRY_SIZE * page);
}

static inline volatile uint64_t *mcfab_rx_pct(void *fab, const struct mcfab_geom *g,
					      uint32_t node, uint32_t page)
{
	return (volatile uint64_t *)(mcfab_node(fab, g, node) +
				     mc_sf_rx_pct_offset(g->page_size, g->page_count) +
				     (uint64_t)MC_RX_PCT_ENTRY_SIZE * page);
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
	const char *problem;

#define MCFAB_FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)
	if (MCFAB_U64(hdr, MC_SF_HDR_MAGIC) != MC_SF_MAGIC)
		MCFAB_FAIL("MAGIC");
	if (MCFAB_U32(hdr, MC_SF_HDR_VERSION) != MC_SF_VERSION)
		MCFAB_FAIL("VERSION");
	if (MCFAB_U32(hdr, MC_SF_HDR_HEADER_SIZE) != MC_SF_HEADER_SIZE)
		MCFAB_FAIL("HEADER_SIZE");
	if (size != real_size)
		MCFAB_FAIL("FILE_SIZE");
	problem = mc_sf_geometry_problem(size, ps, nodes);
	if (problem)
		MCFAB_FAIL("%s", problem);
	if (MCFAB_U32(hdr, MC_SF_HDR_SYSTEM_PAGES) != MC_SYS_PAGES)
		MCFAB_FAIL("SYSTEM_PAGES");
	if (pc <= MC_SYS_PAGES || pc > MC_MAX_PAGES)
		MCFAB_FAIL("PAGE_COUNT");
	if (MCFAB_U64(hdr, MC_SF_HDR_NODE_AREA_OFFSET) != MC_SF_HEADER_SIZE)
		MCFAB_FAIL("NODE_AREA_OFFSET");
	want.node_block_size = mc_sf_node_block_size(ps, pc);
	want.data_offset = mc_sf_data_offset(ps, pc, nodes);
	if (MCFAB_U64(hdr, MC_SF_HDR_NODE_BLOCK_SIZE) != want.node_block_size)
		MCFAB_FAIL("NODE_BLOCK_SIZE");
	if (MCFAB_U64(hdr, MC_SF_HDR_DATA_OFFSET) != want.data_offset)
		MCFAB_FAIL("DATA_OFFSET");
	if (!mc_sf_fits(size, ps, pc, nodes))
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
