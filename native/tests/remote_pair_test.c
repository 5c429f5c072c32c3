// SPDX-License-Identifier: GPL-2.0
/*
 * remote_pair_test: remote operations at another node's home, across the two
 * guests of board-pair (one co-simulated adapter each, node IDs set by
 * mc_cluster first). Guest b runs the home, guest a the requester: read,
 * fetch-and-add, both CAS outcomes, swap, CHECK and COPY through
 * MEMCHAN_REMOTE, the refusals of a page the home did not enable.
 *
 *   remote_pair_test -t home | -t requester
 *
 * Environment: MEMCHAN_DEV (default /dev/memchan0).
 */
#define _GNU_SOURCE
#include "mc_test.h"

/*
 * The home (node B) and the requester (node A) meet through two signal pages; the home grants
 * REMOTE_PAIR_WORDS READ_EN and ATOMIC_EN, REMOTE_PAIR_PLAIN a receive grant without either.
 * The requester holds no grant of either page: its driver gives the responses a landing place.
 */
#define REMOTE_PAIR_WORDS	210
#define REMOTE_PAIR_PLAIN	211
#define REMOTE_PAIR_READY	212	/* home -> requester */
#define REMOTE_PAIR_DONE	213	/* requester -> home */
#define REMOTE_PAIR_MAGIC	0x52454d4f54453700ULL	/* "REMOTE7\0" */

/* what the requester's operations leave at the home (the requester checks each step) */
#define REMOTE_PAIR_WORD0	13
#define REMOTE_PAIR_WORD1	0x1111
#define REMOTE_PAIR_REFUSED	5	/* CHECK of a plain page: 2, read, fetch-and-add, copy */
#define REMOTE_PAIR_READS	7	/* 2 reads, 2 CHECK probes, a copy of 3 words */
#define REMOTE_PAIR_ATOMICS	5	/* 2 fetch-and-adds, 2 CAS, a swap */

/* each side waits up to PAIR_WAIT_S for the other, then does its part */
#define REMOTE_PAIR_TIMEOUT	(PAIR_WAIT_S + 60)

MC_FIXTURE(remote_pair)

static uint32_t remote_pair_node(int fd)
{
	uint32_t me = info(fd).node_id;

	if (me == MEMCHAN_NODE_NONE)
		FAIL("no node ID (mc_cluster sets it first)");
	return me;
}

TEST_F_TIMEOUT(remote_pair, home, REMOTE_PAIR_TIMEOUT)
{
	int fd = dev_open();
	uint32_t me = remote_pair_node(fd), peer = 1 - me, refused;
	volatile uint64_t *words, *plain, *ready, *done;
	struct memchan_page_counters c, cp;

	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, REMOTE_PAIR_WORDS, 1, 0,
			MEMCHAN_RX_READ | MEMCHAN_RX_ATOMIC, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, REMOTE_PAIR_PLAIN, 1, 0, 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, REMOTE_PAIR_DONE, 1, 0, 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, REMOTE_PAIR_READY, 1, tx_to(peer), 0, NULL));
	words = map_page(fd, REMOTE_PAIR_WORDS, 0);
	plain = map_page(fd, REMOTE_PAIR_PLAIN, 0);
	done = map_page(fd, REMOTE_PAIR_DONE, 0);
	ready = map_page(fd, REMOTE_PAIR_READY, 1);
	/* a device's REMOTE_REFUSED is cumulative: what this test adds is the difference */
	refused = reg(fd, MC_REG_REMOTE_REFUSED);
	pair_await(done, REMOTE_PAIR_MAGIC + 1, ready, REMOTE_PAIR_MAGIC, "end from the requester");
	c = counters(fd, REMOTE_PAIR_WORDS, 0, 0);
	cp = counters(fd, REMOTE_PAIR_PLAIN, 0, 0);
	printf("# home %u: words %#llx,%#llx, refused %u, page %u reads %u atomics %u\n", me,
	       (unsigned long long)words[0], (unsigned long long)words[1],
	       reg(fd, MC_REG_REMOTE_REFUSED) - refused, REMOTE_PAIR_WORDS, c.reads, c.atomics);
	CHECK(words[0] == REMOTE_PAIR_WORD0 && words[1] == REMOTE_PAIR_WORD1 && words[2] == 0);
	CHECK(plain[0] == 0);	/* the refused fetch-and-add changed nothing */
	CHECK(reg(fd, MC_REG_REMOTE_REFUSED) - refused == REMOTE_PAIR_REFUSED);
	CHECK(c.reads == REMOTE_PAIR_READS && c.atomics == REMOTE_PAIR_ATOMICS);
	CHECK(cp.reads == 0 && cp.atomics == 0);
}

/*
 * The requester: remote read, fetch-and-add, CAS (both outcomes), swap, CHECK and COPY of a
 * word homed at the peer, through MEMCHAN_REMOTE; refusals of the page the home did not enable
 * (EACCES, counted there, nothing changed); its own receive PCT as it was after every call.
 */
TEST_F_TIMEOUT(remote_pair, requester, REMOTE_PAIR_TIMEOUT)
{
	int fd = dev_open();
	uint32_t me = remote_pair_node(fd), home = 1 - me;
	const uint64_t w = REMOTE_PAIR_WORDS * PAGE, q = REMOTE_PAIR_PLAIN * PAGE;
	volatile uint64_t *ready, *done;
	unsigned char buf[20];
	uint64_t v = ~0ULL, word, words_rx, plain_rx;
	double t0;

	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, REMOTE_PAIR_READY, 1, 0, 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, REMOTE_PAIR_DONE, 1, tx_to(home), 0, NULL));
	ready = map_page(fd, REMOTE_PAIR_READY, 0);
	done = map_page(fd, REMOTE_PAIR_DONE, 1);
	pair_await(ready, REMOTE_PAIR_MAGIC, NULL, 0, "grant from the home");
	t0 = now_s();
	/* RX_EN while the node has an ID (receive-all), else off: lent for each request only */
	words_rx = pct(fd, REMOTE_PAIR_WORDS).rx_entry;
	plain_rx = pct(fd, REMOTE_PAIR_PLAIN).rx_entry;

	EXPECT_OK(remote(fd, home, MEMCHAN_REMOTE_FETCH_ADD, w, 5, 0, &v));
	EXPECT(v == 0, "fetch-and-add: old %#llx", (unsigned long long)v);
	EXPECT_OK(remote(fd, home, MEMCHAN_REMOTE_FETCH_ADD, w + 8, REMOTE_PAIR_WORD1, 0, &v));
	CHECK(v == 0);
	EXPECT_OK(remote(fd, home, MEMCHAN_REMOTE_READ, w, 0, 0, &v));
	EXPECT(v == 5, "read after fetch-and-add: %#llx", (unsigned long long)v);
	EXPECT_OK(remote(fd, home, MEMCHAN_REMOTE_CAS, w, 9, 5, &v));
	EXPECT(v == 5, "CAS 5 -> 9: old %#llx", (unsigned long long)v);
	EXPECT_OK(remote(fd, home, MEMCHAN_REMOTE_CAS, w, 11, 5, &v));	/* 9 != 5: not swapped */
	EXPECT(v == 9, "failing CAS: old %#llx", (unsigned long long)v);
	EXPECT_OK(remote(fd, home, MEMCHAN_REMOTE_SWAP, w, REMOTE_PAIR_WORD0, 0, &v));
	CHECK(v == 9);
	EXPECT_OK(remote(fd, home, MEMCHAN_REMOTE_READ, w, 0, 0, &v));
	EXPECT(v == REMOTE_PAIR_WORD0, "read after swap: %#llx", (unsigned long long)v);

	/* CHECK at another home: probed by an access (docs/driver.md) */
	EXPECT_OK(remote(fd, home, MEMCHAN_REMOTE_CHECK, w, PAGE, 0, NULL));
	EXPECT_ERR(remote(fd, home, MEMCHAN_REMOTE_CHECK, w, 2 * PAGE, 0, NULL), EACCES);
	/* the page the home did not enable: refused there, counted, nothing changed */
	EXPECT_ERR(remote(fd, home, MEMCHAN_REMOTE_READ, q, 0, 0, &v), EACCES);
	EXPECT_ERR(remote(fd, home, MEMCHAN_REMOTE_FETCH_ADD, q, 1, 0, &v), EACCES);
	/* COPY: 20 bytes, the last word in part; the data from where the responses landed */
	memset(buf, 0xa5, sizeof(buf));
	EXPECT_OK(remote_copy(fd, home, w, sizeof(buf), buf));
	memcpy(&word, buf, 8);
	EXPECT(word == REMOTE_PAIR_WORD0, "copy: word 0 %#llx", (unsigned long long)word);
	memcpy(&word, buf + 8, 8);
	CHECK(word == REMOTE_PAIR_WORD1);
	CHECK(buf[16] == 0 && buf[19] == 0);
	memset(buf, 0xa5, sizeof(buf));
	EXPECT_ERR(remote_copy(fd, home, q, 8, buf), EACCES);
	CHECK(buf[0] == 0xa5);	/* nothing copied */
	/* the landing place's entry is as it was (lent for the requests only where it was off) */
	CHECK(pct(fd, REMOTE_PAIR_WORDS).rx_entry == words_rx);
	CHECK(pct(fd, REMOTE_PAIR_PLAIN).rx_entry == plain_rx);
	*done = REMOTE_PAIR_MAGIC + 1;
	__sync_synchronize();	/* out of the write-combining buffer */
	printf("# requester %u: the operations and refusals took %.2f s of guest time\n", me,
	       now_s() - t0);
}

MC_TEST_MAIN
