/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memchan_dev.h: one /dev/memchanN from a user-space program, for the tests of
 * native/tests and the helpers here: the device (MEMCHAN_DEV, default
 * /dev/memchan0) and its control node and sysfs directory, the ioctls as
 * functions, the checks. A failed check prints where and why as a TAP comment
 * and ends the process with status 1: a test's process under the kselftest
 * harness (one failed test), a helper's as a whole.
 */
#ifndef MEMCHAN_DEV_H
#define MEMCHAN_DEV_H

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../include/memchan_regs.h"
#include "../include/uapi/linux/memchan.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/*
 * The network page size of every device these programs open: the harness creates the ivshmem
 * fabric with the soft fabric's default, and the co-simulated adapter keeps its PAGE_SIZE
 * reset value (abi_test's info_fields and sysfs_attributes check the device's own).
 */
#define PAGE		MC_SF_DEFAULT_PAGE_SIZE
#define PAGE_WORDS	(PAGE / 8)	/* 8-byte words in a network page */
static_assert(MC_SF_DEFAULT_PAGE_SIZE == MC_REG_PAGE_SIZE_RESET,
	      "one network page size on both backends");

static const char *dev_path __attribute__((unused)) = "/dev/memchan0";
static char ctl_path[64] __attribute__((unused));
static char sysfs[128] __attribute__((unused));

/* before main: the device from the environment; stdout line by line (a test's lines before it ends) */
static void __attribute__((constructor)) memchan_dev_init(void)
{
	const char *base;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("MEMCHAN_DEV"))
		dev_path = getenv("MEMCHAN_DEV");
	snprintf(ctl_path, sizeof(ctl_path), "%s-ctl", dev_path);
	base = strrchr(dev_path, '/');
	snprintf(sysfs, sizeof(sysfs), "/sys/class/misc/%s", base ? base + 1 : dev_path);
}

/*
 * The checks: each ends the process at the first failure (as the kselftest harness's ASSERT_*,
 * not its EXPECT_*), printing the function, the line and what failed.
 */
#define FAIL(...) do {							\
	printf("#   %s:%d: ", __func__, __LINE__);				\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	fflush(stdout);							\
	_exit(1);							\
} while (0)

#define EXPECT_OK(expr) do {						\
	if ((expr) < 0)							\
		FAIL("%s: %s", #expr, strerror(errno));			\
} while (0)

#define EXPECT_ERR(expr, err) do {					\
	errno = 0;							\
	if ((expr) != -1 || errno != (err))				\
		FAIL("%s: want %s, got %s", #expr, strerrorname_np(err),	\
		     errno ? strerrorname_np(errno) : "success");		\
} while (0)

#define EXPECT(cond, fmt, ...) do {					\
	if (!(cond))							\
		FAIL("%s: " fmt, #cond, ##__VA_ARGS__);			\
} while (0)

#define CHECK(cond) do {						\
	if (!(cond))							\
		FAIL("%s", #cond);					\
} while (0)

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline int dev_open(void)
{
	int fd = open(dev_path, O_RDWR);

	if (fd < 0)
		FAIL("open %s: %s", dev_path, strerror(errno));
	return fd;
}

static inline struct memchan_info info(int fd)
{
	struct memchan_info in = { .argsz = sizeof(in) };

	if (ioctl(fd, MEMCHAN_INFO, &in))
		FAIL("MEMCHAN_INFO: %s", strerror(errno));
	return in;
}

static inline int set_node(int fd, uint32_t id, uint32_t flags)
{
	struct memchan_node n = { .argsz = sizeof(n), .flags = flags, .node_id = id };

	return ioctl(fd, MEMCHAN_SET_NODE, &n);
}

static inline int grant(int fd, uint32_t flags, uint32_t first, uint32_t count, uint32_t tx,
			uint32_t rxf, uint64_t *off)
{
	struct memchan_grant g = { .argsz = sizeof(g), .flags = flags, .first_page = first,
				   .count = count, .tx_entry = tx, .rx_flags = rxf };
	int ret = ioctl(fd, MEMCHAN_GRANT, &g);

	if (!ret && off)
		*off = g.mmap_offset;
	return ret;
}

static inline int ungrant(int fd, uint32_t flags, uint32_t first, uint32_t count)
{
	struct memchan_grant g = { .argsz = sizeof(g), .flags = flags, .first_page = first,
				   .count = count };

	return ioctl(fd, MEMCHAN_REVOKE, &g);
}

static inline struct memchan_pct pct(int fd, uint32_t page)
{
	struct memchan_pct p = { .argsz = sizeof(p), .page = page };

	if (ioctl(fd, MEMCHAN_PCT, &p))
		FAIL("MEMCHAN_PCT read %u: %s", page, strerror(errno));
	return p;
}

static inline uint32_t tx_to(uint32_t node)
{
	return MC_TX_PCT_TX_EN_MASK | node << MC_TX_PCT_DEST_SHIFT;
}

/* one network page of fd: its transmit window (writable) or its receive page (read-only) */
static inline volatile uint64_t *map_page(int fd, uint32_t page, int tx)
{
	uint64_t off = (tx ? MEMCHAN_MMAP_TX_BASE : MEMCHAN_MMAP_RX_BASE) + (uint64_t)page * PAGE;
	void *m = mmap(NULL, PAGE, tx ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, off);

	CHECK(m != MAP_FAILED);
	return m;
}

/* a register of the adapter (BAR0) through MEMCHAN_REG_READ */
static inline uint32_t reg(int fd, uint32_t off)
{
	struct memchan_reg r = { .argsz = sizeof(r), .offset = off };

	if (ioctl(fd, MEMCHAN_REG_READ, &r))
		FAIL("MEMCHAN_REG_READ %#x: %s", off, strerror(errno));
	return r.value;
}

/* a 64-bit value from its _LO/_HI register pair, read in that order (registers are 32 bits wide) */
static inline uint64_t reg_pair(int fd, uint32_t lo, uint32_t hi)
{
	uint64_t low = reg(fd, lo);

	return low | (uint64_t)reg(fd, hi) << (CHAR_BIT * sizeof(uint32_t));
}

/* MCAST_GROUP register g through BAR0 (MEMCHAN_REG_READ), not through MEMCHAN_MCAST_GROUP */
static inline uint32_t mcast_reg(int fd, uint32_t g)
{
	return reg(fd, MC_REG_MCAST_GROUP_BASE + MC_REG_MCAST_GROUP_STRIDE * g);
}

static inline int mcast_group(int fd, uint32_t flags, uint32_t group, uint32_t *mask)
{
	struct memchan_mcast_group g = { .argsz = sizeof(g), .flags = flags, .group = group,
					 .mask = *mask };

	if (ioctl(fd, MEMCHAN_MCAST_GROUP, &g))
		return -1;
	*mask = g.mask;
	return 0;
}

static inline int remote_copy(int fd, uint32_t home, uint64_t addr, uint64_t len, void *buf)
{
	struct memchan_remote r = { .argsz = sizeof(r), .home = home, .op = MEMCHAN_REMOTE_COPY,
				    .addr = addr, .operand = len, .buffer = (uintptr_t)buf };

	return ioctl(fd, MEMCHAN_REMOTE, &r);
}

static inline int remote(int fd, uint32_t home, uint32_t op, uint64_t addr, uint64_t operand,
			 uint64_t compare, uint64_t *result)
{
	struct memchan_remote r = { .argsz = sizeof(r), .home = home, .op = op, .addr = addr,
				    .operand = operand, .compare = compare };
	int ret = ioctl(fd, MEMCHAN_REMOTE, &r);

	if (!ret && result)
		*result = r.result;
	return ret;
}

static inline struct memchan_page_counters counters(int fd, uint32_t page, uint32_t flags,
						     uint32_t threshold)
{
	struct memchan_page_counters c = { .argsz = sizeof(c), .flags = flags, .page = page,
					   .threshold = threshold };

	if (ioctl(fd, MEMCHAN_PAGE_COUNTERS, &c))
		FAIL("MEMCHAN_PAGE_COUNTERS page %u: %s", page, strerror(errno));
	return c;
}

/*
 * Two guests of a pair (board-pair) meet through words of their receive pages; the other guest
 * may still be in its earlier step.
 */
#define PAIR_WAIT_S	300

/*
 * Polls a word of a receive page (guest RAM, not a register) until it is want (want 0: until it
 * is not 0), for at most PAIR_WAIT_S; meanwhile, where resend is given, stores with there once a
 * second (a store reaches only a peer that grants its page already). Returns the word; fails,
 * naming what did not come, when the time is up.
 */
static inline uint64_t pair_await(volatile uint64_t *word, uint64_t want, volatile uint64_t *resend,
				  uint64_t with, const char *what)
{
	double t0 = now_s(), sent = 0;

	while (want ? *word != want : *word == 0) {
		EXPECT(now_s() - t0 <= PAIR_WAIT_S, "no %s within %d s", what, PAIR_WAIT_S);
		if (resend && now_s() - sent > 1) {
			*resend = with;
			__sync_synchronize();
			sent = now_s();
		}
		usleep(10000);
	}
	return *word;
}

#endif
