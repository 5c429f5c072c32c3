// SPDX-License-Identifier: GPL-2.0
/*
 * abi_test: the ABI of /dev/memchanN on the ivshmem backend (boot abi), one
 * test per case, in order on one fresh fabric: argsz, flags and reserved
 * checks, node claims, grants and the PCT, mmap, notification, barrier,
 * remote read and atomics, notifications that carry data, the transmit PCT
 * rule's vectors, sysfs, an unprivileged user, an ioctl fuzz. Needs root; node 0 is set by
 * set_node_claims_block.
 *
 *   abi_test [-l | -t TEST]
 *
 * Environment: MEMCHAN_DEV (default /dev/memchan0), MEMCHAN_FUZZ (ioctl fuzz
 * iterations, default 20000).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "mc_test.h"
#include "abi_shared.h"

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

static uint64_t rnd_state = 0x2545F4914F6CDD1DULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545F4914F6CDD1DULL;
}

MC_FIXTURE(abi)

SHARED_TEST(abi, api_version)
SHARED_TEST(abi, info_rejects_bad_argsz)
SHARED_TEST(abi, unknown_ioctl_enotty)

MC_TEST(abi, info_fields)
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

SHARED_TEST(abi, grant_without_node_enxio)

MC_TEST(abi, set_node_validation)
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

MC_TEST(abi, set_node_claims_block)
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

MC_TEST(abi, heartbeat_advances)
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

MC_TEST(abi, reg_read)
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

/* ivshmem: multicast membership is the directory's mask, the node block has no register to write */
MC_TEST(abi, mcast_group_ivshmem)
{
	int fd = dev_open();
	uint32_t m = 1;

	CHECK(!(info(fd).flags & MEMCHAN_INFO_MCAST_REGS));
	EXPECT_ERR(mcast_group(fd, MEMCHAN_MCAST_WRITE, 3, &m), EOPNOTSUPP);
	EXPECT_ERR(mcast_group(fd, MEMCHAN_MCAST_WRITE, MC_MULTICAST_GROUPS, &m), EINVAL);
}

MC_TEST(abi, release_dead_node)
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

MC_TEST(abi, grant_validation)
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

MC_TEST(abi, grant_tx_programs_pct)
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

MC_TEST(abi, grant_conflicting_route_ebusy)
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

MC_TEST(abi, revoke_validation)
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

MC_TEST(abi, mmap_checks)
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

MC_TEST(abi, tx_stores_reach_rx_page)
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

MC_TEST(abi, rx_store_segv)
{
	int fd = dev_open();
	char *rx;

	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 160, 1, 0, 0, NULL));
	rx = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, MEMCHAN_MMAP_RX_BASE + 160 * PAGE);
	CHECK(rx != MAP_FAILED);
	CHECK(touch(rx, 0) == 0);
	CHECK(touch(rx, 1) == SIGSEGV);
}

MC_TEST(abi, revoke_while_mapped_sigbus)
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

MC_TEST(abi, other_file_grants_do_not_map)
{
	int a = dev_open(), b = dev_open();

	EXPECT_OK(grant(a, MEMCHAN_GRANT_TX, 180, 1, tx_to(1), 0, NULL));
	CHECK(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, b, 180 * PAGE) == MAP_FAILED &&
	      errno == EACCES);
}

MC_TEST(abi, notify_poll_read_wait)
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

MC_TEST(abi, notify_wakes_sleeping_waiter)
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
MC_TEST(abi, wait_sees_live_count)
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

MC_TEST(abi, eventfd_signalled)
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

MC_TEST(abi, barrier_sweep)
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

SHARED_TEST(abi, errcnt)

MC_TEST(abi, loopback_ioctl)
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

MC_TEST(abi, pct_raw_access)
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
MC_TEST(abi, tx_rule_vectors)
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
MC_TEST(abi, rx_attributes)
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

/*
 * MEMCHAN_REMOTE on the soft fabric: node 0 is the home of pages 230 (READ), 231
 * (ATOMIC) and 232 (READ, COUNT_IRQ); what it serves, what it refuses (counted,
 * nothing changed), what the core refuses before the home sees it (not counted).
 */
MC_TEST(abi, remote_ops)
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

/* MEMCHAN_NOTIFY_DATA: -errno or 0, *queued as the driver answered */
static int notify_data(int fd, uint32_t node, uint32_t page, uint64_t payload, uint32_t *queued)
{
	struct memchan_notify_data n = { .argsz = sizeof(n), .node = node, .page = page,
					 .payload = payload };
	int ret = ioctl(fd, MEMCHAN_NOTIFY_DATA, &n);

	if (queued)
		*queued = n.queued;
	return ret;
}

/* MEMCHAN_NOTIFY_QUEUE of page with flags; the struct as the driver filled it */
static int notify_queue(int fd, uint32_t page, uint32_t flags, struct memchan_notify_queue *q)
{
	*q = (struct memchan_notify_queue){ .argsz = sizeof(*q), .flags = flags, .page = page };
	return ioctl(fd, MEMCHAN_NOTIFY_QUEUE, q);
}

static uint64_t nq_entry(uint32_t sender, uint64_t payload)
{
	return (uint64_t)sender << MC_NQ_ENTRY_SENDER_SHIFT | payload << MC_NQ_ENTRY_PAYLOAD_SHIFT;
}

/*
 * Notifications that carry data, refused: every bad argument and every page the
 * receiver does not receive leaves the queue page, OVERFLOW and both nodes'
 * interrupt registers as they were; then one that is taken.
 */
MC_TEST(abi, notify_data_refused_changes_nothing)
{
	int fd = dev_open(), other = dev_open();
	struct memchan_info in = info(fd);
	uint64_t ps = in.page_size, max = MC_NQ_ENTRY_PAYLOAD_MASK >> MC_NQ_ENTRY_PAYLOAD_SHIFT;
	size_t len;
	char *fab = ctl_map(&len), *nq = fab + U64(fab, MC_SF_HDR_DATA_OFFSET) + 205 * ps;
	char *nb0 = node_block(fab, 0), *nb1 = node_block(fab, 1), before[8192];
	uint32_t count0 = U32(nb0, MC_REG_NOTIFY_COUNT), count1 = U32(nb1, MC_REG_NOTIFY_COUNT);
	struct memchan_notify_data bad = { .argsz = sizeof(bad), .page = 205, .payload = 1 };
	struct memchan_notify_queue q;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t buf[8] = { 0 };
	uint32_t queued = 7;

	CHECK(in.flags & MEMCHAN_INFO_NOTIFY_DATA);
	CHECK(in.node_id == 0 && ps <= sizeof(before));
	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 205, 1, 0, MEMCHAN_RX_IRQ, NULL));
	memcpy(before, nq, ps);
	/* the struct's own fields */
	bad.flags = 1;
	EXPECT_ERR(ioctl(fd, MEMCHAN_NOTIFY_DATA, &bad), EINVAL);
	bad.flags = 0;
	bad.pad = 1;
	EXPECT_ERR(ioctl(fd, MEMCHAN_NOTIFY_DATA, &bad), EINVAL);
	bad.pad = 0;
	bad.queued = 1;
	EXPECT_ERR(ioctl(fd, MEMCHAN_NOTIFY_DATA, &bad), EINVAL);
	bad.queued = 0;
	bad.argsz = sizeof(bad) - 8;
	EXPECT_ERR(ioctl(fd, MEMCHAN_NOTIFY_DATA, &bad), EINVAL);
	bad.argsz = sizeof(buf);
	memcpy(buf, &bad, sizeof(bad));
	bad.argsz = sizeof(bad);
	buf[7] = 1;	/* a non-zero byte beyond the struct */
	EXPECT_ERR(ioctl(fd, MEMCHAN_NOTIFY_DATA, buf), E2BIG);
	/* node, page, payload out of range */
	EXPECT_ERR(notify_data(fd, in.max_nodes, 205, 1, NULL), EINVAL);
	EXPECT_ERR(notify_data(fd, MEMCHAN_NODE_NONE, 205, 1, NULL), EINVAL);
	EXPECT_ERR(notify_data(fd, 0, in.page_count, 1, NULL), EINVAL);
	EXPECT_ERR(notify_data(fd, 0, 205, max + 1, NULL), EINVAL);
	EXPECT_ERR(notify_data(fd, 0, 205, ~0ULL, NULL), EINVAL);
	/* the receiver's RX PCT: node 0 does not receive 206, node 1 not 205 */
	EXPECT_ERR(notify_data(fd, 0, 206, 1, NULL), EACCES);
	EXPECT_ERR(notify_data(fd, 1, 205, 1, NULL), EACCES);
	/* the queue's side: flags, out fields, range, the receive grant of the file */
	EXPECT_ERR(notify_queue(fd, 205, 2, &q), EINVAL);
	q = (struct memchan_notify_queue){ .argsz = sizeof(q), .page = 205, .pad = 1 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_NOTIFY_QUEUE, &q), EINVAL);
	q = (struct memchan_notify_queue){ .argsz = sizeof(q), .page = 205, .entry = 1 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_NOTIFY_QUEUE, &q), EINVAL);
	q = (struct memchan_notify_queue){ .argsz = sizeof(q), .page = 205, .pending = 1 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_NOTIFY_QUEUE, &q), EINVAL);
	q = (struct memchan_notify_queue){ .argsz = sizeof(q), .flags = MEMCHAN_NQ_TAKE,
					   .page = 205, .overflow = 1 };
	EXPECT_ERR(ioctl(fd, MEMCHAN_NOTIFY_QUEUE, &q), EINVAL);
	EXPECT_ERR(notify_queue(fd, in.page_count, MEMCHAN_NQ_TAKE, &q), EINVAL);
	EXPECT_ERR(notify_queue(fd, 206, MEMCHAN_NQ_TAKE, &q), EACCES);
	EXPECT_ERR(notify_queue(other, 205, MEMCHAN_NQ_TAKE, &q), EACCES);	/* no grant */
	CHECK(memcmp(before, nq, ps) == 0);
	CHECK(U32(nb0, MC_REG_NOTIFY_COUNT) == count0 && U32(nb1, MC_REG_NOTIFY_COUNT) == count1);
	CHECK(poll(&pfd, 1, 0) == 0);
	EXPECT_OK(notify_queue(fd, 205, MEMCHAN_NQ_TAKE, &q));
	CHECK(q.entry == MEMCHAN_NQ_EMPTY && q.overflow == 0 && q.pending == 0);

	/* the largest payload is taken, the receive interrupt raised */
	EXPECT_OK(notify_data(other, 0, 205, max, &queued));
	CHECK(queued == 1);
	CHECK(U32(nb0, MC_REG_NOTIFY_COUNT) == count0 + 1);
	CHECK(U32(nb0, MC_REG_RX_NOTIFY_PAGE) == 205);
	CHECK(poll(&pfd, 1, 2000) == 1 && (pfd.revents & POLLIN));
	EXPECT_OK(notify_queue(fd, 205, 0, &q));
	CHECK(q.entry == MEMCHAN_NQ_EMPTY && q.pending == 1);
	EXPECT_OK(notify_queue(fd, 205, MEMCHAN_NQ_TAKE, &q));
	CHECK(q.entry == nq_entry(0, max) && q.pending == 0 && q.overflow == 0);
	EXPECT_OK(notify_queue(fd, 205, MEMCHAN_NQ_TAKE, &q));
	CHECK(q.entry == MEMCHAN_NQ_EMPTY);
	CHECK(U64(nq, MC_NQ_TAIL) == 1 && U64(nq, MC_NQ_HEAD) == 1);
}

/*
 * A full queue counts exactly what it refused and keeps the first capacity
 * entries in order; drained, it takes more across the end of its slots. Without
 * IRQ_ON_RX nobody is woken.
 */
MC_TEST(abi, notify_data_overflow_counted)
{
	int fd = dev_open();
	uint64_t ps = info(fd).page_size, i, cap = (ps - MC_NQ_HEADER_SIZE) / MC_NQ_SLOT_SIZE;
	size_t len;
	char *fab = ctl_map(&len), *nq = fab + U64(fab, MC_SF_HDR_DATA_OFFSET) + 207 * ps;
	uint32_t count0 = U32(node_block(fab, 0), MC_REG_NOTIFY_COUNT), queued, taken = 0;
	struct memchan_notify_queue q;

	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 207, 1, 0, 0, NULL));
	for (i = 0; i < cap + 5; i++) {
		EXPECT_OK(notify_data(fd, 0, 207, 1000 + i, &queued));
		EXPECT(queued == (i < cap), "notification %llu: queued %u", (unsigned long long)i,
		       queued);
	}
	EXPECT_OK(notify_queue(fd, 207, 0, &q));
	CHECK(q.overflow == 5 && q.pending == cap && U64(nq, MC_NQ_OVERFLOW) == 5);
	for (i = 0; i < cap; i++) {
		EXPECT_OK(notify_queue(fd, 207, MEMCHAN_NQ_TAKE, &q));
		taken += q.entry == nq_entry(0, 1000 + i);
	}
	EXPECT(taken == cap, "%u of %llu entries in order", taken, (unsigned long long)cap);
	EXPECT_OK(notify_queue(fd, 207, MEMCHAN_NQ_TAKE, &q));
	CHECK(q.entry == MEMCHAN_NQ_EMPTY && q.pending == 0 && q.overflow == 5);
	for (i = 0; i < 3; i++) {
		EXPECT_OK(notify_data(fd, 0, 207, 7 + i, &queued));
		CHECK(queued == 1);
	}
	for (i = 0; i < 3; i++) {
		EXPECT_OK(notify_queue(fd, 207, MEMCHAN_NQ_TAKE, &q));
		CHECK(q.entry == nq_entry(0, 7 + i));
	}
	CHECK(q.pending == 0 && q.overflow == 5);
	CHECK(U64(nq, MC_NQ_TAIL) == cap + 3 && U64(nq, MC_NQ_HEAD) == cap + 3);
	CHECK(U32(node_block(fab, 0), MC_REG_NOTIFY_COUNT) == count0);
}

/*
 * Into another node's queue (node 1 as a host process of the fabric would be: its
 * RX PCT written through the control node): the sender's ID in the entry, the
 * receiver's interrupt raised. A slot whose SEQ no producer could have written
 * (a page that holds no queue) is refused with EAGAIN, nothing changed.
 */
MC_TEST(abi, notify_data_other_node_and_bad_page)
{
	int fd = dev_open();
	struct memchan_info in = info(fd);
	uint64_t ps = in.page_size;
	size_t len;
	char *fab = ctl_map(&len), *data = fab + U64(fab, MC_SF_HDR_DATA_OFFSET);
	char *nb1 = node_block(fab, 1), *nq = data + 208 * ps, *nq2 = data + 212 * ps;
	volatile uint64_t *rx1 = (volatile uint64_t *)(nb1 +
		mc_sf_rx_pct_offset(ps, in.page_count) + 208 * MC_RX_PCT_ENTRY_SIZE);
	uint32_t count1 = U32(nb1, MC_REG_NOTIFY_COUNT), count0, queued;
	uint32_t status1 = U32(nb1, MC_REG_IRQ_STATUS), page1 = U32(nb1, MC_REG_RX_NOTIFY_PAGE);
	struct memchan_notify_queue q;

	*rx1 = MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_IRQ_ON_RX_MASK;
	EXPECT_OK(notify_data(fd, 1, 208, 0xabcdef, &queued));
	CHECK(queued == 1);
	CHECK(U64(nq, MC_NQ_TAIL) == 1);
	CHECK(U64(nq, MC_NQ_HEADER_SIZE + MC_NQ_SLOT_SEQ) == 1);
	CHECK(U64(nq, MC_NQ_HEADER_SIZE + MC_NQ_SLOT_ENTRY) == nq_entry(0, 0xabcdef));
	CHECK(U32(nb1, MC_REG_NOTIFY_COUNT) == count1 + 1);
	CHECK(U32(nb1, MC_REG_IRQ_STATUS) & MC_IRQ_STATUS_RX_NOTIFY_MASK);
	CHECK(U32(nb1, MC_REG_RX_NOTIFY_PAGE) == 208);
	EXPECT_ERR(notify_queue(fd, 208, MEMCHAN_NQ_TAKE, &q), EACCES);	/* node 1's, not ours */
	*rx1 = 0;
	U32(nb1, MC_REG_IRQ_STATUS) = status1;
	U32(nb1, MC_REG_RX_NOTIFY_PAGE) = page1;
	U32(nb1, MC_REG_NOTIFY_COUNT) = count1;

	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 212, 1, 0, MEMCHAN_RX_IRQ, NULL));
	count0 = U32(node_block(fab, 0), MC_REG_NOTIFY_COUNT);
	U64(nq2, MC_NQ_HEADER_SIZE + MC_NQ_SLOT_SEQ) = 5;	/* ahead of every position */
	EXPECT_ERR(notify_data(fd, 0, 212, 1, NULL), EAGAIN);
	CHECK(U64(nq2, MC_NQ_TAIL) == 0 && U64(nq2, MC_NQ_OVERFLOW) == 0);
	CHECK(U32(node_block(fab, 0), MC_REG_NOTIFY_COUNT) == count0);
	U64(nq2, MC_NQ_HEADER_SIZE + MC_NQ_SLOT_SEQ) = 0;
	EXPECT_OK(notify_data(fd, 0, 212, 1, &queued));
	CHECK(queued == 1 && U32(node_block(fab, 0), MC_REG_NOTIFY_COUNT) == count0 + 1);
	EXPECT_OK(notify_queue(fd, 212, MEMCHAN_NQ_TAKE, &q));
	CHECK(q.entry == nq_entry(0, 1));
}

MC_TEST(abi, one_route_per_page_across_nodes)
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

MC_TEST(abi, set_node_busy_with_grants)
{
	int fd = dev_open();

	EXPECT_OK(grant(fd, MEMCHAN_GRANT_RX, 220, 1, 0, 0, NULL));
	EXPECT_ERR(set_node(fd, 3, 0), EBUSY);
	EXPECT_ERR(set_node(fd, MEMCHAN_NODE_NONE, 0), EBUSY);
	CHECK(info(fd).node_id == 0);
}

MC_TEST(abi, node_claim_in_use_and_takeover)
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

MC_TEST(abi, sysfs_attributes)
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

MC_TEST(abi, unprivileged_refused)
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
	MEMCHAN_REMOTE, MEMCHAN_PAGE_COUNTERS, MEMCHAN_NOTIFY_DATA, MEMCHAN_NOTIFY_QUEUE,
};

static const uint32_t fuzz_sizes[] = {
	0, sizeof(struct memchan_info), sizeof(struct memchan_node), sizeof(struct memchan_pct),
	sizeof(struct memchan_grant), sizeof(struct memchan_grant), sizeof(struct memchan_barrier),
	sizeof(struct memchan_wait), sizeof(struct memchan_eventfd), sizeof(struct memchan_notify),
	sizeof(struct memchan_loopback), sizeof(struct memchan_errcnt), sizeof(struct memchan_reg),
	sizeof(struct memchan_release), sizeof(struct memchan_remote),
	sizeof(struct memchan_page_counters), sizeof(struct memchan_notify_data),
	sizeof(struct memchan_notify_queue),
};

MC_TEST(abi, ioctl_fuzz)
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

MC_TEST_MAIN
