// SPDX-License-Identifier: GPL-2.0
/*
 * hub_test: four co-simulated adapters of one guest on the RTL hub
 * (board_hub.sh, boots board-hub and board-hub-java): node IDs by port, a
 * broadcast to every other node, point to point and multicast only to their
 * targets. board_hub.sh runs each test alone between its own steps.
 *
 *   hub_test [-l | -t TEST]
 */
#define _GNU_SOURCE
#include "mc_test.h"

MC_FIXTURE(hub)

#define HUB_NODES 4

static int hub_fd[HUB_NODES];

static void hub_open(void)
{
	char path[32];
	int k;

	for (k = 0; k < HUB_NODES; k++) {
		snprintf(path, sizeof(path), "/dev/memchan%d", k);
		hub_fd[k] = open(path, O_RDWR);
		if (hub_fd[k] < 0)
			FAIL("open %s: %s", path, strerror(errno));
	}
}

static volatile uint64_t *hub_tx(int k, uint32_t page, uint32_t entry)
{
	EXPECT_OK(grant(hub_fd[k], MEMCHAN_GRANT_TX, page, 1, entry, 0, NULL));
	return map_page(hub_fd[k], page, 1);
}

static volatile uint64_t *hub_rx(int k, uint32_t page)
{
	EXPECT_OK(grant(hub_fd[k], MEMCHAN_GRANT_RX, page, 1, 0, 0, NULL));
	return map_page(hub_fd[k], page, 0);
}

/* the hub tests' own word encoding (no shared layout): "HUB", the page, the word's index */
#define HUB_WORD_MARKER		0x4855420000000000ULL
#define HUB_WORD_PAGE_SHIFT	16

static uint64_t hub_word(uint32_t page, uint32_t i)
{
	return HUB_WORD_MARKER | (uint64_t)page << HUB_WORD_PAGE_SHIFT | i;
}

/* every adapter open, page granted for receive on each of them */
static void hub_open_rx_all(volatile uint64_t **rx, uint32_t page)
{
	int k;

	hub_open();
	for (k = 0; k < HUB_NODES; k++)
		rx[k] = hub_rx(k, page);
}

static void hub_store(volatile uint64_t *tx, uint32_t page)
{
	uint32_t i;

	for (i = 0; i < PAGE_WORDS; i++)
		tx[i] = hub_word(page, i);
}

/* wait (bounded) for the last word of page on rx, then check every word */
static void hub_expect_page(int k, volatile uint64_t *rx, uint32_t page)
{
	double t0 = now_s();
	uint32_t i, bad = 0;

	while (rx[PAGE_WORDS - 1] != hub_word(page, PAGE_WORDS - 1) && now_s() - t0 < 60)
		usleep(1000);
	for (i = 0; i < PAGE_WORDS; i++)
		bad += rx[i] != hub_word(page, i);
	EXPECT(bad == 0, "node %d, page %u: %u of %u words differ (last %#llx)", k, page, bad,
	       PAGE_WORDS, (unsigned long long)rx[PAGE_WORDS - 1]);
	printf("# node %d has page %u after %.3f s\n", k, page, now_s() - t0);
}

static void hub_expect_nothing(int k, volatile uint64_t *rx, uint32_t page)
{
	uint32_t i, seen = 0;

	for (i = 0; i < PAGE_WORDS; i++)
		seen += rx[i] != 0;
	EXPECT(seen == 0, "node %d got %u words of page %u that were not sent to it", k, seen,
	       page);
}

/*
 * A broadcast from sender on marker_page, received by every node in mask: rule 1 (one sender's
 * stores arrive in order at each receiver, through the hub as well) makes its arrival proof
 * that anything the sender stored before it, to that receiver, has arrived too.
 */
static void hub_marker(int sender, uint32_t marker_page, uint32_t mask)
{
	volatile uint64_t *rx[HUB_NODES], *tx;
	int k;

	for (k = 0; k < HUB_NODES; k++)
		rx[k] = (mask >> k) & 1 ? hub_rx(k, marker_page) : NULL;
	tx = hub_tx(sender, marker_page,
		    MC_TX_PCT_TX_EN_MASK | MC_DEST_KIND_BROADCAST << MC_TX_PCT_DEST_KIND_SHIFT);
	hub_store(tx, marker_page);
	for (k = 0; k < HUB_NODES; k++)
		if (rx[k])
			hub_expect_page(k, rx[k], marker_page);
}

/* the hub assigned node IDs (MEMCHAN_NODE_AUTO, board_hub.sh): adapter k, on port k, is node k */
MC_TEST(hub, node_ids_by_port)
{
	struct memchan_info in;
	int k;

	hub_open();
	for (k = 0; k < HUB_NODES; k++) {
		in = info(hub_fd[k]);
		printf("# /dev/memchan%d: node %u, link status %#x\n", k, in.node_id, in.link_status);
		EXPECT(in.node_id == (uint32_t)k, "/dev/memchan%d is node %u", k, in.node_id);
		CHECK(in.link_status & MC_LINK_STATUS_UP_MASK);
	}
}

/* node 0 broadcasts a page: nodes 1..3 get every word, node 0 (no local copy) none */
MC_TEST(hub, broadcast_reaches_all_others)
{
	volatile uint64_t *rx[HUB_NODES], *tx;
	const uint32_t page = 300;
	int k;

	hub_open_rx_all(rx, page);
	tx = hub_tx(0, page, MC_TX_PCT_TX_EN_MASK |
		    MC_DEST_KIND_BROADCAST << MC_TX_PCT_DEST_KIND_SHIFT);
	hub_store(tx, page);
	for (k = 1; k < HUB_NODES; k++)
		hub_expect_page(k, rx[k], page);
	hub_expect_nothing(0, rx[0], page);
}

/* node 1 stores to node 3: node 3 gets the page, nodes 0 and 2 nothing (proved by a marker) */
MC_TEST(hub, point_to_point_only_its_target)
{
	volatile uint64_t *rx[HUB_NODES], *tx;
	const uint32_t page = 301;

	hub_open_rx_all(rx, page);
	tx = hub_tx(1, page, tx_to(3));
	hub_store(tx, page);
	hub_expect_page(3, rx[3], page);
	hub_marker(1, 302, 1u << 0 | 1u << 2);
	hub_expect_nothing(0, rx[0], page);
	hub_expect_nothing(2, rx[2], page);
	hub_expect_nothing(1, rx[1], page);
}

/*
 * every adapter's MCAST_GROUP register for group g (the cluster's membership) through the
 * driver (MEMCHAN_MCAST_GROUP, as the Java library copies the directory's groups), read back
 * through BAR0
 */
static void hub_set_group(uint32_t g, uint32_t mask)
{
	uint32_t m;
	int k;

	for (k = 0; k < HUB_NODES; k++) {
		m = mask;
		EXPECT_OK(mcast_group(hub_fd[k], MEMCHAN_MCAST_WRITE, g, &m));
		EXPECT(m == mask && mcast_reg(hub_fd[k], g) == mask,
		       "node %d: MCAST_GROUP %u reads back %#x (BAR0 %#x), not %#x", k, g, m,
		       mcast_reg(hub_fd[k], g), mask);
	}
}

/* node 2 stores to multicast group 5 = {0, 3}: nodes 0 and 3 get the page, node 1 nothing */
MC_TEST(hub, multicast_only_its_members)
{
	volatile uint64_t *rx[HUB_NODES], *tx;
	const uint32_t page = 303, group = 5;

	hub_open_rx_all(rx, page);
	hub_set_group(group, 1u << 0 | 1u << 3);
	tx = hub_tx(2, page, MC_TX_PCT_TX_EN_MASK |
		    MC_DEST_KIND_MULTICAST << MC_TX_PCT_DEST_KIND_SHIFT |
		    group << MC_TX_PCT_DEST_SHIFT);
	hub_store(tx, page);
	hub_expect_page(0, rx[0], page);
	hub_expect_page(3, rx[3], page);
	hub_marker(2, 304, 1u << 1);
	hub_expect_nothing(1, rx[1], page);
	hub_expect_nothing(2, rx[2], page);
	hub_set_group(group, 0);
}

MC_TEST_MAIN
