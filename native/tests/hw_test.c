// SPDX-License-Identifier: GPL-2.0
/*
 * hw_test: /dev/memchanN on the hardware backend, the co-simulated RTL adapter
 * of firmware/cosim (boot board-loop, a loopback plug in its cage): identity,
 * internal-loopback data, notification on arrival, receive mappings of the
 * DMA-coherent area, remote requests and their latency, BAR round-trip cost,
 * multicast group registers, raw routes against the region directory; and the
 * ABI tests that hold on either backend (abi_shared.h). Needs root.
 *
 *   hw_test [-l | -t TEST]
 *
 * Environment: MEMCHAN_DEV (default /dev/memchan0).
 */
#define _GNU_SOURCE
#include <poll.h>

#include "mc_test.h"
#include "abi_shared.h"

MC_FIXTURE(hw)

SHARED_TEST(hw, api_version)
SHARED_TEST(hw, info_rejects_bad_argsz)
SHARED_TEST(hw, unknown_ioctl_enotty)

MC_TEST(hw, identity)
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

SHARED_TEST(hw, grant_without_node_enxio)

/*
 * Internal loopback through the RTL: stores into the transmit window come back as DMA writes
 * into the receive page (guest RAM), in order; the wait polls RAM, never a register.
 */
MC_TEST(hw, loopback_data)
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
MC_TEST(hw, notify_on_arrival)
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
MC_TEST(hw, rx_mapping)
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
MC_TEST(hw, rx_other_files_mapping_stays)
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
MC_TEST(hw, rx_late_receiver)
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
MC_TEST(hw, rx_cleared_on_node_change)
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
MC_TEST(hw, rx_attributes)
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

/* the next remote request completes (REMOTE_DONE = done + 1); its REMOTE_LAST */
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
MC_TEST(hw, remote_requests)
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
MC_TEST(hw, remote_ioctl)
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
MC_TEST(hw, remote_latency)
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
/* cost of one BAR0 read and one write round trip, user load/store to the control node's mapping */
MC_TEST(hw, bar_cost)
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

/*
 * MEMCHAN_MCAST_GROUP: what it writes is the adapter's register (read back through BAR0);
 * bad input is refused and leaves every register as it was
 */
MC_TEST(hw, mcast_group)
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
MC_TEST(hw, raw_route_vs_directory)
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

SHARED_TEST(hw, errcnt)

MC_TEST_MAIN
