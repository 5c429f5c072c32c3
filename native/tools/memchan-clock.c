// SPDX-License-Identifier: GPL-2.0
/*
 * memchan-clock: the global clock of every adapter of this machine
 * (/dev/memchan0..3, CLOCK_* registers through MEMCHAN_REG_READ), printed as
 * "adapter K time T valid V master M bound B offset O syncs S" lines for
 * board_hub.sh, which holds them against the device process's view of the RTL;
 * then the check that one machine can make across its adapters: their times,
 * read one after another from adapter 0 to the last and adapter 0 again, lie
 * within their bounds of one clock: a time read later is never more than its
 * bound behind one read before it, and none is ahead of adapter 0's second
 * read by more than adapter 0's bound (every adapter's time lies in
 * master - bound .. master, the master's time only grows). Exit 0 when the
 * check passed ("clock_check passed"), 1 when not, 2 without an adapter.
 *
 *   memchan-clock
 */
#define _GNU_SOURCE
#include "memchan_dev.h"

#define MAX_ADAPTERS 4	/* the hub's ports */

int main(int argc, char **argv)
{
	uint64_t t[MAX_ADAPTERS + 1], bound[MAX_ADAPTERS];
	int fd[MAX_ADAPTERS];
	uint32_t st;
	int k, n, fails = 0;
	char path[32];

	if (argc != 1) {
		fprintf(stderr, "memchan-clock takes no arguments, not '%s'\n", argv[1]);
		return 2;
	}
	for (n = 0; n < MAX_ADAPTERS; n++) {
		snprintf(path, sizeof(path), "/dev/memchan%d", n);
		fd[n] = open(path, O_RDWR);
		if (fd[n] < 0)
			break;
	}
	if (n == 0) {
		fprintf(stderr, "memchan-clock: no /dev/memchan0: %s\n", strerror(errno));
		return 2;
	}
	for (k = 0; k < n; k++) {
		st = reg(fd[k], MC_REG_CLOCK_STATUS);
		bound[k] = reg(fd[k], MC_REG_CLOCK_BOUND);
		printf("adapter %d time %llu valid %u master %u bound %llu offset %d syncs %u\n", k,
		       (unsigned long long)reg_pair(fd[k], MC_REG_GLOBAL_TIME_LO,
						    MC_REG_GLOBAL_TIME_HI),
		       st & MC_CLOCK_STATUS_VALID_MASK ? 1 : 0,
		       st & MC_CLOCK_STATUS_MASTER_MASK ? 1 : 0, (unsigned long long)bound[k],
		       (int32_t)reg(fd[k], MC_REG_CLOCK_OFFSET),
		       (st & MC_CLOCK_STATUS_SYNCS_MASK) >> MC_CLOCK_STATUS_SYNCS_SHIFT);
		if (!(st & MC_CLOCK_STATUS_VALID_MASK))
			fails++;
	}
	for (k = 0; k < n; k++)
		t[k] = reg_pair(fd[k], MC_REG_GLOBAL_TIME_LO, MC_REG_GLOBAL_TIME_HI);
	t[n] = reg_pair(fd[0], MC_REG_GLOBAL_TIME_LO, MC_REG_GLOBAL_TIME_HI);
	for (k = 1; k <= n; k++) {
		uint64_t b = bound[k % n];

		printf("read %d: adapter %d time %llu\n", k, k % n, (unsigned long long)t[k]);
		if (t[k] + b < t[k - 1]) {
			printf("# adapter %d's time %llu is more than its bound %llu behind %llu read before it\n",
			       k % n, (unsigned long long)t[k], (unsigned long long)b,
			       (unsigned long long)t[k - 1]);
			fails++;
		}
		if (t[k] > t[n] + bound[0]) {
			printf("# adapter %d's time %llu is ahead of adapter 0's later %llu + bound %llu\n",
			       k % n, (unsigned long long)t[k], (unsigned long long)t[n],
			       (unsigned long long)bound[0]);
			fails++;
		}
	}
	printf("clock_check %s\n", fails ? "failed" : "passed");
	return fails ? 1 : 0;
}
