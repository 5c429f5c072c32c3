// SPDX-License-Identifier: GPL-2.0
/*
 * memchan_test: ABI tests of /dev/memchanN on the ivshmem backend, in the
 * style of kselftest (one test per case, TAP output, each test in its own
 * child process so a crash fails that test only), and the tests that fit the
 * hardware backend (the co-simulated RTL adapter of firmware/cosim).
 *
 *   memchan_test [abi]     every ABI test (needs root, a fresh fabric)
 *   memchan_test unbind    live mappings survive device removal: SIGBUS,
 *                          ENODEV, no oops; the module is then removable
 *                          (either backend)
 *   memchan_test hw        hardware backend: identity, internal-loopback data,
 *                          notification on arrival, receive mappings of the
 *                          DMA-coherent area, BAR round-trip cost
 *   memchan_test info      the adapter's state as shell-readable lines
 *   memchan_test hub [TEST]  four adapters of one guest on a hub (the co-simulated
 *                          board-hub): node IDs by port, broadcast to every other
 *                          node, point to point and multicast only to their targets
 *   memchan_test clock     every adapter's global clock registers, and the read
 *                          order check of their times against their bounds
 *
 * Environment: MEMCHAN_DEV (default /dev/memchan0), MEMCHAN_FUZZ (ioctl fuzz
 * iterations, default 20000).
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../include/memchan_regs.h"
#include "../include/uapi/linux/memchan.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The network page size of every device these tests open: the harness creates the ivshmem
 * fabric with the soft fabric's default, and the co-simulated adapter keeps its PAGE_SIZE
 * reset value (info_fields and the sysfs test check the device's own).
 */
#define PAGE		MC_SF_DEFAULT_PAGE_SIZE
#define PAGE_WORDS	(PAGE / 8)	/* 8-byte words in a network page */
static_assert(MC_SF_DEFAULT_PAGE_SIZE == MC_REG_PAGE_SIZE_RESET,
	      "one network page size on both backends");

static const char *dev_path = "/dev/memchan0";
static char ctl_path[64];
static char sysfs[128];

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

/* ---- helpers ---- */

static int dev_open(void)
{
	int fd = open(dev_path, O_RDWR);

	if (fd < 0)
		FAIL("open %s: %s", dev_path, strerror(errno));
	return fd;
}

static struct memchan_info info(int fd)
{
	struct memchan_info in = { .argsz = sizeof(in) };

	if (ioctl(fd, MEMCHAN_INFO, &in))
		FAIL("MEMCHAN_INFO: %s", strerror(errno));
	return in;
}

static int set_node(int fd, uint32_t id, uint32_t flags)
{
	struct memchan_node n = { .argsz = sizeof(n), .flags = flags, .node_id = id };

	return ioctl(fd, MEMCHAN_SET_NODE, &n);
}

static int grant(int fd, uint32_t flags, uint32_t first, uint32_t count, uint32_t tx,
		 uint32_t rxf, uint64_t *off)
{
	struct memchan_grant g = { .argsz = sizeof(g), .flags = flags, .first_page = first,
				   .count = count, .tx_entry = tx, .rx_flags = rxf };
	int ret = ioctl(fd, MEMCHAN_GRANT, &g);

	if (!ret && off)
		*off = g.mmap_offset;
	return ret;
}

static int ungrant(int fd, uint32_t flags, uint32_t first, uint32_t count)
{
	struct memchan_grant g = { .argsz = sizeof(g), .flags = flags, .first_page = first,
				   .count = count };

	return ioctl(fd, MEMCHAN_REVOKE, &g);
}

static struct memchan_pct pct(int fd, uint32_t page)
{
	struct memchan_pct p = { .argsz = sizeof(p), .page = page };

	if (ioctl(fd, MEMCHAN_PCT, &p))
		FAIL("MEMCHAN_PCT read %u: %s", page, strerror(errno));
	return p;
}

static uint32_t tx_to(uint32_t node)
{
	return MC_TX_PCT_TX_EN_MASK | node << MC_TX_PCT_DEST_SHIFT;
}

/* the whole soft-fabric file through the control node */
static char *ctl_map(size_t *len)
{
	int fd = open(ctl_path, O_RDWR);
	char *hdr, *fab;
	size_t size;

	if (fd < 0)
		FAIL("open %s: %s", ctl_path, strerror(errno));
	hdr = mmap(NULL, MC_SF_HEADER_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (hdr == MAP_FAILED)
		FAIL("mmap ctl: %s", strerror(errno));
	size = *(uint64_t *)(hdr + MC_SF_HDR_FILE_SIZE);
	munmap(hdr, MC_SF_HEADER_SIZE);
	fab = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fab == MAP_FAILED)
		FAIL("mmap ctl %zu: %s", size, strerror(errno));
	close(fd);
	*len = size;
	return fab;
}

#define U32(p, off) (*(volatile uint32_t *)((char *)(p) + (off)))
#define U64(p, off) (*(volatile uint64_t *)((char *)(p) + (off)))

static char *node_block(char *fab, uint32_t node)
{
	return fab + U64(fab, MC_SF_HDR_NODE_AREA_OFFSET) +
		node * U64(fab, MC_SF_HDR_NODE_BLOCK_SIZE);
}

static volatile uint64_t *heartbeat(char *fab, uint32_t node)
{
	return (volatile uint64_t *)(fab + U64(fab, MC_SF_HDR_DATA_OFFSET) +
		mc_sys_member_slot(U32(fab, MC_SF_HDR_PAGE_SIZE), node) + MC_SYS_MEMBER_HEARTBEAT);
}

static int read_sysfs(const char *attr, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", sysfs, attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static sigjmp_buf fault_jmp;
static volatile int fault_sig;

static void on_fault(int sig)
{
	fault_sig = sig;
	siglongjmp(fault_jmp, 1);
}

/* touch one byte; returns the signal it raised, 0 if none */
static int touch(volatile char *p, int write)
{
	struct sigaction sa = { .sa_handler = on_fault };

	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	fault_sig = 0;
	if (!sigsetjmp(fault_jmp, 1)) {
		if (write)
			*p = 1;
		else
			(void)*p;
	}
	return fault_sig;
}

/* one network page of fd: its transmit window (writable) or its receive page (read-only) */
static volatile uint64_t *map_page(int fd, uint32_t page, int tx)
{
	uint64_t off = (tx ? MEMCHAN_MMAP_TX_BASE : MEMCHAN_MMAP_RX_BASE) + (uint64_t)page * PAGE;
	void *m = mmap(NULL, PAGE, tx ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, off);

	CHECK(m != MAP_FAILED);
	return m;
}

static uint64_t rnd_state = 0x2545F4914F6CDD1DULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545F4914F6CDD1DULL;
}

/* ---- tests (run in order; node 0 is set by set_node_claims_block) ---- */

static void api_version(void)
{
	int fd = dev_open();

	CHECK(ioctl(fd, MEMCHAN_GET_API_VERSION, 0) == MEMCHAN_API_VERSION);
	EXPECT_ERR(ioctl(fd, MEMCHAN_GET_API_VERSION, 1), EINVAL);
}

static void info_rejects_bad_argsz(void)
{
	char buf[8192] = { 0 };
	struct memchan_info *in = (void *)buf;
	int fd = dev_open();

	in->argsz = sizeof(*in) - 8;
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, in), EINVAL);
	in->argsz = 0;
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, in), EINVAL);
	in->argsz = 4097;
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, in), EINVAL);
	in->argsz = sizeof(*in) + 64;	/* larger, zero tail: accepted */
	EXPECT_OK(ioctl(fd, MEMCHAN_INFO, in));
	CHECK(in->argsz == sizeof(*in));
	in->argsz = sizeof(*in) + 64;
	buf[sizeof(*in) + 3] = 1;	/* non-zero byte the kernel does not know */
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, in), E2BIG);
	buf[sizeof(*in) + 3] = 0;
	in->argsz = sizeof(*in);
	in->flags = 1;
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, in), EINVAL);
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, NULL), EFAULT);
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, (void *)16), EFAULT);
}

static void unknown_ioctl_enotty(void)
{
	uint64_t buf[64] = { sizeof(buf) };
	int fd = dev_open();

	EXPECT_ERR(ioctl(fd, _IO(MEMCHAN_IOC_MAGIC, 0x7f), buf), ENOTTY);
	EXPECT_ERR(ioctl(fd, _IOWR('x', 1, uint64_t), buf), ENOTTY);
}

static void info_fields(void)
{
	int fd = dev_open();
	struct memchan_info in = info(fd);

	CHECK(in.api_version == MEMCHAN_API_VERSION);
	CHECK(in.backend == MEMCHAN_BACKEND_IVSHMEM);
	CHECK(in.page_size == PAGE);
	CHECK(in.page_count > MC_SYS_PAGES && in.page_count <= MC_MAX_PAGES);
	CHECK(in.max_nodes == 16);
	CHECK(in.caps & MC_CAPS_SOFT_MASK);
	CHECK((in.regmap_version & MC_VERSION_MAJOR_MASK) >> MC_VERSION_MAJOR_SHIFT == MC_VERSION_MAJOR);
	CHECK(in.node_id == MEMCHAN_NODE_NONE && !(in.flags & MEMCHAN_INFO_NODE_VALID));
	CHECK(in.window_size == (uint64_t)in.page_count * in.page_size);
	CHECK(in.tx_mmap_base == MEMCHAN_MMAP_TX_BASE && in.rx_mmap_base == MEMCHAN_MMAP_RX_BASE);
	CHECK(in.error_count == 0 && in.ack_outstanding == 0);
}

static void grant_without_node_enxio(void)
{
	int fd = dev_open();

	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 10, 1, tx_to(1), 0, NULL), ENXIO);
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_RX, 10, 1, 0, 0, NULL), ENXIO);
	/* no node ID: nothing to serve from, no counters */
	EXPECT_ERR(ioctl(fd, MEMCHAN_REMOTE, &(struct memchan_remote){
		.argsz = sizeof(struct memchan_remote), .addr = 8 }), ENXIO);
	EXPECT_ERR(ioctl(fd, MEMCHAN_PAGE_COUNTERS, &(struct memchan_page_counters){
		.argsz = sizeof(struct memchan_page_counters), .page = 1 }), ENXIO);
}

static void set_node_validation(void)
{
	struct memchan_node n = { .argsz = sizeof(n), .node_id = 1, .pad = 1 };
	int fd = dev_open();

	EXPECT_ERR(set_node(fd, 16, 0), EINVAL);
	EXPECT_ERR(set_node(fd, 1000, 0), EINVAL);
	EXPECT_ERR(set_node(fd, 1, 4), EINVAL);				/* unknown flag */
	EXPECT_ERR(set_node(fd, 1, MEMCHAN_NODE_AUTO), EINVAL);		/* AUTO names no ID */
	EXPECT_ERR(set_node(fd, MEMCHAN_NODE_NONE, MEMCHAN_NODE_AUTO | MEMCHAN_NODE_TAKEOVER), EINVAL);
	EXPECT_ERR(set_node(fd, MEMCHAN_NODE_NONE, MEMCHAN_NODE_AUTO), EOPNOTSUPP);	/* ivshmem */
	EXPECT_ERR(ioctl(fd, MEMCHAN_SET_NODE, &n), EINVAL);
	CHECK(info(fd).node_id == MEMCHAN_NODE_NONE);
}

static void set_node_claims_block(void)
{
	int fd = dev_open();
	size_t len;
	char *fab = ctl_map(&len), *nb = node_block(fab, 0), buf[32];

	EXPECT_OK(set_node(fd, 0, 0));
	CHECK(info(fd).node_id == 0);
	CHECK(info(fd).flags & MEMCHAN_INFO_NODE_VALID);
	CHECK(U64(nb, MC_SF_NODE_OWNER) != 0);
	CHECK(mc_sf_owner_incarnation(U64(nb, MC_SF_NODE_OWNER)) == U64(nb, MC_SF_NODE_INCARNATION));
	CHECK(U64(nb, MC_SF_NODE_INCARNATION) >= 1);
	CHECK(U64(nb, MC_SF_NODE_HOST_ID) != 0);
	CHECK(U32(nb, MC_REG_NODE_ID) == MC_NODE_ID_VALID_MASK);
	CHECK(info(fd).incarnation == U64(nb, MC_SF_NODE_INCARNATION));
	CHECK(read_sysfs("node_id", buf, sizeof(buf)) == 0 && !strcmp(buf, "0\n"));
	EXPECT_OK(set_node(fd, 0, 0));	/* same ID: no-op */
}

static void reg_read(void)
{
	int fd = dev_open();
	struct memchan_reg r = { .argsz = sizeof(r), .offset = MC_REG_ID };

	EXPECT_OK(ioctl(fd, MEMCHAN_REG_READ, &r));
	CHECK(r.value == MC_ID);
	r = (struct memchan_reg){ .argsz = sizeof(r), .offset = MC_REG_PAGE_COUNT };
	EXPECT_OK(ioctl(fd, MEMCHAN_REG_READ, &r));
	CHECK(r.value == info(fd).page_count);
	r = (struct memchan_reg){ .argsz = sizeof(r), .offset = MC_REG_NODE_ID };
	EXPECT_OK(ioctl(fd, MEMCHAN_REG_READ, &r));
	CHECK(r.value == MC_NODE_ID_VALID_MASK);
	r = (struct memchan_reg){ .argsz = sizeof(r), .offset = 0x1000 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_REG_READ, &r), EINVAL);
	r = (struct memchan_reg){ .argsz = sizeof(r), .offset = 2 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_REG_READ, &r), EINVAL);
	r = (struct memchan_reg){ .argsz = sizeof(r), .offset = 0, .value = 1 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_REG_READ, &r), EINVAL);
	r = (struct memchan_reg){ .argsz = sizeof(r), .flags = 1 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_REG_READ, &r), EINVAL);
}

static int mcast_group(int fd, uint32_t flags, uint32_t group, uint32_t *mask)
{
	struct memchan_mcast_group g = { .argsz = sizeof(g), .flags = flags, .group = group,
					 .mask = *mask };

	if (ioctl(fd, MEMCHAN_MCAST_GROUP, &g))
		return -1;
	*mask = g.mask;
	return 0;
}

/* ivshmem: multicast membership is the directory's mask, the node block has no register to write */
static void mcast_group_ivshmem(void)
{
	int fd = dev_open();
	uint32_t m = 1;

	CHECK(!(info(fd).flags & MEMCHAN_INFO_MCAST_REGS));
	EXPECT_ERR(mcast_group(fd, MEMCHAN_MCAST_WRITE, 3, &m), EOPNOTSUPP);
	EXPECT_ERR(mcast_group(fd, MEMCHAN_MCAST_WRITE, MC_MULTICAST_GROUPS, &m), EINVAL);
}

static void release_dead_node(void)
{
	int fd = dev_open();
	size_t len;
	char *fab = ctl_map(&len), *nb3 = node_block(fab, 3);
	struct memchan_release r = { .argsz = sizeof(r), .node = 3, .incarnation = 4 };
	volatile uint32_t *tx = (volatile uint32_t *)(nb3 + MC_SF_NODE_TX_PCT + 260 * MC_TX_PCT_ENTRY_SIZE);

	U64(nb3, MC_SF_NODE_OWNER) = mc_sf_owner_word(5, 77);
	U32(nb3, MC_REG_NODE_ID) = 3 | MC_NODE_ID_VALID_MASK;
	*tx = tx_to(1);
	EXPECT_OK(ioctl(fd, MEMCHAN_RELEASE_NODE, &r));	/* another incarnation: untouched */
	CHECK(r.released == 0 && U64(nb3, MC_SF_NODE_OWNER) != 0 && *tx == tx_to(1));
	/* claimed by this kernel (HOST_ID ours, as another device bound here would write it): untouched */
	U64(nb3, MC_SF_NODE_HOST_ID) = U64(node_block(fab, 0), MC_SF_NODE_HOST_ID);
	r = (struct memchan_release){ .argsz = sizeof(r), .node = 3, .incarnation = 5 };
	EXPECT_OK(ioctl(fd, MEMCHAN_RELEASE_NODE, &r));
	CHECK(r.released == 0 && U64(nb3, MC_SF_NODE_OWNER) != 0 && *tx == tx_to(1));
	U64(nb3, MC_SF_NODE_HOST_ID) = 0x5eed;	/* another host's claim */
	r = (struct memchan_release){ .argsz = sizeof(r), .node = 3, .incarnation = 5 };
	EXPECT_OK(ioctl(fd, MEMCHAN_RELEASE_NODE, &r));
	CHECK(r.released == 1 && U64(nb3, MC_SF_NODE_OWNER) == 0 && *tx == 0);
	CHECK(U32(nb3, MC_REG_NODE_ID) == 0);
	r = (struct memchan_release){ .argsz = sizeof(r), .node = 0, .incarnation = 1 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_RELEASE_NODE, &r), EINVAL);	/* our own */
	r = (struct memchan_release){ .argsz = sizeof(r), .node = 16 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_RELEASE_NODE, &r), EINVAL);
	r = (struct memchan_release){ .argsz = sizeof(r), .node = 3, .released = 1 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_RELEASE_NODE, &r), EINVAL);
}

static void heartbeat_advances(void)
{
	size_t len;
	char *fab = ctl_map(&len);
	uint64_t h0 = *heartbeat(fab, 0), h1;

	usleep(550000);
	h1 = *heartbeat(fab, 0);
	EXPECT(h1 - h0 >= 3 && h1 - h0 <= 8, "heartbeat moved %llu in 550 ms",
	       (unsigned long long)(h1 - h0));
	CHECK(*heartbeat(fab, 1) == 0);
}

static void grant_validation(void)
{
	int fd = dev_open();
	uint32_t pc = info(fd).page_count;

	EXPECT_ERR(grant(fd, 0, 10, 1, tx_to(1), 0, NULL), EINVAL);
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX | MEMCHAN_GRANT_RX, 10, 1, tx_to(1), 0, NULL), EINVAL);
	EXPECT_ERR(grant(fd, 4, 10, 1, tx_to(1), 0, NULL), EINVAL);
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 10, 0, tx_to(1), 0, NULL), EINVAL);
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, pc, 1, tx_to(1), 0, NULL), EINVAL);
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, pc - 1, 2, tx_to(1), 0, NULL), EINVAL);
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 1, 0xffffffff, tx_to(1), 0, NULL), EINVAL);
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 10, 1, 0, 0, NULL), EINVAL);	/* no TX_EN */
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 10, 1, tx_to(1) | MC_TX_PCT_CAS_MASK, 0, NULL),
		   EINVAL);	/* CAS without OP SWAP */
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 10, 1, MC_TX_PCT_TX_EN_MASK |
			 MC_DEST_KIND_BROADCAST << MC_TX_PCT_DEST_KIND_SHIFT |
			 MC_OP_READ << MC_TX_PCT_OP_SHIFT, 0, NULL), EINVAL);	/* a broadcast read */
	if (info(fd).backend != MEMCHAN_BACKEND_HW) {
		/* request pages are a board adapter's; emulated adapters serve the library's */
		EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 10, 1, tx_to(1) | MC_OP_READ << MC_TX_PCT_OP_SHIFT,
				 0, NULL), EOPNOTSUPP);
		EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 10, 1, tx_to(1) | MC_TX_PCT_CAS_MASK |
				 MC_OP_SWAP << MC_TX_PCT_OP_SHIFT, 0, NULL), EOPNOTSUPP);
	}
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 10, 1,
			 tx_to(1) | (MC_TX_PCT_DEST_MASK + (1 << MC_TX_PCT_DEST_SHIFT)), 0, NULL),
		   EINVAL);	/* the reserved bit above DEST */
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 10, 1, tx_to(16), 0, NULL), EINVAL);
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 10, 1, MC_TX_PCT_TX_EN_MASK | MC_TX_PCT_DEST_KIND_MASK,
			 0, NULL), EINVAL);	/* DEST_KIND 3 */
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 10, 1, MC_TX_PCT_TX_EN_MASK |
			 MC_DEST_KIND_BROADCAST << MC_TX_PCT_DEST_KIND_SHIFT | 1 << MC_TX_PCT_DEST_SHIFT,
			 0, NULL), EINVAL);	/* broadcast with a DEST */
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 10, 1, MC_TX_PCT_TX_EN_MASK |
			 MC_DEST_KIND_MULTICAST << MC_TX_PCT_DEST_KIND_SHIFT |
			 MC_MULTICAST_GROUPS << MC_TX_PCT_DEST_SHIFT, 0, NULL), EINVAL);	/* multicast group 16 */
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 10, 1, tx_to(1), MEMCHAN_RX_IRQ, NULL), EINVAL);
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_RX, 10, 1, tx_to(1), 0, NULL), EINVAL);
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_RX, 10, 1, 0, MEMCHAN_RX_COUNT_IRQ << 1, NULL),
		   EINVAL);	/* the first rx_flags bit this API does not define */
	CHECK(pct(fd, 10).tx_entry == 0 && pct(fd, 10).rx_entry == 0);
}

static void grant_tx_programs_pct(void)
{
	int fd = dev_open();
	uint64_t off = 1;

	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 100, 4, tx_to(1), 0, &off));
	CHECK(off == MEMCHAN_MMAP_TX_BASE + 100 * PAGE);
	CHECK(pct(fd, 100).tx_entry == tx_to(1) && pct(fd, 103).tx_entry == tx_to(1));
	CHECK(pct(fd, 104).tx_entry == 0);
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 100, 2, 0, MEMCHAN_RX_IRQ, &off));
	CHECK(off == MEMCHAN_MMAP_RX_BASE + 100 * PAGE);
	CHECK(pct(fd, 101).rx_entry == (MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_IRQ_ON_RX_MASK));
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 103, 2, tx_to(1), 0, NULL), EEXIST);
	CHECK(pct(fd, 104).tx_entry == 0);
	close(fd);
	fd = dev_open();	/* close dropped the grants */
	CHECK(pct(fd, 100).tx_entry == 0 && pct(fd, 100).rx_entry == 0);
}

static void grant_conflicting_route_ebusy(void)
{
	int a = dev_open(), b = dev_open();

	EXPECT_OK(grant(a, MEMCHAN_GRANT_TX, 120, 2, tx_to(1), 0, NULL));
	EXPECT_ERR(grant(b, MEMCHAN_GRANT_TX, 121, 2, tx_to(2), 0, NULL), EBUSY);
	CHECK(pct(b, 122).tx_entry == 0);	/* nothing half-done */
	EXPECT_OK(grant(b, MEMCHAN_GRANT_TX, 121, 1, tx_to(1), 0, NULL));	/* same route: shared */
	EXPECT_OK(ungrant(a, MEMCHAN_GRANT_TX, 120, 2));
	CHECK(pct(b, 120).tx_entry == 0);
	CHECK(pct(b, 121).tx_entry == tx_to(1));	/* b still holds it */
	EXPECT_OK(ungrant(b, MEMCHAN_GRANT_TX, 121, 1));
	CHECK(pct(b, 121).tx_entry == 0);
	/* two receivers, one with IRQ: the entry keeps IRQ_ON_RX while that one holds it */
	EXPECT_OK(grant(a, MEMCHAN_GRANT_RX, 125, 1, 0, MEMCHAN_RX_IRQ, NULL));
	EXPECT_OK(grant(b, MEMCHAN_GRANT_RX, 125, 1, 0, 0, NULL));
	CHECK(pct(a, 125).rx_entry == (MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_IRQ_ON_RX_MASK));
	EXPECT_OK(ungrant(a, MEMCHAN_GRANT_RX, 125, 1));
	CHECK(pct(a, 125).rx_entry == MC_RX_PCT_RX_EN_MASK);
	EXPECT_OK(ungrant(b, MEMCHAN_GRANT_RX, 125, 1));
	CHECK(pct(a, 125).rx_entry == 0);
}

static void revoke_validation(void)
{
	struct memchan_grant g = { .argsz = sizeof(g), .flags = MEMCHAN_GRANT_TX,
				   .first_page = 130, .count = 1, .tx_entry = 1 };
	int fd = dev_open();

	EXPECT_ERR(ungrant(fd, MEMCHAN_GRANT_TX, 130, 1), EACCES);
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 130, 1, tx_to(1), 0, NULL));
	EXPECT_ERR(ungrant(fd, MEMCHAN_GRANT_TX, 130, 2), EACCES);	/* 131 not held */
	EXPECT_ERR(ungrant(fd, MEMCHAN_GRANT_RX, 130, 1), EACCES);
	EXPECT_ERR(ungrant(fd, 0, 130, 1), EINVAL);
	EXPECT_ERR(ungrant(fd, MEMCHAN_GRANT_TX, 130, 0), EINVAL);
	EXPECT_ERR(ioctl(fd, MEMCHAN_REVOKE, &g), EINVAL);
	CHECK(pct(fd, 130).tx_entry == tx_to(1));
	EXPECT_OK(ungrant(fd, MEMCHAN_GRANT_TX, 130, 1));
	CHECK(pct(fd, 130).tx_entry == 0);
}

static void mmap_checks(void)
{
	int fd = dev_open();
	uint32_t pc = info(fd).page_count;
	void *p;

	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 140, 2, tx_to(1), 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 140, 2, 0, 0, NULL));
	CHECK(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 142 * PAGE) == MAP_FAILED &&
	      errno == EACCES);
	CHECK(mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 140 * PAGE) ==
	      MAP_FAILED && errno == EACCES);
	CHECK(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 140 * PAGE) ==
	      MAP_FAILED && errno == EINVAL);
	CHECK(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   MEMCHAN_MMAP_RX_BASE + 140 * PAGE) == MAP_FAILED && errno == EACCES);
	CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd,
		   MEMCHAN_MMAP_RX_BASE + 139 * PAGE) == MAP_FAILED && errno == EACCES);
	CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, (uint64_t)pc * PAGE) == MAP_FAILED &&
	      errno == EINVAL);
	CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE / 2) == MAP_FAILED &&
	      errno == EINVAL);
	CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE * 2) == MAP_FAILED &&
	      errno == EINVAL);
	p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 140 * PAGE);
	CHECK(p != MAP_FAILED);
	EXPECT_ERR(mprotect(p, PAGE, PROT_READ | PROT_WRITE), EACCES);
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 140 * PAGE);
	CHECK(p != MAP_FAILED);
	CHECK(mremap(p, 2 * PAGE, 4 * PAGE, 0) == MAP_FAILED);	/* VM_DONTEXPAND */
}

static void tx_stores_reach_rx_page(void)
{
	int fd = dev_open();
	volatile uint64_t *tx, *rx;
	uint64_t b, i, bad = 0;

	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 150, 4,
			tx_to(0) | MC_TX_PCT_LOCAL_COPY_MASK, 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 150, 4, 0, 0, NULL));
	tx = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 150 * PAGE);
	rx = mmap(NULL, 4 * PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 150 * PAGE);
	CHECK(tx != MAP_FAILED && rx != MAP_FAILED);
	for (b = 0; b < 64; b++)
		tx[b] = 1ULL << b;	/* walking ones */
	for (b = 0; b < 64; b++)
		bad += rx[b] != 1ULL << b;
	for (i = 0; i < 4 * PAGE_WORDS; i++)
		tx[i] = 150 * PAGE + i * 8;	/* address in data */
	for (i = 0; i < 4 * PAGE_WORDS; i++)
		bad += rx[i] != 150 * PAGE + i * 8;
	EXPECT(bad == 0, "%llu words differ", (unsigned long long)bad);
}

static void rx_store_segv(void)
{
	int fd = dev_open();
	char *rx;

	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 160, 1, 0, 0, NULL));
	rx = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 160 * PAGE);
	CHECK(rx != MAP_FAILED);
	CHECK(touch(rx, 0) == 0);
	CHECK(touch(rx, 1) == SIGSEGV);
}

static void revoke_while_mapped_sigbus(void)
{
	int fd = dev_open();
	char *tx, *rx;

	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 170, 2, tx_to(1), 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 170, 1, 0, 0, NULL));
	tx = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 170 * PAGE);
	rx = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 170 * PAGE);
	CHECK(tx != MAP_FAILED && rx != MAP_FAILED);
	CHECK(touch(tx, 1) == 0 && touch(tx + PAGE, 1) == 0 && touch(rx, 0) == 0);
	EXPECT_OK(ungrant(fd, MEMCHAN_GRANT_TX, 171, 1));
	CHECK(touch(tx, 1) == 0);		/* page 170 still granted */
	CHECK(touch(tx + PAGE, 1) == SIGBUS);
	EXPECT_OK(ungrant(fd, MEMCHAN_GRANT_RX, 170, 1));
	CHECK(touch(rx, 0) == SIGBUS);
	/* a new grant of the same page makes the old mapping usable again */
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 170, 1, 0, 0, NULL));
	CHECK(touch(rx, 0) == 0);
}

static void other_file_grants_do_not_map(void)
{
	int a = dev_open(), b = dev_open();

	EXPECT_OK(grant(a, MEMCHAN_GRANT_TX, 180, 1, tx_to(1), 0, NULL));
	CHECK(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, b, 180 * PAGE) == MAP_FAILED &&
	      errno == EACCES);
}

static void notify_poll_read_wait(void)
{
	int fd = dev_open();
	struct memchan_notify n = { .argsz = sizeof(n), .page = 190 };
	struct memchan_wait w = { .argsz = sizeof(w) };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint32_t c0 = info(fd).notify_count;
	uint64_t v;

	EXPECT_ERR(ioctl(fd, MEMCHAN_NOTIFY, &n), EACCES);
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 190, 1, tx_to(0) | MC_TX_PCT_LOCAL_COPY_MASK, 0,
			NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 190, 1, 0, MEMCHAN_RX_IRQ, NULL));
	w.count = c0;
	w.timeout_ns = 20000000;
	EXPECT_ERR(ioctl(fd, MEMCHAN_WAIT, &w), ETIMEDOUT);
	CHECK(poll(&pfd, 1, 0) == 0);
	n.nodes = 0;
	EXPECT_OK(ioctl(fd, MEMCHAN_NOTIFY, &n));
	CHECK(n.nodes == 1);
	CHECK(poll(&pfd, 1, 2000) == 1 && (pfd.revents & POLLIN));
	CHECK(read(fd, &v, sizeof(v)) == sizeof(v) && v == c0 + 1);
	CHECK(poll(&pfd, 1, 0) == 0);
	CHECK(fcntl(fd, F_SETFL, O_NONBLOCK) == 0);
	EXPECT_ERR(read(fd, &v, sizeof(v)), EAGAIN);
	EXPECT_ERR(read(fd, &v, 4), EINVAL);
	w.count = c0;
	w.timeout_ns = 1000000000;
	EXPECT_OK(ioctl(fd, MEMCHAN_WAIT, &w));	/* differs already: no sleep */
	CHECK(w.count == c0 + 1);
	CHECK(info(fd).notify_count == c0 + 1);
	w.pad = 1;
	EXPECT_ERR(ioctl(fd, MEMCHAN_WAIT, &w), EINVAL);
	/* without IRQ_ON_RX nobody is notified */
	EXPECT_OK(ungrant(fd, MEMCHAN_GRANT_RX, 190, 1));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 190, 1, 0, 0, NULL));
	n.nodes = 0;
	EXPECT_OK(ioctl(fd, MEMCHAN_NOTIFY, &n));
	CHECK(n.nodes == 0 && info(fd).notify_count == c0 + 1);
}

static void notify_wakes_sleeping_waiter(void)
{
	int fd = dev_open(), st;
	struct memchan_notify n = { .argsz = sizeof(n), .page = 191 };
	uint32_t c0 = info(fd).notify_count;
	pid_t pid;

	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 191, 1, tx_to(0) | MC_TX_PCT_LOCAL_COPY_MASK, 0,
			NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 191, 1, 0, MEMCHAN_RX_IRQ, NULL));
	pid = fork();
	if (pid == 0) {
		int f2 = dev_open();
		struct memchan_wait w = { .argsz = sizeof(w), .count = c0,
					  .timeout_ns = 5000000000ULL };

		_exit(ioctl(f2, MEMCHAN_WAIT, &w) == 0 && w.count == c0 + 1 ? 0 : 1);
	}
	usleep(200000);
	EXPECT_OK(ioctl(fd, MEMCHAN_NOTIFY, &n));
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* a host process increments NOTIFY_COUNT: MEMCHAN_WAIT sees it at once, not a poll period later */
static void wait_sees_live_count(void)
{
	int fd = dev_open(), i;
	size_t len;
	char *fab = ctl_map(&len);
	volatile uint32_t *count = (volatile uint32_t *)(node_block(fab, 0) + MC_REG_NOTIFY_COUNT);
	struct memchan_wait w = { .argsz = sizeof(w) };

	for (i = 0; i < 20; i++) {
		w.count = *count;
		__atomic_fetch_add((uint32_t *)count, 1, __ATOMIC_SEQ_CST);
		w.timeout_ns = 0;
		EXPECT_OK(ioctl(fd, MEMCHAN_WAIT, &w));
		EXPECT(w.count == *count, "round %d: %u", i, w.count);
	}
}

static void eventfd_signalled(void)
{
	int fd = dev_open(), efd = eventfd(0, EFD_NONBLOCK);
	struct memchan_eventfd e = { .argsz = sizeof(e), .fd = efd };
	struct memchan_notify n = { .argsz = sizeof(n), .page = 192 };
	struct pollfd pfd = { .fd = efd, .events = POLLIN };
	uint64_t v = 0;

	EXPECT_OK(ioctl(fd, MEMCHAN_SET_EVENTFD, &e));
	e.fd = fd;	/* not an eventfd */
	EXPECT_ERR(ioctl(fd, MEMCHAN_SET_EVENTFD, &e), EINVAL);
	e.fd = -5;
	EXPECT_ERR(ioctl(fd, MEMCHAN_SET_EVENTFD, &e), EINVAL);
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 192, 1, tx_to(0) | MC_TX_PCT_LOCAL_COPY_MASK, 0,
			NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 192, 1, 0, MEMCHAN_RX_IRQ, NULL));
	EXPECT_OK(ioctl(fd, MEMCHAN_NOTIFY, &n));
	CHECK(poll(&pfd, 1, 2000) == 1);
	CHECK(read(efd, &v, sizeof(v)) == sizeof(v) && v >= 1);
	e.fd = -1;
	EXPECT_OK(ioctl(fd, MEMCHAN_SET_EVENTFD, &e));
}

static void barrier_sweep(void)
{
	int fd = dev_open();
	struct memchan_barrier b = { .argsz = sizeof(b) };
	size_t len;
	char *fab = ctl_map(&len);

	U32(node_block(fab, 0), MC_REG_BARRIER) = 0;
	EXPECT_OK(ioctl(fd, MEMCHAN_BARRIER, &b));
	CHECK(b.ack_outstanding == 0);
	CHECK(U32(node_block(fab, 0), MC_REG_BARRIER) & MC_BARRIER_DONE_MASK);
	b.timeout_ns = 11000000000ULL;
	EXPECT_ERR(ioctl(fd, MEMCHAN_BARRIER, &b), EINVAL);
	b.timeout_ns = 0;
	b.flags = 1;
	EXPECT_ERR(ioctl(fd, MEMCHAN_BARRIER, &b), EINVAL);
	b.flags = 0;
	b.pad = 1;
	EXPECT_ERR(ioctl(fd, MEMCHAN_BARRIER, &b), EINVAL);
}

static void errcnt(void)
{
	int fd = dev_open();
	struct memchan_errcnt e = { .argsz = sizeof(e) };

	EXPECT_OK(ioctl(fd, MEMCHAN_ERRCNT, &e));
	CHECK(e.count == 0 && e.changed == 0);
	e = (struct memchan_errcnt){ .argsz = sizeof(e), .flags = MEMCHAN_ERRCNT_CHECK, .since = 0 };
	EXPECT_OK(ioctl(fd, MEMCHAN_ERRCNT, &e));
	CHECK(e.changed == 0);
	e = (struct memchan_errcnt){ .argsz = sizeof(e), .flags = MEMCHAN_ERRCNT_CHECK, .since = 5 };
	EXPECT_OK(ioctl(fd, MEMCHAN_ERRCNT, &e));
	CHECK(e.changed == 1);
	e = (struct memchan_errcnt){ .argsz = sizeof(e), .since = 5 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_ERRCNT, &e), EINVAL);
	e = (struct memchan_errcnt){ .argsz = sizeof(e), .flags = 2 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_ERRCNT, &e), EINVAL);
}

static void loopback_ioctl(void)
{
	int fd = dev_open();
	struct memchan_loopback l = { .argsz = sizeof(l), .mode = MC_LOOPBACK_MODE_INTERNAL };

	EXPECT_ERR(ioctl(fd, MEMCHAN_LOOPBACK, &l), EOPNOTSUPP);
	l.mode = MC_LOOPBACK_MODE_EXTERNAL + 1;
	EXPECT_ERR(ioctl(fd, MEMCHAN_LOOPBACK, &l), EINVAL);
	l.mode = MC_LOOPBACK_MODE_OFF;
	EXPECT_OK(ioctl(fd, MEMCHAN_LOOPBACK, &l));
	CHECK(info(fd).loopback == 0);
}

static void pct_raw_access(void)
{
	int fd = dev_open();
	struct memchan_pct p = { .argsz = sizeof(p), .page = 200 };
	uint32_t pc = info(fd).page_count;

	p.flags = MEMCHAN_PCT_WRITE_RX;
	p.rx_entry = MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_REMAP_EN_MASK;
	EXPECT_ERR(ioctl(fd, MEMCHAN_PCT, &p), EINVAL);
	p.rx_entry = MC_RX_PCT_RX_EN_MASK | 0x1000;
	EXPECT_ERR(ioctl(fd, MEMCHAN_PCT, &p), EINVAL);
	p.rx_entry = 1 << 2;
	EXPECT_ERR(ioctl(fd, MEMCHAN_PCT, &p), EINVAL);
	p.flags = MEMCHAN_PCT_WRITE_TX;
	p.tx_entry = tx_to(1) | 1 << 3;
	EXPECT_ERR(ioctl(fd, MEMCHAN_PCT, &p), EINVAL);
	p.tx_entry = tx_to(20);
	EXPECT_ERR(ioctl(fd, MEMCHAN_PCT, &p), EINVAL);
	p.flags = 4;
	EXPECT_ERR(ioctl(fd, MEMCHAN_PCT, &p), EINVAL);
	p.flags = 0;
	p.tx_entry = 1;
	EXPECT_ERR(ioctl(fd, MEMCHAN_PCT, &p), EINVAL);	/* read with input set */
	p = (struct memchan_pct){ .argsz = sizeof(p), .page = pc };
	EXPECT_ERR(ioctl(fd, MEMCHAN_PCT, &p), EINVAL);
	p = (struct memchan_pct){ .argsz = sizeof(p), .page = 200,
		.flags = MEMCHAN_PCT_WRITE_TX | MEMCHAN_PCT_WRITE_RX,
		.tx_entry = tx_to(3) | MC_TX_PCT_ACK_REQ_MASK,
		.rx_entry = MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_IRQ_ON_RX_MASK };
	EXPECT_OK(ioctl(fd, MEMCHAN_PCT, &p));
	CHECK(pct(fd, 200).tx_entry == (tx_to(3) | MC_TX_PCT_ACK_REQ_MASK));
	CHECK(pct(fd, 200).rx_entry == (MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_IRQ_ON_RX_MASK));
	/* a raw entry is a route too: a different grant conflicts */
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 200, 1, tx_to(1), 0, NULL), EBUSY);
	p.tx_entry = 0;
	p.rx_entry = 0;
	EXPECT_OK(ioctl(fd, MEMCHAN_PCT, &p));
	CHECK(pct(fd, 200).tx_entry == 0 && pct(fd, 200).rx_entry == 0);
}

/*
 * The transmit PCT rule (regmap/memchan.toml [tx_pct_rule]): every row of
 * regmap/vectors/tx-pct-rule.csv (gen.py's own evaluation) for this adapter's MAX_NODES, CAPS and
 * backend, written raw to a page's TX entry: the verdict OK is accepted (and cleared again), EMULATED
 * and CAPS are EOPNOTSUPP, the rest EINVAL, and a refused write leaves the entry as it was. The file
 * is found from this binary (native/tests/ in the checkout the guest sees over 9p).
 */
static void tx_rule_vectors(void)
{
	int fd = dev_open();
	struct memchan_info in = info(fd);
	struct memchan_pct p = { .argsz = sizeof(p), .flags = MEMCHAN_PCT_WRITE_TX, .page = 201 };
	char path[PATH_MAX], line[160], want[32];
	unsigned int e, nodes, caps, rows = 0, seen = 0;
	int emulated, r, err;
	ssize_t n;
	char *dir;
	FILE *f;

	n = readlink("/proc/self/exe", path, sizeof(path) - 64);
	CHECK(n > 0);
	path[n] = 0;
	dir = strstr(path, "/native/tests/");
	EXPECT(dir, "%s is not in a checkout's native/tests", path);
	strcpy(dir, "/regmap/vectors/tx-pct-rule.csv");
	f = fopen(path, "r");
	EXPECT(f, "%s: %s", path, strerror(errno));
	CHECK(pct(fd, 201).tx_entry == 0);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "tx_pct_rule,%u,%u,%u,%d,%31s", &e, &nodes, &caps, &emulated, want) != 5)
			continue;
		rows++;
		if (nodes != in.max_nodes || caps != in.caps ||
		    emulated != (in.backend != MEMCHAN_BACKEND_HW))
			continue;
		p.tx_entry = e;
		errno = 0;
		r = ioctl(fd, MEMCHAN_PCT, &p);
		err = r ? errno : 0;
		if (!strcmp(want, "OK")) {
			EXPECT(r == 0, "entry %#x (%s): %s", e, want, strerror(err));
			CHECK(pct(fd, 201).tx_entry == e);
			p.tx_entry = 0;
			EXPECT_OK(ioctl(fd, MEMCHAN_PCT, &p));
		} else {
			int expect = strcmp(want, "EMULATED") && strcmp(want, "CAPS") ? EINVAL : EOPNOTSUPP;

			EXPECT(r == -1 && err == expect, "entry %#x (%s): want %s, got %s", e, want,
			       strerrorname_np(expect), err ? strerrorname_np(err) : "success");
		}
		CHECK(pct(fd, 201).tx_entry == 0);
		seen++;
	}
	fclose(f);
	EXPECT(rows > 1000, "only %u vectors in %s", rows, path);
	EXPECT(seen > 100, "%u of %u vectors are for MAX_NODES %u, CAPS %#x, %s (gen.py's render_vectors)",
	       seen, rows, in.max_nodes, in.caps, in.backend == MEMCHAN_BACKEND_HW ? "a board" : "emulated");
	printf("# %u transmit PCT rule vectors reproduced by the driver\n", seen);
	close(fd);
}

/*
 * Remote read and atomics (issue 11): receive grants and raw PCT writes carry READ_EN and
 * ATOMIC_EN into this node's RX PCT in the soft-fabric file (read back there); bad input is
 * refused and changes nothing; old callers (rx_flags 0 or MEMCHAN_RX_IRQ) see what they saw.
 */
static void rx_attributes(void)
{
	const uint64_t en = MC_RX_PCT_RX_EN_MASK, rd = MC_RX_PCT_READ_EN_MASK;
	const uint64_t at = MC_RX_PCT_ATOMIC_EN_MASK, irq = MC_RX_PCT_IRQ_ON_RX_MASK;
	int a = dev_open(), b = dev_open();
	struct memchan_info in = info(a);
	struct memchan_pct p = { .argsz = sizeof(p), .flags = MEMCHAN_PCT_WRITE_RX, .page = 222 };
	size_t len;
	char *fab = ctl_map(&len);
	char *rx_pct = node_block(fab, 0) + mc_sf_rx_pct_offset(in.page_size, in.page_count);

	CHECK(in.flags & MEMCHAN_INFO_RX_ATTRS);
	CHECK(in.caps & MC_CAPS_REMOTE_READ_MASK && in.caps & MC_CAPS_ATOMICS_MASK);
	EXPECT_ERR(grant(a, MEMCHAN_GRANT_RX, 220, 2, 0, MEMCHAN_RX_READ | MEMCHAN_RX_COUNT_IRQ << 1, NULL), EINVAL);
	EXPECT_ERR(grant(a, MEMCHAN_GRANT_TX, 220, 1, tx_to(1), MEMCHAN_RX_READ, NULL), EINVAL);
	CHECK(pct(a, 220).rx_entry == 0 && U64(rx_pct, 220 * MC_RX_PCT_ENTRY_SIZE) == 0);
	EXPECT_ERR(ungrant(a, MEMCHAN_GRANT_RX, 220, 1), EACCES);	/* nothing was granted */

	EXPECT_OK(grant(a, MEMCHAN_GRANT_RX, 220, 2, 0, MEMCHAN_RX_READ, NULL));
	CHECK(pct(a, 220).rx_entry == (en | rd) && pct(a, 221).rx_entry == (en | rd));
	CHECK(U64(rx_pct, 221 * MC_RX_PCT_ENTRY_SIZE) == (en | rd));
	EXPECT_OK(grant(b, MEMCHAN_GRANT_RX, 220, 1, 0, MEMCHAN_RX_ATOMIC | MEMCHAN_RX_IRQ, NULL));
	CHECK(pct(a, 220).rx_entry == (en | rd | at | irq));
	CHECK(U64(rx_pct, 220 * MC_RX_PCT_ENTRY_SIZE) == (en | rd | at | irq));
	EXPECT_OK(ungrant(a, MEMCHAN_GRANT_RX, 220, 2));	/* b's attributes stay */
	CHECK(pct(a, 220).rx_entry == (en | at | irq) && pct(a, 221).rx_entry == 0);
	close(b);
	CHECK(pct(a, 220).rx_entry == 0 && U64(rx_pct, 220 * MC_RX_PCT_ENTRY_SIZE) == 0);

	p.rx_entry = en | rd | at;
	EXPECT_OK(ioctl(a, MEMCHAN_PCT, &p));
	CHECK(p.rx_entry == (en | rd | at) && U64(rx_pct, 222 * MC_RX_PCT_ENTRY_SIZE) == (en | rd | at));
	p.rx_entry = rd | 1ULL << 7;
	EXPECT_ERR(ioctl(a, MEMCHAN_PCT, &p), EINVAL);
	CHECK(pct(a, 222).rx_entry == (en | rd | at));
	p.rx_entry = rd;				/* readable, not writable: independent of RX_EN */
	EXPECT_OK(ioctl(a, MEMCHAN_PCT, &p));
	CHECK(pct(a, 222).rx_entry == rd);
	p.rx_entry = 0;
	EXPECT_OK(ioctl(a, MEMCHAN_PCT, &p));
	CHECK(pct(a, 222).rx_entry == 0 && U64(rx_pct, 222 * MC_RX_PCT_ENTRY_SIZE) == 0);
}

static int remote_copy(int fd, uint32_t home, uint64_t addr, uint64_t len, void *buf)
{
	struct memchan_remote r = { .argsz = sizeof(r), .home = home, .op = MEMCHAN_REMOTE_COPY,
				    .addr = addr, .operand = len, .buffer = (uintptr_t)buf };

	return ioctl(fd, MEMCHAN_REMOTE, &r);
}

static int remote(int fd, uint32_t home, uint32_t op, uint64_t addr, uint64_t operand,
		  uint64_t compare, uint64_t *result)
{
	struct memchan_remote r = { .argsz = sizeof(r), .home = home, .op = op, .addr = addr,
				    .operand = operand, .compare = compare };
	int ret = ioctl(fd, MEMCHAN_REMOTE, &r);

	if (!ret && result)
		*result = r.result;
	return ret;
}

static struct memchan_page_counters counters(int fd, uint32_t page, uint32_t flags,
					      uint32_t threshold)
{
	struct memchan_page_counters c = { .argsz = sizeof(c), .flags = flags, .page = page,
					   .threshold = threshold };

	if (ioctl(fd, MEMCHAN_PAGE_COUNTERS, &c))
		FAIL("MEMCHAN_PAGE_COUNTERS page %u: %s", page, strerror(errno));
	return c;
}

/*
 * MEMCHAN_REMOTE on the soft fabric: node 0 is the home of pages 230 (READ), 231
 * (ATOMIC) and 232 (READ, COUNT_IRQ); what it serves, what it refuses (counted,
 * nothing changed), what the core refuses before the home sees it (not counted).
 */
static void remote_ops(void)
{
	int a = dev_open(), b = dev_open();
	struct memchan_info in = info(a);
	uint64_t ps = in.page_size, old = 0, v = 0, i;
	size_t len;
	char *fab = ctl_map(&len);
	char *data = fab + U64(fab, MC_SF_HDR_DATA_OFFSET);
	char *home = node_block(fab, 0), *other = node_block(fab, 1);
	uint32_t refused = U32(home, MC_REG_REMOTE_REFUSED);
	uint32_t refused1 = U32(other, MC_REG_REMOTE_REFUSED);
	struct memchan_remote bad = { .argsz = sizeof(bad), .op = MEMCHAN_REMOTE_READ, .addr = 230 * ps };
	struct memchan_page_counters c;

	CHECK(in.flags & MEMCHAN_INFO_REMOTE);
	CHECK(in.node_id == 0);
	EXPECT_OK(grant(a, MEMCHAN_GRANT_RX, 230, 1, 0, MEMCHAN_RX_READ, NULL));
	EXPECT_OK(grant(a, MEMCHAN_GRANT_RX, 231, 1, 0, MEMCHAN_RX_ATOMIC, NULL));
	EXPECT_OK(grant(b, MEMCHAN_GRANT_RX, 232, 1, 0, MEMCHAN_RX_READ | MEMCHAN_RX_COUNT_IRQ, NULL));
	CHECK(pct(a, 232).rx_entry == (MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_READ_EN_MASK |
				       MC_RX_PCT_COUNT_IRQ_MASK));
	U64(data, 230 * ps + 8) = 0x1122334455667788ULL;
	U64(data, 231 * ps + 16) = 40;
	CHECK(counters(a, 230, 0, 0).reads == 0 && counters(a, 231, 0, 0).atomics == 0);

	/* served */
	EXPECT_OK(remote(b, 0, MEMCHAN_REMOTE_READ, 230 * ps + 8, 0, 0, &v));
	CHECK(v == 0x1122334455667788ULL);
	EXPECT_OK(remote(a, 0, MEMCHAN_REMOTE_FETCH_ADD, 231 * ps + 16, 2, 0, &old));
	CHECK(old == 40 && U64(data, 231 * ps + 16) == 42);
	EXPECT_OK(remote(a, 0, MEMCHAN_REMOTE_SWAP, 231 * ps + 16, 7, 0, &old));
	CHECK(old == 42 && U64(data, 231 * ps + 16) == 7);
	EXPECT_OK(remote(a, 0, MEMCHAN_REMOTE_CAS, 231 * ps + 16, 9, 8, &old));	/* 7 != 8 */
	CHECK(old == 7 && U64(data, 231 * ps + 16) == 7);
	EXPECT_OK(remote(a, 0, MEMCHAN_REMOTE_CAS, 231 * ps + 16, 9, 7, &old));
	CHECK(old == 7 && U64(data, 231 * ps + 16) == 9);
	EXPECT_OK(remote(a, 0, MEMCHAN_REMOTE_CHECK, 230 * ps, 2 * ps, 0, NULL));
	c = counters(a, 230, 0, 0);
	CHECK(c.reads == 1 && c.atomics == 0 && c.hot == MEMCHAN_PAGE_NONE);
	c = counters(b, 231, 0, 0);
	CHECK(c.reads == 0 && c.atomics == 4);
	CHECK(U32(home, MC_REG_REMOTE_REFUSED) == refused);

	/* refused by the home: counted there, nothing changed */
	EXPECT_ERR(remote(a, 0, MEMCHAN_REMOTE_READ, 231 * ps + 16, 0, 0, &v), EACCES);
	EXPECT_ERR(remote(a, 0, MEMCHAN_REMOTE_FETCH_ADD, 230 * ps + 8, 1, 0, &v), EACCES);
	EXPECT_ERR(remote(a, 0, MEMCHAN_REMOTE_READ, 230 * ps + 4, 0, 0, &v), EACCES);
	EXPECT_ERR(remote(a, 0, MEMCHAN_REMOTE_SWAP, 231 * ps + 12, 1, 0, &v), EACCES);
	EXPECT_ERR(remote(a, 0, MEMCHAN_REMOTE_CHECK, 230 * ps, 4 * ps, 0, NULL), EACCES);
	EXPECT_ERR(remote(a, 0, MEMCHAN_REMOTE_READ, 233 * ps, 0, 0, &v), EACCES);
	CHECK(U32(home, MC_REG_REMOTE_REFUSED) == refused + 6);
	EXPECT_ERR(remote(a, 1, MEMCHAN_REMOTE_READ, 230 * ps + 8, 0, 0, &v), EACCES);
	CHECK(U32(other, MC_REG_REMOTE_REFUSED) == refused1 + 1);	/* the asked node counts */
	CHECK(U64(data, 230 * ps + 8) == 0x1122334455667788ULL && U64(data, 231 * ps + 16) == 9);
	c = counters(a, 230, 0, 0);
	CHECK(c.reads == 1 && c.atomics == 0);
	CHECK(counters(a, 231, 0, 0).atomics == 4);

	/* refused before the home: not counted */
	EXPECT_ERR(remote(a, 0, 5, 230 * ps + 8, 0, 0, &v), EINVAL);
	EXPECT_ERR(remote(a, in.max_nodes, MEMCHAN_REMOTE_READ, 230 * ps + 8, 0, 0, &v), EINVAL);
	EXPECT_ERR(remote(a, 0, MEMCHAN_REMOTE_READ, in.window_size - 4, 0, 0, &v), EINVAL);
	EXPECT_ERR(remote(a, 0, MEMCHAN_REMOTE_READ, 230 * ps + 8, 1, 0, &v), EINVAL);
	EXPECT_ERR(remote(a, 0, MEMCHAN_REMOTE_FETCH_ADD, 231 * ps + 16, 1, 1, &v), EINVAL);
	EXPECT_ERR(remote(a, 0, MEMCHAN_REMOTE_CHECK, 230 * ps, 0, 0, NULL), EINVAL);
	EXPECT_ERR(remote(a, 0, MEMCHAN_REMOTE_CHECK, 230 * ps, in.window_size, 0, NULL), EINVAL);
	bad.flags = 1;
	EXPECT_ERR(ioctl(a, MEMCHAN_REMOTE, &bad), EINVAL);
	bad.flags = 0;
	bad.result = 1;
	EXPECT_ERR(ioctl(a, MEMCHAN_REMOTE, &bad), EINVAL);
	bad.result = 0;
	bad.argsz = sizeof(bad) - 8;
	EXPECT_ERR(ioctl(a, MEMCHAN_REMOTE, &bad), EINVAL);
	CHECK(U32(home, MC_REG_REMOTE_REFUSED) == refused + 6);
	CHECK(U64(data, 231 * ps + 16) == 9 && counters(a, 231, 0, 0).atomics == 4);

	/* remote copy: any alignment, one read per page, all or nothing */
	{
		unsigned char buf[64], want[64];

		memset(buf, 0xaa, sizeof(buf));
		memset(want, 0xaa, sizeof(want));
		EXPECT_OK(remote_copy(b, 0, 230 * ps + 5, 11, buf));
		CHECK(!memcmp(buf, data + 230 * ps + 5, 11) && buf[11] == 0xaa);
		CHECK(buf[3] == 0x88 && buf[6] == 0x55);	/* bytes 0 and 3 of the word at +8 */
		CHECK(counters(a, 230, 0, 0).reads == 2);
		EXPECT_ERR(remote_copy(b, 0, 231 * ps - 8, 16, buf + 16), EACCES);
		CHECK(U32(home, MC_REG_REMOTE_REFUSED) == refused + 7);
		CHECK(!memcmp(buf + 16, want + 16, 48) && counters(a, 230, 0, 0).reads == 2);
		EXPECT_ERR(remote_copy(b, 0, 230 * ps, MEMCHAN_REMOTE_COPY_MAX + 1, buf), EINVAL);
		EXPECT_ERR(remote_copy(b, 0, in.window_size - 8, 16, buf), EINVAL);
		EXPECT_ERR(remote_copy(b, 0, 230 * ps, 0, buf), EINVAL);
		bad.buffer = (uintptr_t)buf;	/* a buffer only with COPY */
		EXPECT_ERR(ioctl(a, MEMCHAN_REMOTE, &bad), EINVAL);
		bad.buffer = 0;
		EXPECT_ERR(remote_copy(b, 0, 230 * ps, 8, (void *)8), EFAULT);
		CHECK(counters(a, 230, 0, 0).reads == 3);	/* served, then not deliverable */
		CHECK(U32(home, MC_REG_REMOTE_REFUSED) == refused + 7);
	}

	/* the counter interrupt: page 232 reaches the threshold once */
	EXPECT_ERR(ioctl(a, MEMCHAN_PAGE_COUNTERS, &(struct memchan_page_counters){
		.argsz = sizeof(c), .page = 232, .threshold = 3 }), EINVAL);
	EXPECT_ERR(ioctl(a, MEMCHAN_PAGE_COUNTERS, &(struct memchan_page_counters){
		.argsz = sizeof(c), .flags = 4, .page = 232 }), EINVAL);
	EXPECT_ERR(ioctl(a, MEMCHAN_PAGE_COUNTERS, &(struct memchan_page_counters){
		.argsz = sizeof(c), .page = in.page_count }), EINVAL);
	CHECK(counters(a, 232, 0, 0).threshold == 0);
	CHECK(counters(a, 232, MEMCHAN_PAGE_SET_THRESHOLD, 3).threshold == 3);
	CHECK(U32(home, MC_REG_PAGE_CNT_THRESHOLD) == 3);
	for (i = 0; i < 2; i++)
		EXPECT_OK(remote(b, 0, MEMCHAN_REMOTE_READ, 232 * ps, 0, 0, &v));
	CHECK(!(U32(home, MC_REG_IRQ_STATUS) & MC_IRQ_STATUS_PAGE_HOT_MASK));
	v = U32(home, MC_REG_NOTIFY_COUNT);
	EXPECT_OK(remote(b, 0, MEMCHAN_REMOTE_READ, 232 * ps, 0, 0, &old));
	CHECK(U32(home, MC_REG_IRQ_STATUS) & MC_IRQ_STATUS_PAGE_HOT_MASK);
	CHECK(U32(home, MC_REG_PAGE_HOT) == 232 && U32(home, MC_REG_NOTIFY_COUNT) == v + 1);
	EXPECT_OK(remote(b, 0, MEMCHAN_REMOTE_READ, 232 * ps, 0, 0, &old));	/* past it: once */
	CHECK(U32(home, MC_REG_NOTIFY_COUNT) == v + 1);
	c = counters(a, 232, MEMCHAN_PAGE_TAKE_HOT, 0);
	CHECK(c.hot == 232 && c.reads == 4);
	CHECK(!(U32(home, MC_REG_IRQ_STATUS) & MC_IRQ_STATUS_PAGE_HOT_MASK));
	CHECK(counters(a, 232, MEMCHAN_PAGE_TAKE_HOT, 0).hot == MEMCHAN_PAGE_NONE);
	CHECK(counters(a, 232, MEMCHAN_PAGE_SET_THRESHOLD, 0).threshold == 0);

	/* a page's first receive grant starts its counters from zero (a new region's home) */
	EXPECT_OK(ungrant(a, MEMCHAN_GRANT_RX, 230, 1));
	CHECK(counters(a, 230, 0, 0).reads == 3);	/* kept while nobody receives the page */
	EXPECT_OK(grant(a, MEMCHAN_GRANT_RX, 230, 1, 0, 0, NULL));
	CHECK(counters(a, 230, 0, 0).reads == 0);
}

static void one_route_per_page_across_nodes(void)
{
	int fd = dev_open();
	size_t len;
	char *fab = ctl_map(&len);
	volatile uint32_t *other = (volatile uint32_t *)(node_block(fab, 1) + MC_SF_NODE_TX_PCT +
							 210 * MC_TX_PCT_ENTRY_SIZE);

	*other = tx_to(2);	/* node 1 routes page 210 to node 2 */
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 210, 1, tx_to(3), 0, NULL), EBUSY);
	EXPECT_ERR(grant(fd, MEMCHAN_GRANT_TX, 209, 3, tx_to(3), 0, NULL), EBUSY);
	CHECK(pct(fd, 209).tx_entry == 0);
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 210, 1, tx_to(2), 0, NULL));
	EXPECT_OK(ungrant(fd, MEMCHAN_GRANT_TX, 210, 1));
	*other = 0;
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 210, 1, tx_to(3), 0, NULL));
}

static void set_node_busy_with_grants(void)
{
	int fd = dev_open();

	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 220, 1, 0, 0, NULL));
	EXPECT_ERR(set_node(fd, 3, 0), EBUSY);
	EXPECT_ERR(set_node(fd, MEMCHAN_NODE_NONE, 0), EBUSY);
	CHECK(info(fd).node_id == 0);
}

static void node_claim_in_use_and_takeover(void)
{
	int fd = dev_open();
	size_t len;
	char *fab = ctl_map(&len), *nb2 = node_block(fab, 2), *nb0 = node_block(fab, 0);
	struct timespec t0, t1;

	U64(nb2, MC_SF_NODE_INCARNATION) = 6;
	U64(nb2, MC_SF_NODE_OWNER) = mc_sf_owner_word(6, 4242);	/* a dead owner elsewhere */
	EXPECT_ERR(set_node(fd, 2, 0), EBUSY);
	CHECK(info(fd).node_id == 0 && U64(nb0, MC_SF_NODE_OWNER) != 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	EXPECT_OK(set_node(fd, 2, MEMCHAN_NODE_TAKEOVER));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* it watched the heartbeat for the failure timeout first */
	CHECK((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 >= 900);
	CHECK(info(fd).node_id == 2);
	CHECK(U64(nb2, MC_SF_NODE_INCARNATION) == 7);
	CHECK(mc_sf_owner_incarnation(U64(nb2, MC_SF_NODE_OWNER)) == 7);
	CHECK(U64(nb0, MC_SF_NODE_OWNER) == 0 && U32(nb0, MC_REG_NODE_ID) == 0);
	EXPECT_OK(set_node(fd, MEMCHAN_NODE_NONE, 0));
	CHECK(U64(nb2, MC_SF_NODE_OWNER) == 0);
	CHECK(info(fd).node_id == MEMCHAN_NODE_NONE);
	EXPECT_OK(set_node(fd, 0, 0));
	CHECK(U64(nb0, MC_SF_NODE_INCARNATION) == 2);
}

static void sysfs_attributes(void)
{
	int fd = dev_open();
	char buf[128], want[64];

	CHECK(read_sysfs("backend", buf, sizeof(buf)) == 0 && !strcmp(buf, "ivshmem\n"));
	CHECK(read_sysfs("node_id", buf, sizeof(buf)) == 0 && !strcmp(buf, "0\n"));
	snprintf(want, sizeof(want), "%u\n", PAGE);
	CHECK(read_sysfs("page_size", buf, sizeof(buf)) == 0 && !strcmp(buf, want));
	CHECK(read_sysfs("page_count", buf, sizeof(buf)) == 0 &&
	      (uint32_t)atoi(buf) == info(fd).page_count);
	snprintf(want, sizeof(want), "%u.%u api=%u", MC_VERSION_MAJOR, MC_VERSION_MINOR,
		 MEMCHAN_API_VERSION);	/* the register map's version, from regmap */
	CHECK(read_sysfs("version", buf, sizeof(buf)) == 0 && !strncmp(buf, want, strlen(want)));
	CHECK(read_sysfs("link_state", buf, sizeof(buf)) == 0 && !strcmp(buf, "soft\n"));
	CHECK(read_sysfs("irq_mode", buf, sizeof(buf)) == 0 && !strcmp(buf, "none\n"));
	CHECK(read_sysfs("counters/notify_count", buf, sizeof(buf)) == 0 &&
	      (uint32_t)atoi(buf) == info(fd).notify_count);
	CHECK(read_sysfs("counters/error_count", buf, sizeof(buf)) == 0 && !strcmp(buf, "0\n"));
}

static void unprivileged_refused(void)
{
	int st;
	pid_t pid;

	CHECK(chmod(dev_path, 0666) == 0 && chmod(ctl_path, 0666) == 0);
	pid = fork();
	if (pid == 0) {
		struct memchan_pct p = { .argsz = sizeof(p), .page = 230,
					 .flags = MEMCHAN_PCT_WRITE_TX, .tx_entry = tx_to(1) };
		struct memchan_loopback l = { .argsz = sizeof(l) };
		int fd;
		void *m;

		if (setgid(65534) || setuid(65534))
			FAIL("setuid: %s", strerror(errno));
		fd = dev_open();
		EXPECT_ERR(set_node(fd, 1, 0), EPERM);
		EXPECT_ERR(set_node(fd, MEMCHAN_NODE_NONE, 0), EPERM);
		EXPECT_ERR(ioctl(fd, MEMCHAN_PCT, &p), EPERM);
		EXPECT_ERR(ioctl(fd, MEMCHAN_LOOPBACK, &l), EPERM);
		EXPECT_ERR(open(ctl_path, O_RDWR), EPERM);
		CHECK(info(fd).node_id == 0);
		/* grants are for ordinary users: the library's system pages */
		EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 0, MC_SYS_PAGES,
				MC_TX_PCT_TX_EN_MASK | MC_TX_PCT_LOCAL_COPY_MASK |
				MC_DEST_KIND_BROADCAST << MC_TX_PCT_DEST_KIND_SHIFT, 0, NULL));
		EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 0, MC_SYS_PAGES, 0, MEMCHAN_RX_IRQ, NULL));
		m = mmap(NULL, MC_SYS_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		CHECK(m != MAP_FAILED);
		CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 231 * PAGE) == MAP_FAILED &&
		      errno == EACCES);
		CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd,
			   MEMCHAN_MMAP_RX_BASE + 231 * PAGE) == MAP_FAILED && errno == EACCES);
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid);
	chmod(dev_path, 0600);
	chmod(ctl_path, 0600);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static const unsigned int fuzz_cmds[] = {
	MEMCHAN_GET_API_VERSION, MEMCHAN_INFO, MEMCHAN_SET_NODE, MEMCHAN_PCT, MEMCHAN_GRANT,
	MEMCHAN_REVOKE, MEMCHAN_BARRIER, MEMCHAN_WAIT, MEMCHAN_SET_EVENTFD, MEMCHAN_NOTIFY,
	MEMCHAN_LOOPBACK, MEMCHAN_ERRCNT, MEMCHAN_REG_READ, MEMCHAN_RELEASE_NODE,
	MEMCHAN_REMOTE, MEMCHAN_PAGE_COUNTERS,
};

static const uint32_t fuzz_sizes[] = {
	0, sizeof(struct memchan_info), sizeof(struct memchan_node), sizeof(struct memchan_pct),
	sizeof(struct memchan_grant), sizeof(struct memchan_grant), sizeof(struct memchan_barrier),
	sizeof(struct memchan_wait), sizeof(struct memchan_eventfd), sizeof(struct memchan_notify),
	sizeof(struct memchan_loopback), sizeof(struct memchan_errcnt), sizeof(struct memchan_reg),
	sizeof(struct memchan_release), sizeof(struct memchan_remote),
	sizeof(struct memchan_page_counters),
};

static void ioctl_fuzz(void)
{
	static uint64_t buf[1100];
	const char *env = getenv("MEMCHAN_FUZZ");
	long iters = env ? atol(env) : 20000, i, ok = 0;
	int fds[3] = { dev_open(), dev_open(), dev_open() };
	uint32_t pc = info(fds[0]).page_count;
	void *m;

	for (i = 0; i < iters; i++) {
		int fd = fds[rnd() % 3];
		unsigned int c = rnd() % ARRAY_SIZE(fuzz_cmds), cmd = fuzz_cmds[c];
		uint32_t *w = (uint32_t *)buf;
		size_t j;

		if (rnd() % 16 == 0)
			cmd = _IOC(rnd() % 4, MEMCHAN_IOC_MAGIC, rnd() % 32, rnd() % 64);
		for (j = 0; j < 16; j++)
			buf[j] = rnd() % 4 ? 0 : rnd();
		switch (rnd() % 6) {
		case 0: w[0] = rnd() % 8192; break;
		case 1: w[0] = 8 + rnd() % 64; break;
		case 2: w[0] = 48 + 8 * (rnd() % 14); break;
		default:	/* the right size, nothing beyond it */
			w[0] = fuzz_sizes[c];
			memset((char *)buf + 8 + fuzz_sizes[c], 0, 64);
			break;
		}
		w[1] = rnd() % 3 ? rnd() % 4 : (uint32_t)rnd();
		/* plausible pages and counts, near the edges too */
		w[2] = rnd() % 2 ? rnd() % (pc + 4) : (uint32_t)rnd();
		w[3] = rnd() % 2 ? rnd() % 16 : (uint32_t)rnd();
		if (cmd == MEMCHAN_GRANT && rnd() % 2)
			w[4] = MC_TX_PCT_TX_EN_MASK | (rnd() % 20) << MC_TX_PCT_DEST_SHIFT |
			       (rnd() % 3) << MC_TX_PCT_DEST_KIND_SHIFT;
		if (cmd == MEMCHAN_WAIT || cmd == MEMCHAN_BARRIER)
			buf[1] %= 2000000;	/* keep sleeps short */
		if (cmd == MEMCHAN_SET_NODE)
			w[3] = 0, w[1] &= ~MEMCHAN_NODE_TAKEOVER;
		if (ioctl(fd, cmd, rnd() % 64 ? (void *)buf : (void *)(uintptr_t)(rnd() % 4096)) == 0)
			ok++;
		if (rnd() % 64 == 0) {
			m = mmap(NULL, PAGE * (1 + rnd() % 4), rnd() % 2 ? PROT_READ :
				 PROT_READ | PROT_WRITE, rnd() % 8 ? MAP_SHARED : MAP_PRIVATE, fd,
				 (rnd() % 2 ? MEMCHAN_MMAP_RX_BASE : 0) + PAGE * (rnd() % (pc + 2)));
			if (m != MAP_FAILED) {
				touch(m, rnd() % 2);
				munmap(m, PAGE);
			}
		}
		if (rnd() % 500 == 0) {
			j = rnd() % 3;
			close(fds[j]);
			fds[j] = dev_open();
		}
	}
	printf("#   %ld ioctls, %ld succeeded\n", iters, ok);
	for (i = 0; i < 3; i++)
		close(fds[i]);
	/* the device still works */
	fds[0] = dev_open();
	if (info(fds[0]).node_id != 0) {
		set_node(fds[0], MEMCHAN_NODE_NONE, 0);
		EXPECT_OK(set_node(fds[0], 0, 0));
	}
	EXPECT_OK(grant(fds[0], MEMCHAN_GRANT_TX, 240, 1, tx_to(1), 0, NULL));
	EXPECT_OK(ungrant(fds[0], MEMCHAN_GRANT_TX, 240, 1));
}

struct test {
	const char *name;
	void (*fn)(void);
};

#define T(f) { #f, f }
static const struct test abi_tests[] = {
	T(api_version),
	T(info_rejects_bad_argsz),
	T(unknown_ioctl_enotty),
	T(info_fields),
	T(grant_without_node_enxio),
	T(set_node_validation),
	T(set_node_claims_block),
	T(heartbeat_advances),
	T(reg_read),
	T(mcast_group_ivshmem),
	T(release_dead_node),
	T(grant_validation),
	T(grant_tx_programs_pct),
	T(grant_conflicting_route_ebusy),
	T(revoke_validation),
	T(mmap_checks),
	T(tx_stores_reach_rx_page),
	T(rx_store_segv),
	T(revoke_while_mapped_sigbus),
	T(other_file_grants_do_not_map),
	T(notify_poll_read_wait),
	T(notify_wakes_sleeping_waiter),
	T(wait_sees_live_count),
	T(eventfd_signalled),
	T(barrier_sweep),
	T(errcnt),
	T(loopback_ioctl),
	T(pct_raw_access),
	T(tx_rule_vectors),
	T(rx_attributes),
	T(remote_ops),
	T(one_route_per_page_across_nodes),
	T(set_node_busy_with_grants),
	T(node_claim_in_use_and_takeover),
	T(sysfs_attributes),
	T(unprivileged_refused),
	T(ioctl_fuzz),
};

/* ---- hardware backend (the co-simulated board of firmware/cosim) ---- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void hw_identity(void)
{
	int fd = dev_open();
	struct memchan_info in = info(fd);
	char buf[64];

	CHECK(in.backend == MEMCHAN_BACKEND_HW);
	EXPECT((in.regmap_version & MC_VERSION_MAJOR_MASK) >> MC_VERSION_MAJOR_SHIFT ==
	       MC_VERSION_MAJOR, "VERSION %#x", in.regmap_version);
	EXPECT(!(in.caps & MC_CAPS_SOFT_MASK), "CAPS %#x", in.caps);
	CHECK(in.caps & MC_CAPS_LOOPBACK_INTERNAL_MASK);
	CHECK(in.window_size == (uint64_t)in.page_count * in.page_size);
	CHECK(read_sysfs("backend", buf, sizeof(buf)) == 0 && !strcmp(buf, "hw\n"));
	CHECK(read_sysfs("irq_mode", buf, sizeof(buf)) == 0);
	printf("# irq_mode %s", buf);
}

/*
 * Internal loopback through the RTL: stores into the transmit window come back as DMA writes
 * into the receive page (guest RAM), in order; the wait polls RAM, never a register.
 */
static void hw_loopback_data(void)
{
	int fd = dev_open();
	struct memchan_loopback l = { .argsz = sizeof(l), .mode = 1 };
	volatile uint64_t *tx, *rx;
	uint64_t i, bad = 0, words = 3 * PAGE_WORDS;
	double t0;

	if (info(fd).node_id == MEMCHAN_NODE_NONE)
		EXPECT_OK(set_node(fd, 0, 0));
	EXPECT_OK(ioctl(fd, MEMCHAN_LOOPBACK, &l));
	CHECK(info(fd).loopback == 1);
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 150, 4, tx_to(0), 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 150, 4, 0, 0, NULL));
	tx = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 150 * PAGE);
	rx = mmap(NULL, 4 * PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 150 * PAGE);
	CHECK(tx != MAP_FAILED && rx != MAP_FAILED);
	t0 = now_s();
	for (i = 0; i < words; i++)
		tx[i] = 0x5a00000000000000ULL | (150 * PAGE + i * 8);
	printf("# %llu 8-byte stores in %.3f s\n", (unsigned long long)words, now_s() - t0);
	/* the last word lands last (one path, in order) */
	while (rx[words - 1] != (0x5a00000000000000ULL | (150 * PAGE + (words - 1) * 8)) &&
	       now_s() - t0 < 60)
		usleep(1000);
	printf("# last word arrived after %.3f s\n", now_s() - t0);
	for (i = 0; i < words; i++)
		bad += rx[i] != (0x5a00000000000000ULL | (150 * PAGE + i * 8));
	EXPECT(bad == 0, "%llu of %llu words differ", (unsigned long long)bad,
	       (unsigned long long)words);
	CHECK(info(fd).rx_packets > 0 && info(fd).error_count == 0);
	l.mode = 0;
	EXPECT_OK(ioctl(fd, MEMCHAN_LOOPBACK, &l));
	CHECK(info(fd).loopback == 0);
}

/* a page granted with MEMCHAN_RX_IRQ raises RX_NOTIFY: poll()/read() see it (irq_mode) */
static void hw_notify_on_arrival(void)
{
	int fd = dev_open();
	struct memchan_loopback l = { .argsz = sizeof(l), .mode = 1 };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	volatile uint64_t *tx;
	uint64_t v, before;

	if (info(fd).node_id == MEMCHAN_NODE_NONE)
		EXPECT_OK(set_node(fd, 0, 0));
	EXPECT_OK(ioctl(fd, MEMCHAN_LOOPBACK, &l));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 160, 1, tx_to(0), 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 160, 1, 0, MEMCHAN_RX_IRQ, NULL));
	tx = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 160 * PAGE);
	CHECK(tx != MAP_FAILED);
	before = info(fd).notify_count;
	tx[0] = 1;
	CHECK(poll(&pfd, 1, 20000) == 1 && (pfd.revents & POLLIN));
	CHECK(read(fd, &v, sizeof(v)) == sizeof(v));
	EXPECT(v != before, "NOTIFY_COUNT %llu", (unsigned long long)v);
	l.mode = 0;
	EXPECT_OK(ioctl(fd, MEMCHAN_LOOPBACK, &l));
}

/*
 * The adapter of fd in internal loopback (node 0 if it has no ID), pages [first, first + count)
 * granted to fd for transmit to node 0 and for receive: what fd stores comes back to it.
 */
static void hw_loop_pages(int fd, uint32_t first, uint32_t count)
{
	struct memchan_loopback l = { .argsz = sizeof(l), .mode = 1 };

	if (info(fd).node_id == MEMCHAN_NODE_NONE)
		EXPECT_OK(set_node(fd, 0, 0));
	EXPECT_OK(ioctl(fd, MEMCHAN_LOOPBACK, &l));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, first, count, tx_to(0), 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, first, count, 0, 0, NULL));
}

/*
 * Receive pages of the hardware backend are the DMA-coherent receive area, mapped at mmap time
 * (dma_mmap_coherent): a mapping's offset selects the page, what arrives is what it shows, the
 * range stays within the area and the grants, and a revoked page is gone from the mapping.
 */
static void hw_rx_mapping(void)
{
	int fd = dev_open();
	struct memchan_loopback l = { .argsz = sizeof(l), .mode = 1 };
	uint32_t pc = info(fd).page_count;
	volatile uint64_t *tx;
	volatile uint64_t *rx2, *rx1;
	const uint64_t v = 0x6b00000000000000ULL | 181;
	double t0;

	hw_loop_pages(fd, 180, 2);
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, pc - 1, 1, 0, 0, NULL));
	tx = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 180 * PAGE);
	rx2 = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 180 * PAGE);
	rx1 = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 181 * PAGE);
	CHECK(tx != MAP_FAILED && rx2 != MAP_FAILED && rx1 != MAP_FAILED);
	/* bounds: beyond the grants, beyond the area, writable */
	CHECK(mmap(NULL, 3 * PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 180 * PAGE) ==
	      MAP_FAILED && errno == EACCES);
	CHECK(mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd,
		   MEMCHAN_MMAP_RX_BASE + (uint64_t)(pc - 1) * PAGE) == MAP_FAILED && errno == EINVAL);
	CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd,
		   MEMCHAN_MMAP_RX_BASE + (uint64_t)pc * PAGE) == MAP_FAILED && errno == EINVAL);
	CHECK(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   MEMCHAN_MMAP_RX_BASE + 181 * PAGE) == MAP_FAILED && errno == EACCES);
	CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd,
		   MEMCHAN_MMAP_RX_BASE + (uint64_t)(pc - 1) * PAGE) != MAP_FAILED);
	/* page 181 word 3 through both mappings, page 180 untouched */
	t0 = now_s();
	tx[PAGE_WORDS + 3] = v;
	while (rx1[3] != v && now_s() - t0 < 60)
		usleep(1000);
	EXPECT(rx1[3] == v && rx2[PAGE_WORDS + 3] == v, "page 181 word 3: %#llx / %#llx",
	       (unsigned long long)rx1[3], (unsigned long long)rx2[PAGE_WORDS + 3]);
	CHECK(rx2[3] != v);
	/* page 180 word 5 */
	tx[5] = v;
	while (rx2[5] != v && now_s() - t0 < 60)
		usleep(1000);
	EXPECT(rx2[5] == v, "page 180 word 5: %#llx", (unsigned long long)rx2[5]);
	/* revoked: gone from both mappings; page 180 stays */
	EXPECT_OK(ungrant(fd, MEMCHAN_GRANT_RX, 181, 1));
	CHECK(touch((char *)rx1, 0) == SIGBUS);
	CHECK(touch((char *)rx2 + PAGE, 0) == SIGBUS);
	CHECK(touch((char *)rx2, 0) == 0);
	/*
	 * granted again: the old mapping stays gone (mapped at mmap time); a new one shows what the
	 * node received, since it receives every page while it has an ID (a region's zeros come from
	 * the library's zeroing stores at its creation, which reach every node); page 180, granted
	 * throughout, keeps its word
	 */
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 181, 1, 0, 0, NULL));
	CHECK(touch((char *)rx1, 0) == SIGBUS);
	rx1 = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 181 * PAGE);
	CHECK(rx1 != MAP_FAILED);
	EXPECT(rx1[3] == v, "page 181 word 3 after a new first grant: %#llx", (unsigned long long)rx1[3]);
	CHECK(rx2[5] == v);
	l.mode = 0;
	EXPECT_OK(ioctl(fd, MEMCHAN_LOOPBACK, &l));
}

/*
 * A receive page granted to two open files (two processes of a node, as every process maps the
 * system pages): one file's revocation, and its close, take the page from that file's mappings
 * only. The other file's mapping, made at mmap time on the hardware backend and unable to fault
 * back in, stays readable and keeps receiving (the driver zapped every file's mapping of the
 * range: the Java conformance suite's receivers died of SIGBUS when another process exited).
 */
static void hw_rx_other_files_mapping_stays(void)
{
	int a = dev_open(), b = dev_open();
	struct memchan_loopback l = { .argsz = sizeof(l), .mode = 0 };
	volatile uint64_t *tx, *ra, *rb;
	const uint64_t v = 0x6c00000000000000ULL | 190;
	double t0;

	hw_loop_pages(a, 190, 1);
	EXPECT_OK(grant(b, MEMCHAN_GRANT_RX, 190, 1, 0, 0, NULL));
	tx = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, a, 190 * PAGE);
	ra = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, a, MEMCHAN_MMAP_RX_BASE + 190 * PAGE);
	rb = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, b, MEMCHAN_MMAP_RX_BASE + 190 * PAGE);
	CHECK(tx != MAP_FAILED && ra != MAP_FAILED && rb != MAP_FAILED);
	CHECK(touch((char *)ra, 0) == 0 && touch((char *)rb, 0) == 0);
	/* b revokes: its mapping goes, a's stays */
	EXPECT_OK(ungrant(b, MEMCHAN_GRANT_RX, 190, 1));
	CHECK(touch((char *)rb, 0) == SIGBUS);
	CHECK(touch((char *)ra, 0) == 0);
	/* b takes the page again, unmaps and closes: a's mapping still stays */
	EXPECT_OK(grant(b, MEMCHAN_GRANT_RX, 190, 1, 0, 0, NULL));
	rb = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, b, MEMCHAN_MMAP_RX_BASE + 190 * PAGE);
	CHECK(rb != MAP_FAILED);
	CHECK(munmap((void *)rb, PAGE) == 0);
	CHECK(close(b) == 0);
	CHECK(touch((char *)ra, 0) == 0);
	/* and receives what arrives after */
	t0 = now_s();
	tx[7] = v;
	while (ra[7] != v && now_s() - t0 < 60)
		usleep(1000);
	EXPECT(ra[7] == v, "page 190 word 7 after the other file closed: %#llx", (unsigned long long)ra[7]);
	EXPECT_OK(ioctl(a, MEMCHAN_LOOPBACK, &l));
}

/* wait up to 60 s for word i of a receive mapping to read v; true if it did */
static int hw_wait_word(volatile uint64_t *rx, unsigned int i, uint64_t v)
{
	double t0 = now_s();

	while (rx[i] != v && now_s() - t0 < 60)
		usleep(1000);
	return rx[i] == v;
}

/*
 * State on join: a store into a page no process of the node receives is kept in the node's copy,
 * so a process that is granted the page later reads it (the soft fabric's and ivshmem's shared
 * pages give this by construction). Before the driver received every page, the store was dropped
 * (RX_DROP_DISABLED) and the late receiver read zeros: a lock set attached after its holder bid
 * missed the bid. The store is known to have arrived when a flag stored after it on the same
 * path has (rule 1).
 */
static void hw_rx_late_receiver(void)
{
	int a = dev_open(), b;
	struct memchan_loopback l = { .argsz = sizeof(l), .mode = 0 };
	volatile uint64_t *tx, *flag, *late;
	const uint64_t v = 0x6d00000000000000ULL | 200, f = 0x6d00000000000000ULL | 201;
	uint32_t drops;

	hw_loop_pages(a, 200, 2);
	EXPECT_OK(ungrant(a, MEMCHAN_GRANT_RX, 200, 1));	/* page 200: no receiver on the node */
	tx = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, a, 200 * PAGE);
	flag = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, a, MEMCHAN_MMAP_RX_BASE + 201 * PAGE);
	CHECK(tx != MAP_FAILED && flag != MAP_FAILED);
	drops = info(a).rx_drop_disabled;
	tx[9] = v;
	__sync_synchronize();	/* write-combining: the data leaves before the flag */
	tx[PAGE_WORDS] = f;
	EXPECT(hw_wait_word(flag, 0, f), "flag on page 201: %#llx", (unsigned long long)flag[0]);
	EXPECT(info(a).rx_drop_disabled == drops, "RX_DROP_DISABLED %u -> %u: the store was dropped",
	       drops, info(a).rx_drop_disabled);
	/* another process of the node attaches now */
	b = dev_open();
	EXPECT_OK(grant(b, MEMCHAN_GRANT_RX, 200, 1, 0, 0, NULL));
	late = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, b, MEMCHAN_MMAP_RX_BASE + 200 * PAGE);
	CHECK(late != MAP_FAILED);
	EXPECT(late[9] == v, "page 200 word 9, stored before the receiver attached: %#llx",
	       (unsigned long long)late[9]);
	EXPECT_OK(ioctl(a, MEMCHAN_LOOPBACK, &l));
}

/*
 * A node-ID change starts the node's copy afresh: what it received under the old ID is gone
 * (the soft fabric's pages of a new ID are zeros), and a refused change (grants held) keeps it.
 * Without an ID nothing is received. Ends as node 0, as the later tests expect.
 */
static void hw_rx_cleared_on_node_change(void)
{
	int fd = dev_open();
	struct memchan_loopback l = { .argsz = sizeof(l), .mode = 0 };
	volatile uint64_t *tx, *rx;
	const uint64_t v = 0x6e00000000000000ULL | 210;
	double t0, changes = 0;

	hw_loop_pages(fd, 210, 1);
	tx = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 210 * PAGE);
	rx = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 210 * PAGE);
	CHECK(tx != MAP_FAILED && rx != MAP_FAILED);
	tx[2] = v;
	EXPECT(hw_wait_word(rx, 2, v), "page 210 word 2: %#llx", (unsigned long long)rx[2]);
	EXPECT_OK(ioctl(fd, MEMCHAN_LOOPBACK, &l));
	/* refused with grants held: ID and copy as they were */
	EXPECT_ERR(set_node(fd, 1, 0), EBUSY);
	CHECK(info(fd).node_id == 0 && rx[2] == v);
	CHECK(munmap((void *)tx, PAGE) == 0 && munmap((void *)rx, PAGE) == 0);
	CHECK(close(fd) == 0);
	fd = dev_open();
	/* no ID: no page received */
	t0 = now_s();
	EXPECT_OK(set_node(fd, MEMCHAN_NODE_NONE, 0));
	changes += now_s() - t0;
	EXPECT(!(pct(fd, 210).rx_entry & MC_RX_PCT_RX_EN_MASK), "page 210 rx %#llx without an ID",
	       (unsigned long long)pct(fd, 210).rx_entry);
	/* a new ID: every page received, from zeros */
	t0 = now_s();
	EXPECT_OK(set_node(fd, 1, 0));
	changes += now_s() - t0;
	CHECK(pct(fd, 210).rx_entry & MC_RX_PCT_RX_EN_MASK);
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 210, 1, 0, 0, NULL));
	rx = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 210 * PAGE);
	CHECK(rx != MAP_FAILED);
	EXPECT(rx[2] == 0, "page 210 word 2 under the new ID: %#llx", (unsigned long long)rx[2]);
	EXPECT_OK(ungrant(fd, MEMCHAN_GRANT_RX, 210, 1));
	t0 = now_s();
	EXPECT_OK(set_node(fd, 0, 0));
	changes += now_s() - t0;
	/* what a node-ID change costs: passes over the receive PCT, four BAR accesses a page */
	printf("# 3 node-ID changes (0 -> none -> 1 -> 0) took %.3f s\n", changes);
}

/*
 * Remote read and atomics on the adapter: granted and programmed where CAPS has them, refused
 * with EOPNOTSUPP and nothing changed where it does not.
 */
static void hw_rx_attributes(void)
{
	static const struct {
		const char *cap_name;
		uint32_t flag, cap;
		uint64_t pct;
	} attr[] = {
		{ "REMOTE_READ", MEMCHAN_RX_READ, MC_CAPS_REMOTE_READ_MASK, MC_RX_PCT_READ_EN_MASK },
		{ "ATOMICS", MEMCHAN_RX_ATOMIC, MC_CAPS_ATOMICS_MASK, MC_RX_PCT_ATOMIC_EN_MASK },
	};
	const uint64_t user = MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_READ_EN_MASK |
			      MC_RX_PCT_ATOMIC_EN_MASK | MC_RX_PCT_IRQ_ON_RX_MASK;
	int fd = dev_open();
	struct memchan_info in = info(fd);
	struct memchan_pct p = { .argsz = sizeof(p), .flags = MEMCHAN_PCT_WRITE_RX, .page = 185 };
	size_t i;

	if (in.node_id == MEMCHAN_NODE_NONE)
		EXPECT_OK(set_node(fd, 0, 0));
	CHECK(in.flags & MEMCHAN_INFO_RX_ATTRS);
	for (i = 0; i < sizeof(attr) / sizeof(attr[0]); i++) {
		printf("# CAPS.%s %s\n", attr[i].cap_name, in.caps & attr[i].cap ? "set" : "clear");
		if (in.caps & attr[i].cap) {
			EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 185, 1, 0, attr[i].flag, NULL));
			CHECK((pct(fd, 185).rx_entry & user) == (MC_RX_PCT_RX_EN_MASK | attr[i].pct));
			EXPECT_OK(ungrant(fd, MEMCHAN_GRANT_RX, 185, 1));
		} else {
			EXPECT_ERR(grant(fd, MEMCHAN_GRANT_RX, 185, 1, 0, attr[i].flag, NULL),
				   EOPNOTSUPP);
			p.rx_entry = MC_RX_PCT_RX_EN_MASK | attr[i].pct;
			EXPECT_ERR(ioctl(fd, MEMCHAN_PCT, &p), EOPNOTSUPP);
		}
		/* the attribute went with the grant; receiving stays (every page, while an ID) */
		CHECK((pct(fd, 185).rx_entry & user) == MC_RX_PCT_RX_EN_MASK);
	}
	/* a refusal held nothing back: the plain grant of the page works */
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 185, 1, 0, 0, NULL));
	CHECK((pct(fd, 185).rx_entry & user) == MC_RX_PCT_RX_EN_MASK);
}

static uint32_t reg(int fd, uint32_t off)
{
	struct memchan_reg r = { .argsz = sizeof(r), .offset = off };

	if (ioctl(fd, MEMCHAN_REG_READ, &r))
		FAIL("MEMCHAN_REG_READ %#x: %s", off, strerror(errno));
	return r.value;
}

/* the next remote request completes (REMOTE_DONE = done + 1); its REMOTE_LAST */
/* a 64-bit value from its _LO/_HI register pair, read in that order (registers are 32 bits wide) */
static uint64_t reg_pair(int fd, uint32_t lo, uint32_t hi)
{
	uint64_t low = reg(fd, lo);

	return low | (uint64_t)reg(fd, hi) << (CHAR_BIT * sizeof(uint32_t));
}

static uint64_t remote_done(int fd, uint32_t done)
{
	double t0 = now_s();

	while (reg(fd, MC_REG_REMOTE_DONE) == done && now_s() - t0 < 60)
		usleep(1000);
	EXPECT(reg(fd, MC_REG_REMOTE_DONE) == done + 1, "REMOTE_DONE %u, want %u",
	       reg(fd, MC_REG_REMOTE_DONE), done + 1);
	CHECK(reg(fd, MC_REG_REMOTE_OUTSTANDING) == 0);
	return reg_pair(fd, MC_REG_REMOTE_LAST_LO, MC_REG_REMOTE_LAST_HI);
}

/* wait until at least one request completed after done and none is outstanding */
static void remote_done_some(int fd, uint32_t done)
{
	double t0 = now_s();

	while ((reg(fd, MC_REG_REMOTE_DONE) == done || reg(fd, MC_REG_REMOTE_OUTSTANDING)) &&
	       now_s() - t0 < 60)
		usleep(1000);
	usleep(50000);	/* the later parts of a split store */
	EXPECT(reg(fd, MC_REG_REMOTE_DONE) != done, "REMOTE_DONE stays %u", done);
	CHECK(reg(fd, MC_REG_REMOTE_OUTSTANDING) == 0);
}

/* a transmit grant of page, with OP op, to this node itself; the mapping of that page */
static volatile uint64_t *request_page(int fd, uint32_t page, uint32_t node, uint32_t op)
{
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, page, 1, tx_to(node) | op << MC_TX_PCT_OP_SHIFT, 0,
			NULL));
	return map_page(fd, page, 1);
}

/*
 * Remote requests through the adapter to this node itself (its own node ID without a loopback:
 * the local-copy path, docs/firmware.md), launched by stores to request pages (TX PCT OP): the
 * home serves them from its receive area in guest RAM through the adapter's AXI read channel
 * (firmware/cosim's host model answers reads from guest RAM), answers in REMOTE_LAST, counts
 * them per page; a request for a page without ATOMIC_EN is refused, counted (REMOTE_REFUSED)
 * and completes as failed (REMOTE_ERRORS, REMOTE_ERR_ADDR), with nothing written.
 */
static void hw_remote_requests(void)
{
	static const struct {
		uint32_t op;
		uint64_t store, old, word;
	} step[] = {
		{ MC_OP_FETCH_ADD, 5, 0, 5 },
		{ MC_OP_FETCH_ADD, 37, 5, 42 },
		{ MC_OP_SWAP, 7, 42, 7 },
		{ MC_OP_READ, 0x1234, 7, 7 },
	};
	const uint32_t p = 190, q = 191;
	size_t i;
	int fd = dev_open();
	struct memchan_info in = info(fd);
	struct memchan_page_counters c0, cq;
	volatile uint64_t *tx, *rx;
	uint32_t me, done, errors, refused;
	uint64_t last;

	if (in.node_id == MEMCHAN_NODE_NONE)
		EXPECT_OK(set_node(fd, 0, 0));
	me = info(fd).node_id;
	CHECK(in.caps & MC_CAPS_REMOTE_READ_MASK && in.caps & MC_CAPS_ATOMICS_MASK);
	CHECK(info(fd).loopback == 0);
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, p, 1, 0, MEMCHAN_RX_READ | MEMCHAN_RX_ATOMIC, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, q, 1, 0, MEMCHAN_RX_READ, NULL));
	rx = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + p * PAGE);
	CHECK(rx != MAP_FAILED);
	CHECK(rx[3] == 0 && rx[PAGE_WORDS] == 0);	/* a first grant clears the page */
	c0 = counters(fd, p, 0, 0);
	cq = counters(fd, q, 0, 0);
	done = reg(fd, MC_REG_REMOTE_DONE);
	errors = reg(fd, MC_REG_REMOTE_ERRORS);
	refused = reg(fd, MC_REG_REMOTE_REFUSED);

	for (i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
		tx = request_page(fd, p, me, step[i].op);
		tx[3] = step[i].store;	/* a read request's data is not sent */
		__sync_synchronize();	/* out of the write-combining buffer */
		last = remote_done(fd, done++);
		EXPECT(last == step[i].old && rx[3] == step[i].word,
		       "step %zu (OP %u, store %llu): REMOTE_LAST %#llx, word %#llx", i, step[i].op,
		       (unsigned long long)step[i].store, (unsigned long long)last,
		       (unsigned long long)rx[3]);
		munmap((void *)tx, PAGE);
		EXPECT_OK(ungrant(fd, MEMCHAN_GRANT_TX, p, 1));
	}
	CHECK(reg(fd, MC_REG_REMOTE_ERRORS) == errors && reg(fd, MC_REG_REMOTE_REFUSED) == refused);

	/* refused by the home: page q has READ_EN only */
	tx = request_page(fd, q, me, MC_OP_FETCH_ADD);
	tx[0] = 1;
	__sync_synchronize();
	remote_done(fd, done++);
	CHECK(reg(fd, MC_REG_REMOTE_ERRORS) == errors + 1);
	CHECK(reg(fd, MC_REG_REMOTE_REFUSED) == refused + 1);
	CHECK(reg(fd, MC_REG_REMOTE_ERR_ADDR) == q * PAGE);
	CHECK(rx[PAGE_WORDS] == 0);
	munmap((void *)tx, PAGE);
	EXPECT_OK(ungrant(fd, MEMCHAN_GRANT_TX, q, 1));

	/*
	 * A misaligned 8-byte store to an atomic request page reaches the adapter as partial
	 * words (QEMU's TCG splits it): each is refused by this adapter and completes as failed,
	 * none hangs and none reaches the home (it once never completed).
	 */
	done = reg(fd, MC_REG_REMOTE_DONE);
	errors = reg(fd, MC_REG_REMOTE_ERRORS);
	tx = request_page(fd, p, me, MC_OP_FETCH_ADD);
	*(volatile uint64_t *)((volatile char *)tx + 28) = 1;
	__sync_synchronize();
	remote_done_some(fd, done);
	EXPECT(reg(fd, MC_REG_REMOTE_ERRORS) - errors == reg(fd, MC_REG_REMOTE_DONE) - done,
	       "misaligned store: %u completions, %u failed", reg(fd, MC_REG_REMOTE_DONE) - done,
	       reg(fd, MC_REG_REMOTE_ERRORS) - errors);
	CHECK(reg(fd, MC_REG_REMOTE_ERR_ADDR) >= p * PAGE + 28 &&
	      reg(fd, MC_REG_REMOTE_ERR_ADDR) < p * PAGE + 36);
	CHECK(reg(fd, MC_REG_REMOTE_REFUSED) == refused + 1 && rx[3] == 7 && rx[4] == 0);
	printf("# misaligned 8-byte store to a request page: %u refused requests\n",
	       reg(fd, MC_REG_REMOTE_DONE) - done);
	munmap((void *)tx, PAGE);
	EXPECT_OK(ungrant(fd, MEMCHAN_GRANT_TX, p, 1));

	/* the home counted what it served, per page */
	EXPECT(counters(fd, p, 0, 0).atomics == c0.atomics + 3 && counters(fd, p, 0, 0).reads ==
	       c0.reads + 1, "page %u: %u atomics, %u reads", p, counters(fd, p, 0, 0).atomics,
	       counters(fd, p, 0, 0).reads);
	CHECK(counters(fd, q, 0, 0).atomics == cq.atomics && counters(fd, q, 0, 0).reads == cq.reads);
}

/*
 * MEMCHAN_REMOTE on the adapter: the driver programs the request page, launches the request
 * and waits for its completion; results from REMOTE_LAST; the home's refusal is EACCES.
 */
static void hw_remote_ioctl(void)
{
	const uint64_t a = 192 * PAGE + 16;
	int fd = dev_open();
	uint32_t me, refused;
	volatile uint64_t *rx;
	uint64_t v = 0;
	unsigned char buf[8];
	static unsigned char page2[PAGE];
	struct memchan_page_counters c192, c193;

	if (info(fd).node_id == MEMCHAN_NODE_NONE)
		EXPECT_OK(set_node(fd, 0, 0));
	me = info(fd).node_id;
	CHECK(info(fd).flags & MEMCHAN_INFO_REMOTE);
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 192, 1, 0, MEMCHAN_RX_READ | MEMCHAN_RX_ATOMIC, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 193, 1, 0, MEMCHAN_RX_READ, NULL));
	rx = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 192 * PAGE);
	CHECK(rx != MAP_FAILED && rx[2] == 0);
	refused = reg(fd, MC_REG_REMOTE_REFUSED);
	EXPECT_OK(remote(fd, me, MEMCHAN_REMOTE_FETCH_ADD, a, 9, 0, &v));
	EXPECT(v == 0 && rx[2] == 9, "fetch-and-add: old %#llx, word %#llx", (unsigned long long)v,
	       (unsigned long long)rx[2]);
	EXPECT_OK(remote(fd, me, MEMCHAN_REMOTE_SWAP, a, 3, 0, &v));
	CHECK(v == 9 && rx[2] == 3);
	/* CAS: the compare operand staged in REMOTE_CAS_CMP, one 8-byte store (docs/driver.md) */
	EXPECT_OK(remote(fd, me, MEMCHAN_REMOTE_CAS, a, 11, 4, &v));	/* 3 != 4 */
	EXPECT(v == 3 && rx[2] == 3, "failing CAS: old %#llx, word %#llx", (unsigned long long)v,
	       (unsigned long long)rx[2]);
	EXPECT_OK(remote(fd, me, MEMCHAN_REMOTE_CAS, a, 11, 3, &v));
	EXPECT(v == 3 && rx[2] == 11, "CAS: old %#llx, word %#llx", (unsigned long long)v,
	       (unsigned long long)rx[2]);
	CHECK(reg(fd, MC_REG_REMOTE_CAS_PAGE) == 0);	/* disarmed after the call */
	EXPECT_OK(remote(fd, me, MEMCHAN_REMOTE_FETCH_ADD, a, 8, 0, &v));
	CHECK(v == 11 && rx[2] == 19);
	EXPECT_OK(remote(fd, me, MEMCHAN_REMOTE_READ, a, 0, 0, &v));
	CHECK(v == 19);
	CHECK(reg(fd, MC_REG_REMOTE_REFUSED) == refused);
	/* refused by the home (counted there), or before it */
	EXPECT_ERR(remote(fd, me, MEMCHAN_REMOTE_FETCH_ADD, 193 * PAGE, 1, 0, &v), EACCES);
	CHECK(reg(fd, MC_REG_REMOTE_REFUSED) == refused + 1 && rx[PAGE_WORDS] == 0);
	/* a word at 4 mod 8: one 4-byte store, refused as misaligned by the home and counted */
	EXPECT_ERR(remote(fd, me, MEMCHAN_REMOTE_FETCH_ADD, a + 4, 1, 0, &v), EACCES);
	CHECK(reg(fd, MC_REG_REMOTE_REFUSED) == refused + 2 && rx[2] == 19);
	EXPECT_ERR(remote(fd, me, MEMCHAN_REMOTE_FETCH_ADD, a + 3, 1, 0, &v), EACCES);
	CHECK(reg(fd, MC_REG_REMOTE_REFUSED) == refused + 2 && rx[2] == 19);	/* not sent */
	EXPECT_ERR(remote(fd, me, MEMCHAN_REMOTE_READ, a + 4, 0, 0, &v), EACCES);
	CHECK(reg(fd, MC_REG_REMOTE_REFUSED) == refused + 2);	/* not sent */
	/* CHECK and COPY of pages homed here: this node's RX PCT, requests for what it counts */
	c192 = counters(fd, 192, 0, 0);
	c193 = counters(fd, 193, 0, 0);
	EXPECT_OK(remote(fd, me, MEMCHAN_REMOTE_CHECK, 192 * PAGE, 2 * PAGE, 0, NULL));
	EXPECT_ERR(remote(fd, me, MEMCHAN_REMOTE_CHECK, 192 * PAGE, 5 * PAGE, 0, NULL), EACCES);
	CHECK(reg(fd, MC_REG_REMOTE_REFUSED) == refused + 3);	/* page 194: no grant */
	EXPECT_OK(remote_copy(fd, me, a, 8, buf));
	CHECK(memcmp(buf, (const void *)&rx[2], 8) == 0);
	EXPECT_OK(remote_copy(fd, me, 192 * PAGE + 12, PAGE, page2));
	CHECK(memcmp(page2, (const char *)rx + 12, PAGE) == 0);
	EXPECT(counters(fd, 192, 0, 0).reads == c192.reads + 2 &&
	       counters(fd, 193, 0, 0).reads == c193.reads + 1,
	       "a copy counts one read per page: page 192 %u -> %u, page 193 %u -> %u", c192.reads,
	       counters(fd, 192, 0, 0).reads, c193.reads, counters(fd, 193, 0, 0).reads);
	CHECK(c192.atomics == counters(fd, 192, 0, 0).atomics);
	EXPECT_ERR(remote_copy(fd, me, 193 * PAGE, 2 * PAGE, page2), EACCES);	/* 194 */
	CHECK(reg(fd, MC_REG_REMOTE_REFUSED) == refused + 4 &&
	      counters(fd, 193, 0, 0).reads == c193.reads + 1);	/* checked before any read */
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 192, 1, tx_to(me), 0, NULL));
	EXPECT_ERR(remote(fd, me, MEMCHAN_REMOTE_READ, a, 0, 0, &v), EBUSY);	/* a user's page */
	CHECK(pct(fd, 192).tx_entry == tx_to(me) && rx[2] == 19);
	EXPECT_OK(ungrant(fd, MEMCHAN_GRANT_TX, 192, 1));
	CHECK(pct(fd, 192).tx_entry == 0);
}

/*
 * Remote read and fetch-and-add latency against a one-way write (docs/performance.md), guest
 * wall-clock, same run, through the adapter's internal loopback: a write is a store until the
 * word is seen in the receive page; a read or an atomic is one MEMCHAN_REMOTE call (launch,
 * the driver's bounded wait for REMOTE_DONE, REMOTE_LAST). Printed, not asserted.
 */
static void hw_remote_latency(void)
{
	const uint32_t pw = 195, pr = 194, n = 40;
	struct memchan_loopback l = { .argsz = sizeof(l), .mode = 1 };
	int fd = dev_open();
	volatile uint64_t *tx, *rx;
	uint64_t v = 0;
	double t0, wr, rd, fa;
	uint32_t me, i;

	if (info(fd).node_id == MEMCHAN_NODE_NONE)
		EXPECT_OK(set_node(fd, 0, 0));
	me = info(fd).node_id;
	EXPECT_OK(ioctl(fd, MEMCHAN_LOOPBACK, &l));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, pr, 1, 0, MEMCHAN_RX_READ | MEMCHAN_RX_ATOMIC, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, pw, 1, tx_to(me), 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, pw, 1, 0, 0, NULL));
	tx = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (uint64_t)pw * PAGE);
	rx = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + pw * PAGE);
	CHECK(tx != MAP_FAILED && rx != MAP_FAILED);
	t0 = now_s();
	for (i = 1; i <= n; i++) {
		double ti = now_s();

		tx[0] = i;
		__sync_synchronize();
		while (rx[0] != i && now_s() - ti < 10)
			;
		CHECK(rx[0] == i);
	}
	wr = (now_s() - t0) / n;
	t0 = now_s();
	for (i = 0; i < n; i++)
		EXPECT_OK(remote(fd, me, MEMCHAN_REMOTE_READ, pr * PAGE + 8, 0, 0, &v));
	rd = (now_s() - t0) / n;
	t0 = now_s();
	for (i = 0; i < n; i++)
		EXPECT_OK(remote(fd, me, MEMCHAN_REMOTE_FETCH_ADD, pr * PAGE + 8, 1, 0, &v));
	fa = (now_s() - t0) / n;
	CHECK(v == n - 1);
	printf("# remote latency, guest wall-clock, internal loopback (%u each): one-way write %.0f us, read %.0f us (%.2fx), fetch-and-add %.0f us (%.2fx)\n",
	       n, wr * 1e6, rd * 1e6, rd / wr, fa * 1e6, fa / wr);
	munmap((void *)tx, PAGE);
	munmap((void *)rx, PAGE);
	EXPECT_OK(ungrant(fd, MEMCHAN_GRANT_TX, pw, 1));
	l.mode = 0;
	EXPECT_OK(ioctl(fd, MEMCHAN_LOOPBACK, &l));
}

/*
 * ---- remote requests across two guests (board-pair): RTL cycles through the co-simulation ----
 * The requester (node 0, guest a) makes one-way writes to node 1 (the home, guest b) and reads
 * and fetch-and-adds a word homed there through MEMCHAN_REMOTE, one at a time, while the device
 * process times each from its BAR2 store to the host-memory write that completes it
 * (firmware/cosim `stats`: remote write / read / atomic; tb/remote's figures are measured the
 * same way). A response to a node's own request is not written to memory, so this needs two
 * adapters. The requester's statistics must have classified exactly one of each per round.
 */
#define PAIR_HOME_PAGE	 200	/* the word: READ | ATOMIC at the home; the responses' page at the requester */
#define PAIR_WRITE_PAGE	 201	/* the one-way writes, requester -> home */
#define PAIR_SIGNAL_PAGE 202	/* home -> requester: +0 a nonce repeated until answered, +8 it again: quiet */
#define PAIR_ANSWER_PAGE 203	/* requester -> home: +0 the nonce answered, +8 the rounds done */
#define PAIR_ROUNDS	 20
#define PAIR_WAIT_S	 300	/* the other guest may still be in its earlier step */
#define PAIR_WORD	 8	/* the word's offset in PAIR_HOME_PAGE */

/*
 * Polls a word of a receive page (guest RAM, not a register) until it is want (want 0: until it
 * is not 0), for at most PAIR_WAIT_S; meanwhile, where resend is given, stores with there once a
 * second (a store reaches only a peer that grants its page already). Returns the word; fails the
 * test, naming what did not come, when the time is up.
 */
static uint64_t pair_await(volatile uint64_t *word, uint64_t want, volatile uint64_t *resend,
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

/* cost of one BAR0 read and one write round trip, user load/store to the control node's mapping */
static void hw_bar_cost(void)
{
	int fd = open(ctl_path, O_RDWR);
	volatile uint32_t *regs;
	uint32_t i, n = 500, v = 0;
	double t0, rd, wr;

	CHECK(fd >= 0);
	regs = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(regs != MAP_FAILED);
	t0 = now_s();
	for (i = 0; i < n; i++)
		v |= regs[MC_REG_ID / 4] ^ MC_ID;
	rd = (now_s() - t0) / n;
	CHECK(v == 0);
	v = regs[MC_REG_TX_COMBINE_IDLE / 4];
	t0 = now_s();
	for (i = 0; i < n; i++)
		regs[MC_REG_TX_COMBINE_IDLE / 4] = v;	/* the value it holds: no effect */
	(void)regs[MC_REG_ID / 4];			/* the writes have landed */
	wr = (now_s() - t0) / n;
	printf("# BAR0 round trip: read %.1f us, write %.1f us (%u of each)\n", rd * 1e6, wr * 1e6, n);
}

/* MCAST_GROUP register g through BAR0 (MEMCHAN_REG_READ), not through MEMCHAN_MCAST_GROUP */
static uint32_t mcast_reg(int fd, uint32_t g)
{
	return reg(fd, MC_REG_MCAST_GROUP_BASE + MC_REG_MCAST_GROUP_STRIDE * g);
}

/*
 * MEMCHAN_MCAST_GROUP: what it writes is the adapter's register (read back through BAR0);
 * bad input is refused and leaves every register as it was
 */
static void hw_mcast_group(void)
{
	int fd = dev_open();
	struct memchan_info in = info(fd);
	uint32_t nodes = in.max_nodes >= 32 ? ~0u : (1u << in.max_nodes) - 1;
	uint32_t m, g, before[MC_MULTICAST_GROUPS];

	CHECK(in.flags & MEMCHAN_INFO_MCAST_REGS);
	for (g = 0; g < MC_MULTICAST_GROUPS; g++)
		before[g] = mcast_reg(fd, g);
	m = 1u << 0 | 1u << (in.max_nodes - 1);
	EXPECT_OK(mcast_group(fd, MEMCHAN_MCAST_WRITE, 7, &m));
	EXPECT(m == (1u << 0 | 1u << (in.max_nodes - 1)) && mcast_reg(fd, 7) == m,
	       "group 7: wrote %#x, ioctl read back %#x, BAR0 %#x",
	       1u << 0 | 1u << (in.max_nodes - 1), m, mcast_reg(fd, 7));
	m = 0;
	EXPECT_OK(mcast_group(fd, 0, 7, &m));
	CHECK(m == mcast_reg(fd, 7));
	before[7] = m;
	m = 1;
	EXPECT_ERR(mcast_group(fd, MEMCHAN_MCAST_WRITE, MC_MULTICAST_GROUPS, &m), EINVAL);
	EXPECT_ERR(mcast_group(fd, MEMCHAN_MCAST_WRITE | 2, 7, &m), EINVAL);
	EXPECT_ERR(mcast_group(fd, 0, 7, &m), EINVAL);	/* a mask without WRITE */
	if (nodes != ~0u) {
		m = nodes + 1;
		EXPECT_ERR(mcast_group(fd, MEMCHAN_MCAST_WRITE, 7, &m), EINVAL);
	}
	for (g = 0; g < MC_MULTICAST_GROUPS; g++)
		EXPECT(mcast_reg(fd, g) == before[g], "group %u: %#x after refused writes, was %#x",
		       g, mcast_reg(fd, g), before[g]);
	m = 0;
	EXPECT_OK(mcast_group(fd, MEMCHAN_MCAST_WRITE, 7, &m));
	CHECK(m == 0 && mcast_reg(fd, 7) == 0);
}

/* a raw TX PCT write of page; its errno (0: written) */
static int raw_tx(int fd, uint32_t page, uint32_t entry)
{
	struct memchan_pct p = { .argsz = sizeof(p), .flags = MEMCHAN_PCT_WRITE_TX, .page = page,
				 .tx_entry = entry };

	return ioctl(fd, MEMCHAN_PCT, &p) ? errno : 0;
}

/*
 * The adapter holds only its own PCT, so a raw TX PCT write (MEMCHAN_PCT) is checked against
 * the routes the region directory records (this node's copy of the system pages): a directory
 * entry for pages 200..201 routed to node 1 (ROUTED), stored through the internal loopback into
 * the last region entry, refuses a raw route of page 201 to node 2 (EBUSY, the entry unchanged)
 * and takes node 1; page 202, outside it, takes node 2. The directory entry is cleared again.
 */
static void hw_raw_route_vs_directory(void)
{
	int fd = dev_open();
	struct memchan_loopback l = { .argsz = sizeof(l), .mode = 1 };
	uint64_t off = mc_sys_region_entry(PAGE, mc_sys_region_capacity(PAGE) - 1);
	uint32_t page = off / PAGE, at = off % PAGE / 4, i;
	volatile uint32_t *tx, *rx;
	double t0;

	if (info(fd).node_id == MEMCHAN_NODE_NONE)
		EXPECT_OK(set_node(fd, 0, 0));
	EXPECT_OK(ioctl(fd, MEMCHAN_LOOPBACK, &l));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, page, 1, tx_to(0), 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, page, 1, 0, 0, NULL));
	tx = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)page * PAGE);
	rx = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + (off_t)page * PAGE);
	CHECK(tx != MAP_FAILED && rx != MAP_FAILED);
	CHECK(rx[at + MC_SYS_REGION_STATE / 4] == MC_SYS_REGION_STATE_FREE);
	tx[at + MC_SYS_REGION_FIRST_PAGE / 4] = 200;
	tx[at + MC_SYS_REGION_PAGE_COUNT / 4] = 2;
	tx[at + MC_SYS_REGION_ROUTE / 4] = MC_SYS_REGION_ROUTE_ROUTED_MASK |
					   1 << MC_SYS_REGION_ROUTE_DEST_SHIFT;
	tx[at + MC_SYS_REGION_STATE / 4] = MC_SYS_REGION_STATE_ALLOCATED;	/* last, as the library */
	for (t0 = now_s(); rx[at + MC_SYS_REGION_STATE / 4] != MC_SYS_REGION_STATE_ALLOCATED &&
	     now_s() - t0 < 60;)
		usleep(1000);
	CHECK(rx[at + MC_SYS_REGION_STATE / 4] == MC_SYS_REGION_STATE_ALLOCATED);
	EXPECT(raw_tx(fd, 201, tx_to(2)) == EBUSY, "page 201 to node 2: not refused");
	CHECK(pct(fd, 201).tx_entry == 0);
	EXPECT(raw_tx(fd, 201, tx_to(1)) == 0, "page 201 to node 1, the directory's route: refused");
	CHECK(pct(fd, 201).tx_entry == tx_to(1));
	EXPECT(raw_tx(fd, 202, tx_to(2)) == 0, "page 202, outside the entry: refused");
	EXPECT_OK(raw_tx(fd, 201, 0));
	EXPECT_OK(raw_tx(fd, 202, 0));
	tx[at + MC_SYS_REGION_STATE / 4] = MC_SYS_REGION_STATE_FREE;	/* first, as the library */
	for (i = 1; i < MC_SYS_REGION_ENTRY_SIZE / 4; i++)
		tx[at + i] = 0;
	for (t0 = now_s(); rx[at + MC_SYS_REGION_ROUTE / 4] && now_s() - t0 < 60;)
		usleep(1000);
	CHECK(rx[at + MC_SYS_REGION_STATE / 4] == MC_SYS_REGION_STATE_FREE &&
	      rx[at + MC_SYS_REGION_ROUTE / 4] == 0);
	l.mode = 0;
	EXPECT_OK(ioctl(fd, MEMCHAN_LOOPBACK, &l));
}

static const struct test hw_tests[] = {
	T(api_version),
	T(info_rejects_bad_argsz),
	T(unknown_ioctl_enotty),
	T(hw_identity),
	T(grant_without_node_enxio),
	T(hw_loopback_data),
	T(hw_notify_on_arrival),
	T(hw_rx_mapping),
	T(hw_rx_other_files_mapping_stays),
	T(hw_rx_late_receiver),
	T(hw_rx_cleared_on_node_change),
	T(hw_rx_attributes),
	T(hw_remote_requests),
	T(hw_remote_ioctl),
	T(hw_remote_latency),
	T(hw_bar_cost),
	T(hw_mcast_group),
	T(hw_raw_route_vs_directory),
	T(errcnt),
};

/* ---- remote operations at another node's home: board-pair's two guests ---- */

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

static uint32_t remote_pair_node(int fd)
{
	uint32_t me = info(fd).node_id;

	if (me == MEMCHAN_NODE_NONE)
		FAIL("no node ID (mc_cluster sets it first)");
	return me;
}

static void hw_remote_pair_home(void)
{
	int fd = dev_open();
	uint32_t me = remote_pair_node(fd), peer = 1 - me, refused;
	volatile uint64_t *words, *plain, *ready, *done;
	struct memchan_page_counters c, cp;

	alarm(PAIR_WAIT_S + 60);
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
static void hw_remote_pair_requester(void)
{
	int fd = dev_open();
	uint32_t me = remote_pair_node(fd), home = 1 - me;
	const uint64_t w = REMOTE_PAIR_WORDS * PAGE, q = REMOTE_PAIR_PLAIN * PAGE;
	volatile uint64_t *ready, *done;
	unsigned char buf[20];
	uint64_t v = ~0ULL, word, words_rx, plain_rx;
	double t0;

	alarm(PAIR_WAIT_S + 60);
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

static const struct test remote_pair_tests[] = {
	T(hw_remote_pair_home),
	T(hw_remote_pair_requester),
};

/* ---- four adapters of one guest on a hub (native/tests/board_hub.sh) ---- */

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
static void hub_node_ids_by_port(void)
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
static void hub_broadcast_reaches_all_others(void)
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
static void hub_point_to_point_only_its_target(void)
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
static void hub_multicast_only_its_members(void)
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

static const struct test hub_tests[] = {
	T(hub_node_ids_by_port),
	T(hub_broadcast_reaches_all_others),
	T(hub_point_to_point_only_its_target),
	T(hub_multicast_only_its_members),
};

/*
 * The global clock of every adapter (CLOCK_* registers through MEMCHAN_REG_READ), printed as
 * "adapter K time T valid V master M bound B offset O syncs S" lines for board_hub.sh, then the
 * check that one guest can make across adapters: their times, read one after another from
 * adapter 0 to the last and adapter 0 again, lie within their bounds of one clock: a time
 * read later is never more than its bound behind one read before it, and none is ahead of
 * adapter 0's second read by more than adapter 0's bound (every adapter's time lies in
 * master - bound .. master, the master's time only grows).
 */
static int clock_cmd(void)
{
	uint64_t t[HUB_NODES + 1], bound[HUB_NODES];
	uint32_t st;
	int k, n, fails = 0;
	char path[32];

	for (n = 0; n < HUB_NODES; n++) {
		snprintf(path, sizeof(path), "/dev/memchan%d", n);
		hub_fd[n] = open(path, O_RDWR);
		if (hub_fd[n] < 0)
			break;
	}
	if (n == 0) {
		fprintf(stderr, "clock: no /dev/memchan0: %s\n", strerror(errno));
		return 2;
	}
	for (k = 0; k < n; k++) {
		st = reg(hub_fd[k], MC_REG_CLOCK_STATUS);
		bound[k] = reg(hub_fd[k], MC_REG_CLOCK_BOUND);
		printf("adapter %d time %llu valid %u master %u bound %llu offset %d syncs %u\n", k,
		       (unsigned long long)reg_pair(hub_fd[k], MC_REG_GLOBAL_TIME_LO,
						    MC_REG_GLOBAL_TIME_HI),
		       st & MC_CLOCK_STATUS_VALID_MASK ? 1 : 0,
		       st & MC_CLOCK_STATUS_MASTER_MASK ? 1 : 0, (unsigned long long)bound[k],
		       (int32_t)reg(hub_fd[k], MC_REG_CLOCK_OFFSET),
		       (st & MC_CLOCK_STATUS_SYNCS_MASK) >> MC_CLOCK_STATUS_SYNCS_SHIFT);
		if (!(st & MC_CLOCK_STATUS_VALID_MASK))
			fails++;
	}
	for (k = 0; k < n; k++)
		t[k] = reg_pair(hub_fd[k], MC_REG_GLOBAL_TIME_LO, MC_REG_GLOBAL_TIME_HI);
	t[n] = reg_pair(hub_fd[0], MC_REG_GLOBAL_TIME_LO, MC_REG_GLOBAL_TIME_HI);
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

/* ---- device removal with live mappings ---- */

/*
 * ivshmem: the store is in the shared page at once (LOCAL_COPY); hardware: it comes back through
 * the adapter's internal loopback as a DMA write into the receive area (mapped at mmap time:
 * dma_mmap_coherent), and the area is freed at removal after every mapping was zapped.
 */
static void unbind_with_live_mappings(void)
{
	int fd = dev_open(), sfd;
	volatile char *tx, *rx;
	char link[256], bdf[64], *slash;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct memchan_info in = { .argsz = sizeof(in) };
	struct memchan_loopback l = { .argsz = sizeof(l), .mode = MC_LOOPBACK_MODE_INTERNAL };
	bool hw = info(fd).backend == MEMCHAN_BACKEND_HW;
	double t0;
	ssize_t n;

	if (info(fd).node_id == MEMCHAN_NODE_NONE)
		EXPECT_OK(set_node(fd, 0, 0));
	if (hw)
		EXPECT_OK(ioctl(fd, MEMCHAN_LOOPBACK, &l));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_TX, 250, 1,
			tx_to(0) | (hw ? 0 : MC_TX_PCT_LOCAL_COPY_MASK), 0, NULL));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 250, 1, 0, MEMCHAN_RX_IRQ, NULL));
	tx = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 250 * PAGE);
	rx = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 250 * PAGE);
	CHECK(tx != MAP_FAILED && rx != MAP_FAILED);
	/* a whole word: the adapter's window takes 32- and 64-bit stores */
	*(volatile uint64_t *)tx = 42;
	for (t0 = now_s(); *(volatile uint64_t *)rx != 42 && now_s() - t0 < 60;)
		usleep(1000);
	CHECK(*(volatile uint64_t *)rx == 42);
	/* the module is pinned while a file is open */
	EXPECT_ERR(syscall(SYS_delete_module, "memchan", O_NONBLOCK), EWOULDBLOCK);

	snprintf(link, sizeof(link), "%s/device", sysfs);
	n = readlink(link, bdf, sizeof(bdf) - 1);
	CHECK(n > 0);
	bdf[n] = 0;
	slash = strrchr(bdf, '/');
	sfd = open("/sys/bus/pci/drivers/memchan/unbind", O_WRONLY);
	CHECK(sfd >= 0);
	CHECK(write(sfd, slash + 1, strlen(slash + 1)) == (ssize_t)strlen(slash + 1));
	close(sfd);

	CHECK(touch(tx, 1) == SIGBUS);
	CHECK(touch(rx, 0) == SIGBUS);
	EXPECT_ERR(ioctl(fd, MEMCHAN_INFO, &in), ENODEV);
	CHECK(poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP)));
	CHECK(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 250 * PAGE) == MAP_FAILED &&
	      errno == ENODEV);
	CHECK(access(dev_path, F_OK) != 0);
	munmap((void *)tx, PAGE);
	close(fd);
	CHECK(touch(rx, 0) == SIGBUS);	/* still mapped, file closed: still SIGBUS */
	munmap((void *)rx, PAGE);
	EXPECT_OK(syscall(SYS_delete_module, "memchan", O_NONBLOCK));
}

static const struct test unbind_tests[] = {
	T(unbind_with_live_mappings),
};

static int run(const struct test *t, int n)
{
	int i, st, failed = 0;
	pid_t pid;

	printf("TAP version 13\n1..%d\n", n);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		printf("# RUN %s\n", t[i].name);
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			alarm(120);
			t[i].fn();
			_exit(0);
		}
		waitpid(pid, &st, 0);
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			printf("ok %d %s\n", i + 1, t[i].name);
		} else {
			failed++;
			if (WIFSIGNALED(st))
				printf("#   killed by signal %d\n", WTERMSIG(st));
			printf("not ok %d %s\n", i + 1, t[i].name);
		}
		fflush(stdout);
	}
	printf("# memchan_test: %d passed, %d failed\n", n - failed, failed);
	return failed ? 1 : 0;
}

/*
 * Hardware: CTRL through the control node (BAR0, root), for the guest tests of the Memory
 * Channel error rule: retry=0 makes a receiver discard everything after a bad frame (the
 * sender keeps no replay), err-reset leaves that state. Read back: prints CTRL after the write.
 */
static int ctrl_cmd(const char *what)
{
	int fd = open(ctl_path, O_RDWR);
	volatile uint32_t *regs;
	uint32_t v;

	if (fd < 0) {
		fprintf(stderr, "open %s: %s\n", ctl_path, strerror(errno));
		return 1;
	}
	regs = mmap(NULL, MC_BAR0_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (regs == MAP_FAILED) {
		fprintf(stderr, "mmap %s: %s\n", ctl_path, strerror(errno));
		return 1;
	}
	v = regs[MC_REG_CTRL / 4];
	if (!strcmp(what, "retry=0"))
		v &= ~MC_CTRL_RETRY_EN_MASK;
	else if (!strcmp(what, "retry=1"))
		v |= MC_CTRL_RETRY_EN_MASK;
	else if (!strcmp(what, "err-reset"))
		v |= MC_CTRL_ERR_RESET_MASK;	/* self-clearing */
	else {
		fprintf(stderr, "ctrl: retry=0, retry=1 or err-reset, not '%s'\n", what);
		return 2;
	}
	regs[MC_REG_CTRL / 4] = v;
	printf("ctrl=%#x\n", regs[MC_REG_CTRL / 4]);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "abi";
	const char *base;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv("MEMCHAN_DEV"))
		dev_path = getenv("MEMCHAN_DEV");
	snprintf(ctl_path, sizeof(ctl_path), "%s-ctl", dev_path);
	base = strrchr(dev_path, '/');
	snprintf(sysfs, sizeof(sysfs), "/sys/class/misc/%s", base ? base + 1 : dev_path);
	if (!strcmp(mode, "abi"))
		return run(abi_tests, sizeof(abi_tests) / sizeof(abi_tests[0]));
	if (!strcmp(mode, "unbind"))
		return run(unbind_tests, 1);
	if (!strcmp(mode, "hw"))
		return run(hw_tests, sizeof(hw_tests) / sizeof(hw_tests[0]));
	if (!strcmp(mode, "info")) {
		/* the adapter's state as shell-readable lines, for the guest scripts */
		int fd = dev_open();
		struct memchan_info in = info(fd);
		const char *sep = "";
		uint32_t g;

		printf("node_id=%u\nloopback=%u\nlink_status=%#x\npeer_seen=%u\nerror_count=%u\n"
		       "crc_errors=%u\nlink_retries=%u\nrx_packets=%u\ntx_packets=%u\n",
		       in.node_id, in.loopback, in.link_status,
		       !!(in.link_status & MC_LINK_STATUS_PEER_SEEN_MASK), in.error_count,
		       in.crc_errors, in.link_retries, in.rx_packets, in.tx_packets);
		/* hardware: NODES_UP and the non-zero MCAST_GROUP registers ("group:mask ...") */
		if (in.backend == MEMCHAN_BACKEND_HW) {
			printf("nodes_up=%#x\nmcast_groups=\"", reg(fd, MC_REG_NODES_UP));
			for (g = 0; g < MC_MULTICAST_GROUPS; g++)
				if (mcast_reg(fd, g)) {
					printf("%s%u:%#x", sep, g, mcast_reg(fd, g));
					sep = " ";
				}
			printf("\"\n");
		}
		return 0;
	}
	if (!strcmp(mode, "ctrl") && argc == 3)
		return ctrl_cmd(argv[2]);
	if (!strcmp(mode, "hub")) {
		size_t i;

		for (i = 0; argc == 3 && i < ARRAY_SIZE(hub_tests); i++)
			if (!strcmp(argv[2], hub_tests[i].name))
				return run(&hub_tests[i], 1);
		if (argc == 2)
			return run(hub_tests, ARRAY_SIZE(hub_tests));
	}
	if (!strcmp(mode, "clock"))
		return clock_cmd();
	if (!strcmp(mode, "remote-cycles") && argc == 4 && !strcmp(argv[2], "home")) {
		pair_home(strtoul(argv[3], NULL, 0));
		return 0;
	}
	if (!strcmp(mode, "remote-cycles") && argc == 5 && !strcmp(argv[2], "requester")) {
		pair_requester(strtoul(argv[3], NULL, 0), argv[4]);
		return 0;
	}
	if (!strcmp(mode, "remote-pair") && argc == 3 && !strcmp(argv[2], "home"))
		return run(&remote_pair_tests[0], 1);
	if (!strcmp(mode, "remote-pair") && argc == 3 && !strcmp(argv[2], "requester"))
		return run(&remote_pair_tests[1], 1);
	fprintf(stderr, "usage: memchan_test [abi|unbind|hw|info|ctrl retry=0|retry=1|err-reset|hub [TEST]|clock|\n"
		"                    remote-pair home|requester|\n"
		"                    remote-cycles home PEER|remote-cycles requester PEER COSIMCTL]\n");
	return 2;
}
