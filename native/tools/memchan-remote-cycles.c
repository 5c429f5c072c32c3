// SPDX-License-Identifier: GPL-2.0
/*
 * memchan-remote-cycles: remote requests across two guests (board-pair) in RTL
 * cycles, through the co-simulation (docs/performance.md). The requester
 * (node 0, guest a) makes one-way writes to node 1 (the home, guest b) and
 * reads and fetch-and-adds a word homed there through MEMCHAN_REMOTE, one at a
 * time, while the device process times each from its BAR2 store to the
 * host-memory write that completes it (firmware/cosim `stats`: remote write /
 * read / atomic; tb/remote's figures are measured the same way). A response
 * to a node's own request is not written to memory, so this needs two
 * adapters. The requester's statistics must have classified exactly one of
 * each per round, and the home checks that every write landed and the word is
 * exact; either exits 1 when not.
 *
 *   memchan-remote-cycles home PEER
 *   memchan-remote-cycles requester PEER COSIMCTL    (COSIMCTL: the control channel's command)
 *
 * Environment: MEMCHAN_DEV (default /dev/memchan0).
 */
#define _GNU_SOURCE
#include "memchan_dev.h"

#define PAIR_HOME_PAGE	 200	/* the word: READ | ATOMIC at the home; the responses' page at the requester */
#define PAIR_WRITE_PAGE	 201	/* the one-way writes, requester -> home */
#define PAIR_SIGNAL_PAGE 202	/* home -> requester: +0 a nonce repeated until answered, +8 it again: quiet */
#define PAIR_ANSWER_PAGE 203	/* requester -> home: +0 the nonce answered, +8 the rounds done */
#define PAIR_ROUNDS	 20
#define PAIR_WORD	 8	/* the word's offset in PAIR_HOME_PAGE */

static void pair_home(uint32_t peer)
{
	int fd = dev_open();
	volatile uint64_t *word, *written, *answer, *ask;
	uint64_t nonce = ((uint64_t)time(NULL) * 65599 + (uint64_t)getpid()) | 1;	/* never 0 */

	CHECK(info(fd).node_id != MEMCHAN_NODE_NONE && info(fd).node_id != peer);
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, PAIR_HOME_PAGE, 1, 0,
			MEMCHAN_RX_READ | MEMCHAN_RX_ATOMIC, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, PAIR_WRITE_PAGE, 1, 0, 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, PAIR_ANSWER_PAGE, 1, 0, 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, PAIR_SIGNAL_PAGE, 1, tx_to(peer), 0, NULL));
	word = map_page(fd, PAIR_HOME_PAGE, 0);
	written = map_page(fd, PAIR_WRITE_PAGE, 0);
	answer = map_page(fd, PAIR_ANSWER_PAGE, 0);
	ask = map_page(fd, PAIR_SIGNAL_PAGE, 1);
	CHECK(word[PAIR_WORD / 8] == 0);	/* nothing stored there since the node got its ID */
	/* a store reaches only nodes with an ID when it is made: ask until answered */
	pair_await(&answer[0], nonce, &ask[0], nonce, "answer from the requester");
	ask[1] = nonce;	/* after the last ask (rule 1): nothing more from here */
	__sync_synchronize();
	pair_await(&answer[1], PAIR_ROUNDS, NULL, 0, "end of the requests");
	EXPECT(written[0] == PAIR_ROUNDS && word[PAIR_WORD / 8] == PAIR_ROUNDS,
	       "home: last write %llu, word %llu, want %d each",
	       (unsigned long long)written[0], (unsigned long long)word[PAIR_WORD / 8], PAIR_ROUNDS);
	printf("# home: %d one-way writes landed, the word fetch-and-added to %d\n", PAIR_ROUNDS,
	       PAIR_ROUNDS);
}

/* the device process's statistic "remote KIND n N min A mean B max C cycles" */
static double pair_cycles(const char *stats, const char *kind)
{
	char key[32];
	const char *l;
	unsigned long n = 0, lo, hi;
	double mean = 0;

	snprintf(key, sizeof(key), "remote %s n ", kind);
	l = strstr(stats, key);
	EXPECT(l && sscanf(l + strlen(key), "%lu min %lu mean %lf max %lu", &n, &lo, &mean, &hi) == 4,
	       "no '%s' statistic", key);
	EXPECT(n == PAIR_ROUNDS, "%s: %lu timed, want %d (one request at a time, nothing else moving)",
	       key, n, PAIR_ROUNDS);
	return mean;
}

static void pair_requester(uint32_t peer, const char *cosimctl)
{
	int fd = dev_open();
	volatile uint64_t *ask, *response, *tx, *answer;
	uint64_t nonce, v = 0, addr = (uint64_t)PAIR_HOME_PAGE * PAGE + PAIR_WORD;
	char cmd[512], stats[4096];
	double t, rd = 0, fa = 0, wr, rr, ar;
	size_t len;
	FILE *p;
	int i;

	CHECK(info(fd).node_id != MEMCHAN_NODE_NONE && info(fd).node_id != peer);
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, PAIR_SIGNAL_PAGE, 1, 0, 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, PAIR_HOME_PAGE, 1, 0, 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, PAIR_WRITE_PAGE, 1, tx_to(peer), 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, PAIR_ANSWER_PAGE, 1, tx_to(peer), 0, NULL));
	ask = map_page(fd, PAIR_SIGNAL_PAGE, 0);
	response = map_page(fd, PAIR_HOME_PAGE, 0);
	tx = map_page(fd, PAIR_WRITE_PAGE, 1);
	answer = map_page(fd, PAIR_ANSWER_PAGE, 1);
	nonce = pair_await(&ask[0], 0, NULL, 0, "ask from the home");
	answer[0] = nonce;
	__sync_synchronize();
	pair_await(&ask[1], nonce, NULL, 0, "quiet from the home");
	snprintf(cmd, sizeof(cmd), "%s latency-reset > /dev/null", cosimctl);
	EXPECT(system(cmd) == 0, "%s", cmd);
	for (i = 1; i <= PAIR_ROUNDS; i++) {
		tx[0] = i;
		__sync_synchronize();
		usleep(20000);	/* lands alone: the device process's clock runs on after a BAR write */
		t = now_s();
		EXPECT_OK(remote(fd, peer, MEMCHAN_REMOTE_READ, addr, 0, 0, &v));
		rd += now_s() - t;
		EXPECT(v == (uint64_t)i - 1 && response[PAIR_WORD / 8] == v,
		       "read %d: %llu, landed %llu", i, (unsigned long long)v,
		       (unsigned long long)response[PAIR_WORD / 8]);
		t = now_s();
		EXPECT_OK(remote(fd, peer, MEMCHAN_REMOTE_FETCH_ADD, addr, 1, 0, &v));
		fa += now_s() - t;
		EXPECT(v == (uint64_t)i - 1 && response[PAIR_WORD / 8] == v,
		       "fetch-and-add %d: old %llu, landed %llu", i, (unsigned long long)v,
		       (unsigned long long)response[PAIR_WORD / 8]);
	}
	snprintf(cmd, sizeof(cmd), "%s stats", cosimctl);
	p = popen(cmd, "r");
	CHECK(p != NULL);
	len = fread(stats, 1, sizeof(stats) - 1, p);
	stats[len] = 0;
	CHECK(pclose(p) == 0);
	answer[1] = PAIR_ROUNDS;	/* after the statistics: the home may go */
	__sync_synchronize();
	wr = pair_cycles(stats, "write");
	rr = pair_cycles(stats, "read");
	ar = pair_cycles(stats, "atomic");
	printf("# remote to node %u, RTL cycles from the BAR2 store to the host-memory write that completes it (mean of %d): one-way write %.1f, read %.1f (%.2fx), fetch-and-add %.1f (%.2fx)\n",
	       peer, PAIR_ROUNDS, wr, rr, rr / wr, ar, ar / wr);
	printf("# the same requests in guest wall-clock (MEMCHAN_REMOTE): read %.0f us, fetch-and-add %.0f us\n",
	       rd / PAIR_ROUNDS * 1e6, fa / PAIR_ROUNDS * 1e6);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "home")) {
		pair_home(strtoul(argv[2], NULL, 0));
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "requester")) {
		pair_requester(strtoul(argv[2], NULL, 0), argv[3]);
		return 0;
	}
	fprintf(stderr, "usage: memchan-remote-cycles home PEER | requester PEER COSIMCTL\n");
	return 2;
}
