// SPDX-License-Identifier: GPL-2.0
/*
 * mc_cluster: two nodes of one soft fabric exchange data. Each side is
 * either a process on /dev/memchanN in a guest (--dev) or a host process
 * on the soft-fabric file itself (--fabric, docs/soft-fabric.md), so the
 * same program checks guest<->guest and host<->guest clusters.
 *
 *   mc_cluster --role a|b --node N --peer M (--dev /dev/memchan0 | --fabric FILE)
 *              [--messages K] [--rounds R] [--timeout S]
 *
 * Pages: 40 a->b messages, 41 b->a replies, 42 a->b ordering test.
 * When both sides are driver nodes with a global clock (CAPS.GLOBAL_CLOCK: the
 * board, and the ivshmem backend's exchange with its master), they also read
 * the cluster time in turn and check each reading against the other's.
 * Output: TAP lines and exit status 0 when every check passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../include/uapi/linux/memchan.h"
#include "../tools/mcfab.h"

#define PAGE_AB 40
#define PAGE_BA 41
#define PAGE_ORD 42
#define MAGIC_A 0x41414141a11ceULL
#define MAGIC_B 0x42424242b0bULL
#define PAYLOAD_WORDS 256

/* message page layout (u64 words) */
#define W_HELLO 0
#define W_SEQ 1
#define W_SUM 2
#define W_DONE 3
/* W_DONE + 1: the ordering receiver's count of older values */
#define W_CLK_CAP 5	/* this side reads a global clock (written before W_HELLO) */
#define W_CLK_SEQ 6	/* clock phase: the last round this side read */
#define W_CLK_TIME 7	/* ... and the time it read */
#define CLOCK_ROUNDS 20
#define W_DATA 8

struct xport {
	/* dev */
	int fd;
	/* fabric */
	char *fab;
	struct mcfab_geom g;
	uint32_t node;
	/* both */
	volatile uint64_t *tx[3];	/* indexed by page - 40 */
	volatile uint64_t *rx[3];
	uint32_t page_size;
	int arrival_notifies;		/* hardware: a packet on an IRQ page notifies by itself */
	unsigned long wakeups;
	uint32_t last_count;
};

static int failures, tap_n;

static void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
	if (!ok)
		failures++;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	printf("not ok %d - %s: %s\n", ++tap_n, what, strerror(errno));
	printf("1..%d\n", tap_n);
	exit(1);
}

/* ---- /dev/memchanN transport ---- */

static void dev_grant(struct xport *x, uint32_t page, int tx, uint32_t peer)
{
	struct memchan_grant g = { .argsz = sizeof(g) };
	void *p;

	g.flags = tx ? MEMCHAN_GRANT_TX : MEMCHAN_GRANT_RX;
	g.first_page = page;
	g.count = 1;
	if (tx)
		g.tx_entry = MC_TX_PCT_TX_EN_MASK | peer << MC_TX_PCT_DEST_SHIFT;
	else
		g.rx_flags = MEMCHAN_RX_IRQ;
	if (ioctl(x->fd, MEMCHAN_GRANT, &g))
		die("MEMCHAN_GRANT");
	p = mmap(NULL, x->page_size, tx ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED,
		 x->fd, g.mmap_offset);
	if (p == MAP_FAILED)
		die("mmap");
	if (tx)
		x->tx[page - PAGE_AB] = p;
	else
		x->rx[page - PAGE_AB] = p;
}

static void dev_open(struct xport *x, const char *path, uint32_t node)
{
	struct memchan_info info = { .argsz = sizeof(info) };
	struct memchan_node n = { .argsz = sizeof(n), .node_id = node };

	x->fd = open(path, O_RDWR);
	if (x->fd < 0)
		die(path);
	if (ioctl(x->fd, MEMCHAN_SET_NODE, &n))
		die("MEMCHAN_SET_NODE");
	if (ioctl(x->fd, MEMCHAN_INFO, &info))
		die("MEMCHAN_INFO");
	x->page_size = info.page_size;
	x->last_count = info.notify_count;
	x->arrival_notifies = info.backend == MEMCHAN_BACKEND_HW;
}

static void dev_notify(struct xport *x, uint32_t page)
{
	struct memchan_notify n = { .argsz = sizeof(n), .page = page };

	/* the store's packet raises RX_NOTIFY at the receiver (MEMCHAN_NOTIFY: EOPNOTSUPP) */
	if (x->arrival_notifies)
		return;
	if (ioctl(x->fd, MEMCHAN_NOTIFY, &n))
		die("MEMCHAN_NOTIFY");
}

static void dev_barrier(struct xport *x)
{
	struct memchan_barrier b = { .argsz = sizeof(b) };

	if (ioctl(x->fd, MEMCHAN_BARRIER, &b) || b.ack_outstanding)
		die("MEMCHAN_BARRIER");
}

static void dev_wait(struct xport *x, int ms)
{
	struct pollfd pfd = { .fd = x->fd, .events = POLLIN };
	uint64_t v;

	if (poll(&pfd, 1, ms) == 1 && (pfd.revents & POLLIN)) {
		if (read(x->fd, &v, sizeof(v)) == sizeof(v))
			x->wakeups++;
	}
}

static uint32_t dev_reg(struct xport *x, uint32_t off)
{
	struct memchan_reg r = { .argsz = sizeof(r), .offset = off };

	if (ioctl(x->fd, MEMCHAN_REG_READ, &r))
		die("MEMCHAN_REG_READ");
	return r.value;
}

/* the cluster time and its bound; 0 while the clock is not VALID */
static int dev_clock(struct xport *x, uint64_t *time, uint64_t *bound)
{
	uint32_t lo = dev_reg(x, MC_REG_GLOBAL_TIME_LO);	/* latches _HI */

	*time = lo | (uint64_t)dev_reg(x, MC_REG_GLOBAL_TIME_HI) << (CHAR_BIT * sizeof(uint32_t));
	*bound = dev_reg(x, MC_REG_CLOCK_BOUND);
	return (dev_reg(x, MC_REG_CLOCK_STATUS) & MC_CLOCK_STATUS_VALID_MASK) &&
	       *bound != UINT32_MAX;
}

/* ---- host process on the soft-fabric file ---- */

static uint64_t host_id(void)
{
	char boot[64] = "", buf[32];
	uint64_t h = 1469598103934665603ULL;
	struct stat st;
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	size_t i;

	if (f) {
		if (!fgets(boot, sizeof(boot), f))
			boot[0] = 0;
		fclose(f);
	}
	if (stat("/proc/self/ns/pid", &st))
		st.st_ino = 0;
	snprintf(buf, sizeof(buf), ":%llu", (unsigned long long)st.st_ino);
	for (i = 0; boot[i] && boot[i] != '\n'; i++)
		h = (h ^ (uint8_t)boot[i]) * 1099511628211ULL;
	for (i = 0; buf[i]; i++)
		h = (h ^ (uint8_t)buf[i]) * 1099511628211ULL;
	return h ? h : 1;
}

static void fab_open(struct xport *x, const char *path, uint32_t node)
{
	char err[128], *nb;
	struct stat st;
	uint64_t inc, expect = 0;
	int fd = open(path, O_RDWR);

	if (fd < 0 || fstat(fd, &st))
		die(path);
	x->fab = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (x->fab == MAP_FAILED)
		die("mmap fabric");
	if (mcfab_validate(x->fab, st.st_size, &x->g, err, sizeof(err))) {
		errno = EINVAL;
		fprintf(stderr, "invalid soft fabric: %s\n", err);
		die("validate");
	}
	nb = mcfab_node(x->fab, &x->g, node);
	inc = mc_sf_next_incarnation(MCFAB_U64(nb, MC_SF_NODE_INCARNATION));
	if (!__atomic_compare_exchange_n((uint64_t *)(nb + MC_SF_NODE_OWNER), &expect,
					 mc_sf_owner_word(inc, getpid()), 0,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		errno = EBUSY;
		die("claim node");
	}
	MCFAB_U64(nb, MC_SF_NODE_INCARNATION) = inc;
	MCFAB_U64(nb, MC_SF_NODE_HOST_ID) = host_id();
	MCFAB_U32(nb, MC_REG_NODE_ID) = node | MC_NODE_ID_VALID_MASK;
	x->node = node;
	x->page_size = x->g.page_size;
	x->last_count = MCFAB_U32(nb, MC_REG_NOTIFY_COUNT);
}

static void fab_grant(struct xport *x, uint32_t page, int tx, uint32_t peer)
{
	uint32_t e = MC_TX_PCT_TX_EN_MASK | peer << MC_TX_PCT_DEST_SHIFT, n, o;

	if (tx) {
		for (n = 0; n < x->g.max_nodes; n++) {
			o = *mcfab_tx_pct(x->fab, &x->g, n, page);
			if (n != x->node && (o & MC_TX_PCT_TX_EN_MASK) &&
			    ((o ^ e) & (MC_TX_PCT_DEST_KIND_MASK | MC_TX_PCT_DEST_MASK))) {
				errno = EBUSY;
				die("route");
			}
		}
		*mcfab_tx_pct(x->fab, &x->g, x->node, page) = e;
		x->tx[page - PAGE_AB] = (volatile uint64_t *)mcfab_page(x->fab, &x->g, page);
	} else {
		*mcfab_rx_pct(x->fab, &x->g, x->node, page) =
			MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_IRQ_ON_RX_MASK;
		x->rx[page - PAGE_AB] = (volatile uint64_t *)mcfab_page(x->fab, &x->g, page);
	}
}

/* the emulated adapter's interrupt, as a host process does it */
static void fab_notify(struct xport *x, uint32_t page)
{
	const uint64_t want = MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_IRQ_ON_RX_MASK;
	uint32_t n;
	char *nb;

	__sync_synchronize();
	for (n = 0; n < x->g.max_nodes; n++) {
		if ((*mcfab_rx_pct(x->fab, &x->g, n, page) & want) != want)
			continue;
		nb = mcfab_node(x->fab, &x->g, n);
		__atomic_fetch_or((uint32_t *)(nb + MC_REG_IRQ_STATUS),
				  MC_IRQ_STATUS_RX_NOTIFY_MASK, __ATOMIC_SEQ_CST);
		MCFAB_U32(nb, MC_REG_RX_NOTIFY_PAGE) = page;
		__atomic_fetch_add((uint32_t *)(nb + MC_REG_NOTIFY_COUNT), 1, __ATOMIC_SEQ_CST);
		syscall(SYS_futex, nb + MC_REG_NOTIFY_COUNT, FUTEX_WAKE, 1 << 30, NULL, NULL, 0);
	}
}

static void fab_wait(struct xport *x, int ms)
{
	char *nb = mcfab_node(x->fab, &x->g, x->node);
	uint32_t c = MCFAB_U32(nb, MC_REG_NOTIFY_COUNT);
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	if (c == x->last_count) {
		syscall(SYS_futex, nb + MC_REG_NOTIFY_COUNT, FUTEX_WAIT, c, &ts, NULL, 0);
		c = MCFAB_U32(nb, MC_REG_NOTIFY_COUNT);
	}
	if (c != x->last_count) {
		x->last_count = c;
		x->wakeups++;
	}
}

static void fab_close(struct xport *x)
{
	char *nb = mcfab_node(x->fab, &x->g, x->node);

	*mcfab_tx_pct(x->fab, &x->g, x->node, PAGE_AB) = 0;
	*mcfab_tx_pct(x->fab, &x->g, x->node, PAGE_BA) = 0;
	*mcfab_tx_pct(x->fab, &x->g, x->node, PAGE_ORD) = 0;
	*mcfab_rx_pct(x->fab, &x->g, x->node, PAGE_AB) = 0;
	*mcfab_rx_pct(x->fab, &x->g, x->node, PAGE_BA) = 0;
	*mcfab_rx_pct(x->fab, &x->g, x->node, PAGE_ORD) = 0;
	MCFAB_U32(nb, MC_REG_NODE_ID) = 0;
	__atomic_store_n((uint64_t *)(nb + MC_SF_NODE_OWNER), 0, __ATOMIC_SEQ_CST);
}

/* ---- protocol ---- */

static int use_dev;

static void grant(struct xport *x, uint32_t page, int tx, uint32_t peer)
{
	if (use_dev)
		dev_grant(x, page, tx, peer);
	else
		fab_grant(x, page, tx, peer);
}

static void notify(struct xport *x, uint32_t page)
{
	if (use_dev)
		dev_notify(x, page);
	else
		fab_notify(x, page);
}

static void barrier_(struct xport *x)
{
	if (use_dev)
		dev_barrier(x);
	else
		__sync_synchronize();
}

static void wait_note(struct xport *x, int ms)
{
	if (use_dev)
		dev_wait(x, ms);
	else
		fab_wait(x, ms);
}

static uint64_t pattern(uint64_t k, uint64_t i)
{
	uint64_t v = k * 0x9e3779b97f4a7c15ULL ^ (i + 1) * 0xbf58476d1ce4e5b9ULL;

	return v ^ v >> 31;
}

/* wait until *w == v, sleeping on notifications; returns 0 on timeout */
static int await(struct xport *x, volatile uint64_t *w, uint64_t v, double deadline)
{
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) != v) {
		if (now_s() > deadline)
			return 0;
		wait_note(x, 20);
	}
	return 1;
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *fabric = NULL;
	int role_a = -1, i, msgs = 200, rounds = 200000, timeout = 120, ok;
	uint32_t node = 0, peer = 1;
	struct xport x = { .fd = -1 };
	double deadline, t0;
	uint64_t k, r, sum, older = 0, checks = 0, max_bound = 0, clock, peer_clock = 0;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--role"))
			role_a = !strcmp(argv[i + 1], "a");
		else if (!strcmp(argv[i], "--node"))
			node = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--peer"))
			peer = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--dev"))
			dev = argv[i + 1];
		else if (!strcmp(argv[i], "--fabric"))
			fabric = argv[i + 1];
		else if (!strcmp(argv[i], "--messages"))
			msgs = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--rounds"))
			rounds = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--timeout"))
			timeout = atoi(argv[i + 1]);
	}
	if (role_a < 0 || !!dev == !!fabric) {
		fprintf(stderr, "usage: mc_cluster --role a|b --node N --peer M (--dev DEV | --fabric FILE)\n");
		return 2;
	}
	use_dev = !!dev;
	printf("TAP version 13\n# mc_cluster role %s node %u peer %u on %s\n",
	       role_a ? "a" : "b", node, peer, dev ? dev : fabric);
	if (use_dev)
		dev_open(&x, dev, node);
	else
		fab_open(&x, fabric, node);
	if (role_a) {
		grant(&x, PAGE_AB, 1, peer);
		grant(&x, PAGE_ORD, 1, peer);
		grant(&x, PAGE_BA, 0, 0);
	} else {
		grant(&x, PAGE_BA, 1, peer);
		grant(&x, PAGE_AB, 0, 0);
		grant(&x, PAGE_ORD, 0, 0);
	}
	deadline = now_s() + timeout;
	t0 = now_s();

	/* 1. handshake */
	/*
	 * Each side's clock capability travels just ahead of its hello (fenced: a board's transmit
	 * window is write-combining). On a board a node receives only what arrives after it has a
	 * node ID, and the other guest may not be that far yet: a says hello again every second
	 * until b answers; b answers once it saw a's hello, when a has its ID.
	 */
	clock = use_dev && (dev_reg(&x, MC_REG_CAPS) & MC_CAPS_GLOBAL_CLOCK_MASK);
	if (role_a) {
		do {
			x.tx[0][W_CLK_CAP] = clock;
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
			x.tx[0][W_HELLO] = MAGIC_A;
			notify(&x, PAGE_AB);
			ok = await(&x, &x.rx[1][W_HELLO], MAGIC_B,
				   deadline < now_s() + 1 ? deadline : now_s() + 1);
		} while (!ok && now_s() < deadline);
	} else {
		ok = await(&x, &x.rx[0][W_HELLO], MAGIC_A, deadline);
		x.tx[1][W_CLK_CAP] = clock;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		x.tx[1][W_HELLO] = MAGIC_B;
		notify(&x, PAGE_BA);
	}
	tap(ok, "handshake with node %u (%.2f s)", peer, now_s() - t0);
	peer_clock = x.rx[role_a ? 1 : 0][W_CLK_CAP];
	if (!ok)
		goto out;

	/* 2. messages: payload, barrier, sequence number, notification; reply with checksum */
	t0 = now_s();
	ok = 1;
	for (k = 1; k <= (uint64_t)msgs && ok; k++) {
		if (role_a) {
			for (i = 0, sum = 0; i < PAYLOAD_WORDS; i++) {
				x.tx[0][W_DATA + i] = pattern(k, i);
				sum += pattern(k, i);
			}
			barrier_(&x);
			__atomic_store_n(&x.tx[0][W_SEQ], k, __ATOMIC_RELEASE);
			notify(&x, PAGE_AB);
			ok = await(&x, &x.rx[1][W_SEQ], k, deadline) && x.rx[1][W_SUM] == sum;
		} else {
			ok = await(&x, &x.rx[0][W_SEQ], k, deadline);
			for (i = 0, sum = 0; ok && i < PAYLOAD_WORDS; i++) {
				if (x.rx[0][W_DATA + i] != pattern(k, i))
					ok = 0;
				sum += x.rx[0][W_DATA + i];
			}
			x.tx[1][W_SUM] = sum;
			barrier_(&x);
			__atomic_store_n(&x.tx[1][W_SEQ], k, __ATOMIC_RELEASE);
			notify(&x, PAGE_BA);
		}
	}
	tap(ok, "%d messages of %d bytes, payload intact behind the barrier (%.2f s, %.0f us/round trip)",
	    msgs, PAYLOAD_WORDS * 8, now_s() - t0, (now_s() - t0) * 1e6 / msgs);
	tap(x.wakeups > 0, "notifications woke the receiver (%lu wakeups)", x.wakeups);

	/* 3. ordering: data word (r mod 256), then the flag; never an older data value */
	t0 = now_s();
	if (role_a) {
		volatile uint64_t *d = x.tx[2];

		for (r = 1; r <= (uint64_t)rounds; r++) {
			d[8 + r % 256] = r;
			d[0] = r;
		}
		notify(&x, PAGE_ORD);
		ok = await(&x, &x.rx[1][W_DONE], (uint64_t)rounds, deadline);
		ok = ok && x.rx[1][W_DONE + 1] == 0;
		tap(ok, "ordering: %d rounds sent, receiver saw no older value (%.2f s)",
		    rounds, now_s() - t0);
	} else {
		volatile uint64_t *d = x.rx[2];
		uint64_t f, v;

		do {
			f = d[0];
			v = d[8 + f % 256];
			if (f && v < f)
				older++;
			checks++;
		} while (f < (uint64_t)rounds && now_s() < deadline);
		x.tx[1][W_DONE + 1] = older;
		barrier_(&x);
		__atomic_store_n(&x.tx[1][W_DONE], f, __ATOMIC_RELEASE);
		notify(&x, PAGE_BA);
		tap(f == (uint64_t)rounds && older == 0,
		    "ordering: %llu checks up to round %llu, %llu older values (%.2f s)",
		    (unsigned long long)checks, (unsigned long long)f,
		    (unsigned long long)older, now_s() - t0);
		/* let a see the verdict before our grants go */
		usleep(200000);
	}
	/*
	 * 4. global clock: the sides read the cluster time in turn; a reading made after the
	 * peer's (it waited for it) may lie before it by at most its own bound: the master's
	 * time at the peer's read was at least the peer's reading, at ours at most ours + bound
	 */
	if (!clock || !peer_clock) {
		printf("# clock: skipped, %s has no global clock\n", clock ? "the peer" : "this side");
		goto out;
	}
	t0 = now_s();
	ok = 1;
	for (r = role_a ? 1 : 2; r <= CLOCK_ROUNDS && ok; r += 2) {
		volatile uint64_t *mine = x.tx[role_a ? 0 : 1], *theirs = x.rx[role_a ? 1 : 0];
		uint64_t t, b, prev;

		if (r > 1 && !await(&x, &theirs[W_CLK_SEQ], r - 1, deadline)) {
			ok = 0;
			break;
		}
		prev = theirs[W_CLK_TIME];
		while (!dev_clock(&x, &t, &b) && now_s() < deadline)
			usleep(10000);
		if (b == UINT32_MAX) {
			ok = 0;
			printf("# clock: not VALID before the deadline\n");
			break;
		}
		if (r > 1 && prev > t + b) {
			ok = 0;
			printf("# clock: round %llu read %llu bound %llu, before the peer's earlier %llu\n",
			       (unsigned long long)r, (unsigned long long)t, (unsigned long long)b,
			       (unsigned long long)prev);
		}
		max_bound = b > max_bound ? b : max_bound;
		mine[W_CLK_TIME] = t;
		__atomic_thread_fence(__ATOMIC_SEQ_CST);	/* drains write combining */
		__atomic_store_n(&mine[W_CLK_SEQ], r, __ATOMIC_RELEASE);
		notify(&x, role_a ? PAGE_AB : PAGE_BA);
	}
	tap(ok, "clock: %d readings in turn with node %u, none before the peer's earlier one by more than its bound (max bound %llu %s, %.2f s)",
	    CLOCK_ROUNDS / 2, peer, (unsigned long long)max_bound,
	    x.arrival_notifies ? "cycles" : "ns", now_s() - t0);
	if (role_a)	/* b's last reading checks ours: keep our pages until it is made */
		await(&x, &x.rx[1][W_CLK_SEQ], CLOCK_ROUNDS, deadline);
out:
	if (!use_dev)
		fab_close(&x);
	printf("1..%d\n", tap_n);
	return failures ? 1 : 0;
}
