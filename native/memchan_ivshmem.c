// SPDX-License-Identifier: GPL-2.0
/*
 * memchan: software backend on QEMU's ivshmem-plain device (1af4:1110).
 *
 * BAR2 is the soft-fabric file (docs/soft-fabric.md), shared with other
 * guests and with host processes that map the same /dev/shm file. This
 * backend is one node of that fabric: it claims a node block (OWNER word,
 * HOST_ID, INCARNATION), writes its own TX/RX PCT there, maps data pages of
 * the file for granted pages, polls its NOTIFY_COUNT (a futex wake cannot
 * cross the VM boundary), performs the emulated receive interrupt for
 * MEMCHAN_NOTIFY and increments its membership HEARTBEAT while it holds a
 * node ID. The file is little endian, like the only hosts QEMU gives ivshmem
 * to that this driver supports.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>

#include "memchan.h"

#define MEMCHAN_IVSHMEM_BAR	2
/*
 * The liveness rule for another host (docs/architecture.md, "Liveness"): the failure timeout
 * plus two heartbeat periods, from the defaults the library uses too.
 */
#define MEMCHAN_STALE_MS \
	(MC_SYS_DEFAULT_FAILURE_TIMEOUT_MS + 2 * MC_SYS_DEFAULT_HEARTBEAT_MS)
/*
 * The global clock (docs/driver.md, "Global clock on ivshmem"): how far two guests' monotonic
 * clocks may drift apart per second, in ppm: NTP may slew each by up to 500 ppm (MAXFREQ).
 */
#define MC_SF_CLOCK_DRIFT_PPM	1000
/* a sample older than this many heartbeat periods no longer makes the clock VALID */
#define MC_SF_CLOCK_VALID_PERIODS	4

/* the ivshmem backend's state around the core's */
struct mc_sf_dev {
	struct memchan_dev md;
	void *fab;				/* BAR2: the soft-fabric file */
	resource_size_t fab_start;
	u64 fab_len;
	u64 node_area;
	u64 node_block_size;
	u64 stripes_off;			/* counter stripe 0 */
	u64 stripe_size;
	u64 data_off;
	u64 host_id;
	u64 owner;				/* OWNER word we stored */
	unsigned long next_heartbeat;
	struct delayed_work tick;		/* NOTIFY_COUNT poll, heartbeat, clock */
	/* global clock: the request in flight, the best sample, the GLOBAL_TIME_HI latch */
	spinlock_t clock_lock;			/* the sample and the latch (readers, the tick) */
	u32 clock_seq;				/* SEQ of our last request */
	u64 clock_req;				/* CLOCK_REQUEST in flight, 0 none */
	u64 clock_t1;				/* our time when we stored it */
	unsigned long clock_next;		/* jiffies: next request; in flight: give up */
	bool clock_have;			/* a sample: */
	u64 clock_s1, clock_s2, clock_s3;	/* our t1, the master's t2, our t3 (ns) */
	u16 clock_syncs;			/* samples taken (CLOCK_STATUS.SYNCS) */
	u32 clock_hi;				/* GLOBAL_TIME_HI as latched by GLOBAL_TIME_LO */
};

static struct mc_sf_dev *to_sf(struct memchan_dev *md)
{
	return container_of(md, struct mc_sf_dev, md);
}

static void *sf_node(struct memchan_dev *md, u32 node)
{
	struct mc_sf_dev *sf = to_sf(md);

	return sf->fab + sf->node_area + (u64)node * sf->node_block_size;
}

/* This kernel's HOST_ID: random, non-zero, the same for every device it binds. */
static u64 mc_sf_host_id(void)
{
	static u64 id;
	u64 v;

	if (!READ_ONCE(id)) {
		do {
			v = get_random_u64();
		} while (!v);
		cmpxchg64(&id, 0, v);
	}
	return READ_ONCE(id);
}

static u32 *sf_reg(struct memchan_dev *md, u32 node, u32 off)
{
	return sf_node(md, node) + off;
}

static u32 *sf_tx_pct(struct memchan_dev *md, u32 node, u32 page)
{
	return sf_node(md, node) + MC_SF_NODE_TX_PCT + (u64)page * MC_TX_PCT_ENTRY_SIZE;
}

static u64 *sf_rx_pct(struct memchan_dev *md, u32 node, u32 page)
{
	return sf_node(md, node) + mc_sf_rx_pct_offset(md->page_size, md->page_count) +
	       (u64)page * MC_RX_PCT_ENTRY_SIZE;
}

static u64 *sf_node_word(struct memchan_dev *md, u32 node, u32 off)
{
	return sf_node(md, node) + off;
}

static u64 *sf_heartbeat(struct memchan_dev *md, u32 node)
{
	struct mc_sf_dev *sf = to_sf(md);

	return sf->fab + sf->data_off + mc_sys_member_slot(md->page_size, node) +
		MC_SYS_MEMBER_HEARTBEAT;
}

static u32 sf_hdr32(struct memchan_dev *md, u32 off)
{
	return READ_ONCE(*(u32 *)(to_sf(md)->fab + off));
}

static u64 sf_hdr64(struct memchan_dev *md, u32 off)
{
	return READ_ONCE(*(u64 *)(to_sf(md)->fab + off));
}

/* ------------------------------------------------------------------------------------------ */
/*
 * Global clock. Guests share no clock, so each node's driver estimates the clock master's
 * CLOCK_MONOTONIC by a Cristian exchange through the file: at t1 (our clock) it stores a request
 * naming the master in its node block; the master's tick stores its time t2 and then the answer;
 * our tick sees the answer at t3. The master answered between t1 and t3, so its time at t3 lay in
 * t2 .. t2 + (t3 - t1); later the two clocks drift apart by at most MC_SF_CLOCK_DRIFT_PPM. The
 * master is the lowest node whose driver serves (CLOCK_SERVER = its OWNER's INCARNATION): a
 * host process on the file never serves, so it is never asked.
 */
static u32 mc_sf_clock_master(struct memchan_dev *md)
{
	u64 owner;
	u32 n;

	for (n = 0; n < md->max_nodes; n++) {
		owner = READ_ONCE(*sf_node_word(md, n, MC_SF_NODE_OWNER));
		if (owner && READ_ONCE(*sf_node_word(md, n, MC_SF_NODE_CLOCK_SERVER)) ==
			     mc_sf_owner_incarnation(owner))
			return n;
	}
	return MEMCHAN_NODE_NONE;
}

static u32 mc_sf_clock_request_master(u64 req)
{
	return (req & MC_SF_CLOCK_REQUEST_MASTER_MASK) >> MC_SF_CLOCK_REQUEST_MASTER_SHIFT;
}

/* the master: answer every request that names us and is not answered yet */
static void mc_sf_clock_serve(struct memchan_dev *md)
{
	u64 req;
	u32 n;

	for (n = 0; n < md->max_nodes; n++) {
		if (n == md->node_id)
			continue;
		/* pairs with the asker's release: its request is made before we answer it */
		req = smp_load_acquire(sf_node_word(md, n, MC_SF_NODE_CLOCK_REQUEST));
		if (!req || mc_sf_clock_request_master(req) != md->node_id ||
		    READ_ONCE(*sf_node_word(md, n, MC_SF_NODE_CLOCK_ANSWER)) == req)
			continue;
		WRITE_ONCE(*sf_node_word(md, n, MC_SF_NODE_CLOCK_ANSWER_TIME), ktime_get_ns());
		/* the time is in place before the answer names it */
		smp_store_release(sf_node_word(md, n, MC_SF_NODE_CLOCK_ANSWER), req);
	}
}

/* drift allowance of a sample taken age ns ago */
static u64 mc_sf_clock_drift(u64 age)
{
	return div_u64(age, 1000000 / MC_SF_CLOCK_DRIFT_PPM) + 1;
}

/* an asker: collect the answer to our request, or make the next request; md->lock held */
static void mc_sf_clock_ask(struct memchan_dev *md, u32 master)
{
	struct mc_sf_dev *sf = to_sf(md);
	u64 *answer_p = sf_node_word(md, md->node_id, MC_SF_NODE_CLOCK_ANSWER);
	u64 t2, t3, age, old_bound, new_bound;
	unsigned long flags;

	/* pairs with the master's release of the answer after its time */
	if (sf->clock_req && smp_load_acquire(answer_p) == sf->clock_req) {
		t2 = READ_ONCE(*sf_node_word(md, md->node_id, MC_SF_NODE_CLOCK_ANSWER_TIME));
		t3 = ktime_get_ns();
		smp_rmb();	/* the time belongs to the answer if the answer did not change */
		if (READ_ONCE(*answer_p) == sf->clock_req) {
			spin_lock_irqsave(&sf->clock_lock, flags);
			/*
			 * keep the sample whose bound is smaller now, but none older than two
			 * heartbeat periods: it must not age out of VALID (4 periods) while
			 * newer samples with longer round trips keep coming
			 */
			new_bound = t3 - sf->clock_t1;
			age = t3 - sf->clock_s3;
			old_bound = sf->clock_s3 - sf->clock_s1 + 2 * mc_sf_clock_drift(age);
			if (!sf->clock_have || new_bound <= old_bound ||
			    age >= 2ULL * max(memchan_heartbeat_ms, 1U) * NSEC_PER_MSEC) {
				sf->clock_s1 = sf->clock_t1;
				sf->clock_s2 = t2;
				sf->clock_s3 = t3;
				sf->clock_have = true;
			}
			sf->clock_syncs++;
			spin_unlock_irqrestore(&sf->clock_lock, flags);
		}
		sf->clock_req = 0;
	} else if (sf->clock_req && time_after_eq(jiffies, sf->clock_next)) {
		sf->clock_req = 0;	/* unanswered within a heartbeat period: ask again */
	}
	if (sf->clock_req || master == MEMCHAN_NODE_NONE || time_before(jiffies, sf->clock_next))
		return;
	sf->clock_seq = sf->clock_seq + 1 ? sf->clock_seq + 1 : 1;
	sf->clock_req = ((u64)master << MC_SF_CLOCK_REQUEST_MASTER_SHIFT) |
			((u64)sf->clock_seq << MC_SF_CLOCK_REQUEST_SEQ_SHIFT);
	sf->clock_t1 = ktime_get_ns();
	/* the cleared answer of a claim is visible before the master sees the request */
	smp_store_release(sf_node_word(md, md->node_id, MC_SF_NODE_CLOCK_REQUEST), sf->clock_req);
	sf->clock_next = jiffies + msecs_to_jiffies(max(memchan_heartbeat_ms, 1U));
}

static void mc_sf_clock_tick(struct memchan_dev *md)
{
	u32 master = mc_sf_clock_master(md);

	if (master == md->node_id)
		mc_sf_clock_serve(md);
	else
		mc_sf_clock_ask(md, master);
}

/* a new claim of our node block: serve from now on, and forget the old block's exchange */
static void mc_sf_clock_claim(struct memchan_dev *md)
{
	struct mc_sf_dev *sf = to_sf(md);
	unsigned long flags;

	WRITE_ONCE(*sf_node_word(md, md->node_id, MC_SF_NODE_CLOCK_REQUEST), 0);
	WRITE_ONCE(*sf_node_word(md, md->node_id, MC_SF_NODE_CLOCK_ANSWER), 0);
	/* a late answer to the block's previous owner cannot match our first request */
	sf->clock_seq = get_random_u32();
	sf->clock_req = 0;
	sf->clock_next = jiffies;
	spin_lock_irqsave(&sf->clock_lock, flags);
	sf->clock_have = false;
	spin_unlock_irqrestore(&sf->clock_lock, flags);
	smp_wmb();	/* the block is clean before anyone takes us for a master */
	WRITE_ONCE(*sf_node_word(md, md->node_id, MC_SF_NODE_CLOCK_SERVER), md->incarnation);
}

/* GLOBAL_TIME_LO (latching _HI), CLOCK_STATUS, CLOCK_BOUND, CLOCK_OFFSET as this node sees them */
static u32 mc_sf_clock_reg(struct memchan_dev *md, u32 off)
{
	struct mc_sf_dev *sf = to_sf(md);
	bool master = mc_sf_clock_master(md) == md->node_id;
	u64 now = ktime_get_ns(), time = 0, bound = U32_MAX, age, drift;
	s64 offset = 0;
	u32 status = 0, ret;
	unsigned long flags;

	spin_lock_irqsave(&sf->clock_lock, flags);
	if (master) {
		time = now;
		bound = 0;
		status = MC_CLOCK_STATUS_VALID_MASK | MC_CLOCK_STATUS_MASTER_MASK;
	} else if (sf->clock_have) {
		age = now - sf->clock_s3;
		if (age < (u64)MC_SF_CLOCK_VALID_PERIODS * max(memchan_heartbeat_ms, 1U) *
			  NSEC_PER_MSEC) {
			drift = mc_sf_clock_drift(age);
			/* never ahead of the master: the low end of the range, widened by drift */
			time = sf->clock_s2 + age - drift;
			bound = min_t(u64, sf->clock_s3 - sf->clock_s1 + 2 * drift, U32_MAX - 1);
			status = MC_CLOCK_STATUS_VALID_MASK;
		}
		/* our time at the master's answer: the middle of the exchange */
		offset = (s64)(sf->clock_s1 + (sf->clock_s3 - sf->clock_s1) / 2 - sf->clock_s2);
	}
	status |= ((u32)sf->clock_syncs << MC_CLOCK_STATUS_SYNCS_SHIFT) &
		  MC_CLOCK_STATUS_SYNCS_MASK;
	time &= GENMASK_ULL(55, 0);	/* GLOBAL_TIME is 56 bits wide */
	switch (off) {
	case MC_REG_GLOBAL_TIME_LO:
		sf->clock_hi = upper_32_bits(time);
		ret = lower_32_bits(time);
		break;
	case MC_REG_GLOBAL_TIME_HI:
		ret = sf->clock_hi;
		break;
	case MC_REG_CLOCK_STATUS:
		ret = status;
		break;
	case MC_REG_CLOCK_BOUND:
		ret = bound;
		break;
	default:	/* MC_REG_CLOCK_OFFSET */
		ret = (u32)clamp_t(s64, offset, S32_MIN, S32_MAX);
		break;
	}
	spin_unlock_irqrestore(&sf->clock_lock, flags);
	return ret;
}

static u32 mc_sf_reg_read(struct memchan_dev *md, u32 off)
{
	if (md->node_id == MEMCHAN_NODE_NONE)
		return 0;
	switch (off) {
	case MC_REG_CAPS:	/* the file's CAPS and what this driver provides itself */
		return READ_ONCE(*sf_reg(md, md->node_id, off)) | MC_SF_DRIVER_CAPS;
	case MC_REG_GLOBAL_TIME_LO:
	case MC_REG_GLOBAL_TIME_HI:
	case MC_REG_CLOCK_STATUS:
	case MC_REG_CLOCK_BOUND:
	case MC_REG_CLOCK_OFFSET:
		return mc_sf_clock_reg(md, off);
	}
	return READ_ONCE(*sf_reg(md, md->node_id, off));
}

static u32 mc_sf_tx_pct_read(struct memchan_dev *md, u32 page)
{
	if (md->node_id == MEMCHAN_NODE_NONE)
		return 0;
	return READ_ONCE(*sf_tx_pct(md, md->node_id, page));
}

static u64 mc_sf_rx_pct_read(struct memchan_dev *md, u32 page)
{
	if (md->node_id == MEMCHAN_NODE_NONE)
		return 0;
	return READ_ONCE(*sf_rx_pct(md, md->node_id, page));
}

/* One route per network page: no other node may route it elsewhere. */
static int mc_sf_tx_pct_write(struct memchan_dev *md, u32 page, u32 entry)
{
	const u32 route = MC_TX_PCT_DEST_KIND_MASK | MC_TX_PCT_DEST_MASK;
	u32 n, other;

	if (entry & MC_TX_PCT_TX_EN_MASK) {
		for (n = 0; n < md->max_nodes; n++) {
			if (n == md->node_id)
				continue;
			other = READ_ONCE(*sf_tx_pct(md, n, page));
			if ((other & MC_TX_PCT_TX_EN_MASK) && ((other ^ entry) & route))
				return -EBUSY;
		}
	}
	WRITE_ONCE(*sf_tx_pct(md, md->node_id, page), entry);
	return 0;
}

static int mc_sf_rx_pct_write(struct memchan_dev *md, u32 page, u64 entry)
{
	WRITE_ONCE(*sf_rx_pct(md, md->node_id, page), entry);
	return 0;
}

static void mc_sf_counters_clear(struct memchan_dev *md, u32 home, u32 page);

/* PCTs and page counters to zero: the counters' bases to the stripes' sums */
static void mc_sf_clear_pcts(struct memchan_dev *md, u32 node)
{
	u32 page;

	memset(sf_node(md, node) + MC_SF_NODE_TX_PCT, 0,
	       mc_sf_node_block_size(md->page_size, md->page_count) - MC_SF_NODE_TX_PCT);
	for (page = 0; page < md->page_count; page++)
		mc_sf_counters_clear(md, node, page);
}

static void mc_sf_release_node(struct memchan_dev *md)
{
	struct mc_sf_dev *sf = to_sf(md);

	u32 node = md->node_id;

	mc_sf_clear_pcts(md, node);
	WRITE_ONCE(*sf_reg(md, node, MC_REG_NODE_ID), 0);
	WRITE_ONCE(*sf_node_word(md, node, MC_SF_NODE_CLOCK_SERVER), 0);
	smp_mb();	/* the block is clean before OWNER lets another claim it */
	cmpxchg64(sf_node_word(md, node, MC_SF_NODE_OWNER), sf->owner, 0);
	md->node_id = MEMCHAN_NODE_NONE;
	sf->owner = 0;
}

static int mc_sf_set_node(struct memchan_dev *md, u32 node, u32 flags)
{
	struct mc_sf_dev *sf = to_sf(md);

	u64 *owner_p, old, new, inc, hb;
	u32 pid = task_tgid_nr(current);

	if (flags & MEMCHAN_NODE_AUTO)
		return -EOPNOTSUPP;	/* node IDs of a soft fabric are claimed, not assigned */
	if (node == MEMCHAN_NODE_NONE) {
		if (md->node_id != MEMCHAN_NODE_NONE)
			mc_sf_release_node(md);
		return 0;
	}

	owner_p = sf_node_word(md, node, MC_SF_NODE_OWNER);
	old = READ_ONCE(*owner_p);
	if (old) {
		if (!(flags & MEMCHAN_NODE_TAKEOVER)) {
			dev_info(&md->pdev->dev, "node ID %u is in use by pid %u\n",
				 node, mc_sf_owner_pid(old));
			return -EBUSY;
		}
		/* stale only when its heartbeat stopped for the failure timeout */
		hb = READ_ONCE(*sf_heartbeat(md, node));
		msleep(MEMCHAN_STALE_MS);
		if (READ_ONCE(*sf_heartbeat(md, node)) != hb || READ_ONCE(*owner_p) != old)
			return -EBUSY;
	}
	inc = mc_sf_next_incarnation(READ_ONCE(*sf_node_word(md, node, MC_SF_NODE_INCARNATION)));
	new = mc_sf_owner_word(inc, pid);
	if (cmpxchg64(owner_p, old, new) != old)
		return -EBUSY;
	/* the new block is ours: only now give up the old one */
	if (md->node_id != MEMCHAN_NODE_NONE)
		mc_sf_release_node(md);
	WRITE_ONCE(*sf_node_word(md, node, MC_SF_NODE_INCARNATION), inc);
	WRITE_ONCE(*sf_node_word(md, node, MC_SF_NODE_HOST_ID), sf->host_id);
	mc_sf_clear_pcts(md, node);
	WRITE_ONCE(*sf_reg(md, node, MC_REG_NODE_ID), node | MC_NODE_ID_VALID_MASK);
	sf->owner = new;
	md->node_id = node;
	md->incarnation = inc;
	md->notify_count = READ_ONCE(*sf_reg(md, node, MC_REG_NOTIFY_COUNT));
	mc_sf_clock_claim(md);
	sf->next_heartbeat = jiffies;
	schedule_delayed_work(&sf->tick, 1);
	return 0;
}

/*
 * A dead node, cleaned up by the cluster service: free its block if still that
 * claim. A claim of this kernel (HOST_ID ours: another device bound here holds
 * it) is left alone: only its member process died, and that device lets go of
 * the block itself when its node ID is released or it is unbound.
 */
static int mc_sf_release_dead(struct memchan_dev *md, u32 node, u64 incarnation)
{
	struct mc_sf_dev *sf = to_sf(md);
	u64 *owner_p = sf_node_word(md, node, MC_SF_NODE_OWNER);
	u64 old = READ_ONCE(*owner_p);

	if (!old || mc_sf_owner_incarnation(old) != incarnation)
		return 0;
	if (READ_ONCE(*sf_node_word(md, node, MC_SF_NODE_HOST_ID)) == sf->host_id)
		return 0;
	mc_sf_clear_pcts(md, node);
	WRITE_ONCE(*sf_reg(md, node, MC_REG_NODE_ID), 0);
	smp_mb();	/* the block is clean before OWNER lets another claim it */
	return cmpxchg64(owner_p, old, 0) == old;
}

static void sf_atomic_or(u32 *p, u32 bits)
{
	atomic_or(bits, (atomic_t *)p);
}

static u32 sf_atomic_inc(u32 *p)
{
	return atomic_inc_return((atomic_t *)p);
}

/* node n's receive interrupt of page as its adapter raises it: IRQ_STATUS, RX_NOTIFY_PAGE, count */
static void mc_sf_rx_interrupt(struct memchan_dev *md, u32 n, u32 page)
{
	u32 count;

	sf_atomic_or(sf_reg(md, n, MC_REG_IRQ_STATUS), MC_IRQ_STATUS_RX_NOTIFY_MASK);
	WRITE_ONCE(*sf_reg(md, n, MC_REG_RX_NOTIFY_PAGE), page);
	count = sf_atomic_inc(sf_reg(md, n, MC_REG_NOTIFY_COUNT));
	if (n == md->node_id)
		memchan_notify_arrived(md, count);
}

/* The emulated adapter's receive interrupt (docs/soft-fabric.md). */
static int mc_sf_notify(struct memchan_dev *md, u32 page, u32 *nodes)
{
	const u64 want = MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_IRQ_ON_RX_MASK;
	u32 n;

	smp_mb();	/* the caller's data stores before the notification */
	*nodes = 0;
	for (n = 0; n < md->max_nodes; n++) {
		if ((READ_ONCE(*sf_rx_pct(md, n, page)) & want) != want)
			continue;
		mc_sf_rx_interrupt(md, n, page);
		*nodes |= BIT(n);
	}
	return 0;
}

/*
 * Notifications that carry data (docs/soft-fabric.md): a receiver's queue is a
 * network page of the shared file (memchan_regs.h MC_NQ_*), run by the lock-free
 * protocol every producer and consumer of the fabric follows (the library's
 * SoftNotificationQueue): this driver is the receiver's adapter on the
 * producer's side and a consumer for the files that receive the page. Other
 * guests and host processes write the page too, so no loop here waits for them
 * without bound (MEMCHAN_NQ_TRIES).
 */
static void *sf_nq(struct memchan_dev *md, u32 page)
{
	struct mc_sf_dev *sf = to_sf(md);

	return sf->fab + sf->data_off + (u64)page * md->page_size;
}

#define SF_NQ_WORD(q, off)	((u64 *)((q) + (off)))

/* the slot of position pos: its index, and its SEQ word (ENTRY follows) */
static void *sf_nq_slot(struct memchan_dev *md, void *q, u64 pos, u32 *index)
{
	div_u64_rem(pos, (md->page_size - MC_NQ_HEADER_SIZE) / MC_NQ_SLOT_SIZE, index);
	return q + MC_NQ_HEADER_SIZE + (u64)*index * MC_NQ_SLOT_SIZE;
}

/* 1 enqueued, 0 the queue is full (counted in OVERFLOW), -EAGAIN TAIL never stayed put */
static int mc_sf_nq_offer(struct memchan_dev *md, u32 page, u64 entry)
{
	void *q = sf_nq(md, page), *slot;
	atomic64_t *tail = (atomic64_t *)SF_NQ_WORD(q, MC_NQ_TAIL);
	u64 t, seq, free;
	u32 i, tries;

	for (tries = 0; tries < MEMCHAN_NQ_TRIES; tries++) {
		t = atomic64_read_acquire(tail);
		slot = sf_nq_slot(md, q, t, &i);
		/* pairs with the release of SEQ by the producer or consumer that wrote it last */
		seq = smp_load_acquire(SF_NQ_WORD(slot, MC_NQ_SLOT_SEQ));
		free = t - i;
		if (seq == free) {
			if (atomic64_cmpxchg(tail, t, t + 1) != t)
				continue;	/* another producer claimed t */
			WRITE_ONCE(*SF_NQ_WORD(slot, MC_NQ_SLOT_ENTRY), entry);
			/* the entry is in place before SEQ says so */
			smp_store_release(SF_NQ_WORD(slot, MC_NQ_SLOT_SEQ), t + 1 - i);
			return 1;
		}
		if ((s64)seq < (s64)free) {
			/*
			 * the slot still holds the entry of one lap before: full. SEQ only
			 * grows, so TAIL is still t and the count is exact.
			 */
			atomic64_inc((atomic64_t *)SF_NQ_WORD(q, MC_NQ_OVERFLOW));
			return 0;
		}
		/* another producer claimed t and filled the slot: read TAIL again */
	}
	return -EAGAIN;
}

/* the oldest entry into *entry, or MEMCHAN_NQ_EMPTY; -EAGAIN HEAD never stayed put */
static int mc_sf_nq_take(struct memchan_dev *md, u32 page, u64 *entry)
{
	const u32 capacity = (md->page_size - MC_NQ_HEADER_SIZE) / MC_NQ_SLOT_SIZE;
	void *q = sf_nq(md, page), *slot;
	atomic64_t *head = (atomic64_t *)SF_NQ_WORD(q, MC_NQ_HEAD);
	u64 h, seq, holding;
	u32 i, tries;

	for (tries = 0; tries < MEMCHAN_NQ_TRIES; tries++) {
		h = atomic64_read_acquire(head);
		slot = sf_nq_slot(md, q, h, &i);
		/* pairs with the producer's release of SEQ after its entry */
		seq = smp_load_acquire(SF_NQ_WORD(slot, MC_NQ_SLOT_SEQ));
		holding = h + 1 - i;
		if (seq == holding) {
			if (atomic64_cmpxchg(head, h, h + 1) != h)
				continue;	/* another consumer took h */
			/* the defined bits only: all ones stays MEMCHAN_NQ_EMPTY */
			*entry = READ_ONCE(*SF_NQ_WORD(slot, MC_NQ_SLOT_ENTRY)) &
				 (MC_NQ_ENTRY_PAYLOAD_MASK | MC_NQ_ENTRY_SENDER_MASK);
			/* the entry is read before the slot is free for the position a lap later */
			smp_store_release(SF_NQ_WORD(slot, MC_NQ_SLOT_SEQ), h + capacity - i);
			return 0;
		}
		if ((s64)seq < (s64)holding) {
			/* not claimed, or claimed and not yet written */
			*entry = MEMCHAN_NQ_EMPTY;
			return 0;
		}
	}
	return -EAGAIN;
}

/* What node n's adapter does with a notification that carries data: RX PCT, queue, interrupt */
static int mc_sf_notify_data(struct memchan_dev *md, struct memchan_notify_data *n)
{
	u64 rx = READ_ONCE(*sf_rx_pct(md, n->node, n->page));
	u64 entry = (((u64)md->node_id << MC_NQ_ENTRY_SENDER_SHIFT) & MC_NQ_ENTRY_SENDER_MASK) |
		    ((n->payload << MC_NQ_ENTRY_PAYLOAD_SHIFT) & MC_NQ_ENTRY_PAYLOAD_MASK);
	int ret;

	if (!(rx & MC_RX_PCT_RX_EN_MASK))
		return -EACCES;
	smp_mb();	/* the caller's data stores before the notification */
	ret = mc_sf_nq_offer(md, n->page, entry);
	if (ret < 0)
		return ret;
	n->queued = ret;
	if (rx & MC_RX_PCT_IRQ_ON_RX_MASK)
		mc_sf_rx_interrupt(md, n->node, n->page);
	return 0;
}

static int mc_sf_notify_queue(struct memchan_dev *md, struct memchan_notify_queue *q)
{
	void *nq = sf_nq(md, q->page);
	u64 head;
	int ret;

	q->entry = MEMCHAN_NQ_EMPTY;
	if (q->flags & MEMCHAN_NQ_TAKE) {
		ret = mc_sf_nq_take(md, q->page, &q->entry);
		if (ret)
			return ret;
	}
	q->overflow = atomic64_read((atomic64_t *)SF_NQ_WORD(nq, MC_NQ_OVERFLOW));
	head = atomic64_read((atomic64_t *)SF_NQ_WORD(nq, MC_NQ_HEAD));
	q->pending = atomic64_read((atomic64_t *)SF_NQ_WORD(nq, MC_NQ_TAIL)) - head;
	return 0;
}

static u32 *sf_page_counter(struct memchan_dev *md, u32 node, u32 page, u32 counter)
{
	return sf_node(md, node) + mc_sf_page_counters_offset(md->page_size, md->page_count) +
	       (u64)page * MC_SF_PAGE_COUNTER_SIZE + counter;
}

static u32 mc_sf_base_of(u32 counter)
{
	return counter == MC_SF_PAGE_COUNTER_READS ? MC_SF_PAGE_COUNTER_READS_BASE :
						     MC_SF_PAGE_COUNTER_ATOMICS_BASE;
}

/*
 * The counter stripes' counts of a page (layout version 3): each stripe has one
 * writer, a soft-fabric thread counting with plain stores. This driver has no
 * stripe: it counts in the home's word with an atomic add.
 */
static u32 mc_sf_stripe_sum(struct memchan_dev *md, u32 page, u32 counter)
{
	struct mc_sf_dev *sf = to_sf(md);
	u32 s, sum = 0;

	for (s = 0; s < MC_SF_COUNTER_STRIPES; s++)
		sum += READ_ONCE(*(u32 *)(sf->fab + sf->stripes_off + s * sf->stripe_size +
					  (u64)page * MC_SF_STRIPE_ENTRY_SIZE + counter));
	return sum;
}

/* A home's count of a page: its word + the stripes' counts - its base, modulo 2^32. */
static u32 mc_sf_count(struct memchan_dev *md, u32 home, u32 page, u32 counter, u32 word)
{
	return word + mc_sf_stripe_sum(md, page, counter) -
	       READ_ONCE(*sf_page_counter(md, home, page, mc_sf_base_of(counter)));
}

/* The home clears its counters of a page: the stripes' sum becomes its base. */
static void mc_sf_counters_clear(struct memchan_dev *md, u32 home, u32 page)
{
	u32 c[] = { MC_SF_PAGE_COUNTER_READS, MC_SF_PAGE_COUNTER_ATOMICS };
	u32 i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		WRITE_ONCE(*sf_page_counter(md, home, page, mc_sf_base_of(c[i])),
			   mc_sf_stripe_sum(md, page, c[i]));
		WRITE_ONCE(*sf_page_counter(md, home, page, c[i]), 0);
	}
}

/* The home refuses a remote operation: counted where its adapter would count it. */
static int mc_sf_refuse(struct memchan_dev *md, u32 home)
{
	sf_atomic_inc(sf_reg(md, home, MC_REG_REMOTE_REFUSED));
	return -EACCES;
}

/*
 * The home counts an operation it served; at the threshold a COUNT_IRQ page
 * notifies it. Every requester counts a COUNT_IRQ page in the home's word with
 * an atomic add (the stripes' counts of it stand still), so exactly one sees
 * the count equal the threshold.
 */
static void mc_sf_served(struct memchan_dev *md, u32 home, u32 page, u32 counter)
{
	u32 n = sf_atomic_inc(sf_page_counter(md, home, page, counter));
	u32 threshold = READ_ONCE(*sf_reg(md, home, MC_REG_PAGE_CNT_THRESHOLD));
	u32 count;

	if (!threshold ||
	    !(READ_ONCE(*sf_rx_pct(md, home, page)) & MC_RX_PCT_COUNT_IRQ_MASK) ||
	    mc_sf_count(md, home, page, counter, n) != threshold)
		return;
	WRITE_ONCE(*sf_reg(md, home, MC_REG_PAGE_HOT), page);
	sf_atomic_or(sf_reg(md, home, MC_REG_IRQ_STATUS), MC_IRQ_STATUS_PAGE_HOT_MASK);
	count = sf_atomic_inc(sf_reg(md, home, MC_REG_NOTIFY_COUNT));
	if (home == md->node_id)
		memchan_notify_arrived(md, count);
}

/*
 * Remote read and atomics on the soft fabric (docs/soft-fabric.md): a network page
 * is one page of the shared file, so a read is a load of it and an atomic is a CPU
 * atomic on it, serialized by the CPU against every other atomic on the word, from
 * any guest or host process. What the home's adapter does around the access, the
 * requester's driver does in the home's node block: check its RX PCT, count.
 */
static int mc_sf_remote(struct memchan_dev *md, struct memchan_remote *r)
{
	const u64 any = MC_RX_PCT_READ_EN_MASK | MC_RX_PCT_ATOMIC_EN_MASK;
	u32 shift = ilog2(md->page_size);
	u32 page = r->addr >> shift, last;
	atomic64_t *word;
	u64 need;

	if (r->op == MEMCHAN_REMOTE_CHECK) {
		last = (r->addr + r->operand - 1) >> shift;
		for (; page <= last; page++)
			if (!(READ_ONCE(*sf_rx_pct(md, r->home, page)) & any))
				return mc_sf_refuse(md, r->home);
		return 0;
	}
	need = r->op == MEMCHAN_REMOTE_READ ? MC_RX_PCT_READ_EN_MASK : MC_RX_PCT_ATOMIC_EN_MASK;
	if ((r->addr & (sizeof(u64) - 1)) || !(READ_ONCE(*sf_rx_pct(md, r->home, page)) & need))
		return mc_sf_refuse(md, r->home);
	word = to_sf(md)->fab + to_sf(md)->data_off + r->addr;
	switch (r->op) {
	case MEMCHAN_REMOTE_READ:
		smp_mb();	/* after the caller's earlier stores and loads, as an atomic */
		r->result = atomic64_read(word);
		smp_mb();	/* acquire: later accesses see what the home stored before it */
		mc_sf_served(md, r->home, page, MC_SF_PAGE_COUNTER_READS);
		return 0;
	case MEMCHAN_REMOTE_FETCH_ADD:
		r->result = atomic64_fetch_add(r->operand, word);
		break;
	case MEMCHAN_REMOTE_SWAP:
		r->result = atomic64_xchg(word, r->operand);
		break;
	default:
		r->result = atomic64_cmpxchg(word, r->compare, r->operand);
	}
	mc_sf_served(md, r->home, page, MC_SF_PAGE_COUNTER_ATOMICS);
	return 0;
}

/*
 * Copies as the remote reads it stands for: every aligned 8-byte word in one
 * load, so a word its writer stores at once is never seen torn (memcpy may
 * move it in pieces); bytes before the first and after the last aligned word.
 */
static void mc_sf_copy_words(u8 *dst, const u8 *src, u64 len)
{
	u64 word;

	for (; len && !IS_ALIGNED((unsigned long)src, 8); len--)
		*dst++ = READ_ONCE(*src++);
	for (; len >= 8; len -= 8, src += 8, dst += 8) {
		word = READ_ONCE(*(const u64 *)src);
		memcpy(dst, &word, 8);
	}
	for (; len; len--)
		*dst++ = READ_ONCE(*src++);
}

/* A remote copy: READ_EN on every page first, then one read served per page. */
static int mc_sf_remote_copy(struct memchan_dev *md, struct memchan_remote *r, void *dst)
{
	u32 shift = ilog2(md->page_size);
	u32 first = r->addr >> shift, last = (r->addr + r->operand - 1) >> shift, page;

	for (page = first; page <= last; page++)
		if (!(READ_ONCE(*sf_rx_pct(md, r->home, page)) & MC_RX_PCT_READ_EN_MASK))
			return mc_sf_refuse(md, r->home);
	smp_mb();	/* after the caller's earlier accesses, as a read */
	mc_sf_copy_words(dst, to_sf(md)->fab + to_sf(md)->data_off + r->addr, r->operand);
	smp_mb();	/* acquire */
	for (page = first; page <= last; page++)
		mc_sf_served(md, r->home, page, MC_SF_PAGE_COUNTER_READS);
	return 0;
}

static int mc_sf_page_counters(struct memchan_dev *md, struct memchan_page_counters *pc)
{
	u32 node = md->node_id;
	u32 *status = sf_reg(md, node, MC_REG_IRQ_STATUS);

	if (pc->flags & MEMCHAN_PAGE_SET_THRESHOLD)
		WRITE_ONCE(*sf_reg(md, node, MC_REG_PAGE_CNT_THRESHOLD), pc->threshold);
	pc->threshold = READ_ONCE(*sf_reg(md, node, MC_REG_PAGE_CNT_THRESHOLD));
	pc->reads = mc_sf_count(md, node, pc->page, MC_SF_PAGE_COUNTER_READS,
				READ_ONCE(*sf_page_counter(md, node, pc->page,
							   MC_SF_PAGE_COUNTER_READS)));
	pc->atomics = mc_sf_count(md, node, pc->page, MC_SF_PAGE_COUNTER_ATOMICS,
				  READ_ONCE(*sf_page_counter(md, node, pc->page,
							     MC_SF_PAGE_COUNTER_ATOMICS)));
	pc->hot = MEMCHAN_PAGE_NONE;
	/* write-1-to-clear on hardware; here clearing the one bit atomically is the same */
	if ((pc->flags & MEMCHAN_PAGE_TAKE_HOT) &&
	    (atomic_fetch_andnot(MC_IRQ_STATUS_PAGE_HOT_MASK, (atomic_t *)status) &
	     MC_IRQ_STATUS_PAGE_HOT_MASK))
		pc->hot = READ_ONCE(*sf_reg(md, node, MC_REG_PAGE_HOT));
	return 0;
}

static void mc_sf_page_counters_clear(struct memchan_dev *md, u32 page)
{
	mc_sf_counters_clear(md, md->node_id, page);
}

/* Stores are in the shared page once they leave the store buffer. */
static int mc_sf_barrier(struct memchan_dev *md, u64 timeout_ns, u32 *outstanding)
{
	smp_mb();	/* the caller's stores to the shared pages are visible */
	*outstanding = 0;
	if (md->node_id != MEMCHAN_NODE_NONE) {
		WRITE_ONCE(*sf_reg(md, md->node_id, MC_REG_BARRIER), MC_BARRIER_DONE_MASK);
		*outstanding = READ_ONCE(*sf_reg(md, md->node_id, MC_REG_ACK_OUTSTANDING));
	}
	return 0;
}

static int mc_sf_loopback(struct memchan_dev *md, u32 mode)
{
	return mode ? -EOPNOTSUPP : 0;
}

static unsigned long mc_sf_pfn(struct memchan_dev *md, u32 page, u32 off)
{
	struct mc_sf_dev *sf = to_sf(md);

	return (sf->fab_start + sf->data_off + (u64)page * md->page_size + off) >> PAGE_SHIFT;
}

static pgprot_t mc_sf_prot(pgprot_t prot)
{
	return prot;	/* BAR2 is RAM on the host side: cached, as memremap'ed */
}

static void mc_sf_tick(struct work_struct *work)
{
	struct mc_sf_dev *sf = container_of(to_delayed_work(work), struct mc_sf_dev, tick);
	struct memchan_dev *md = &sf->md;
	u32 count;

	mutex_lock(&md->lock);
	if (md->removed || md->node_id == MEMCHAN_NODE_NONE) {
		mutex_unlock(&md->lock);
		return;
	}
	count = READ_ONCE(*sf_reg(md, md->node_id, MC_REG_NOTIFY_COUNT));
	if (count != md->notify_count)
		memchan_notify_arrived(md, count);
	if (time_after_eq(jiffies, sf->next_heartbeat)) {
		atomic64_inc((atomic64_t *)sf_heartbeat(md, md->node_id));
		sf->next_heartbeat = jiffies + msecs_to_jiffies(max(memchan_heartbeat_ms, 1U));
	}
	mc_sf_clock_tick(md);
	schedule_delayed_work(&sf->tick, max(msecs_to_jiffies(memchan_poll_ms), 1UL));
	mutex_unlock(&md->lock);
}

static int mc_sf_validate(struct memchan_dev *md, u64 len)
{
	struct mc_sf_dev *sf = to_sf(md);
	struct device *dev = &md->pdev->dev;
	u32 ps, pc, nodes, state;
	const char *problem;
	u64 nbs, data;
	int waited;

	if (sf_hdr64(md, MC_SF_HDR_MAGIC) != MC_SF_MAGIC) {
		dev_info(dev, "BAR2 is not a memchan soft fabric (MAGIC), not binding\n");
		return -ENODEV;
	}
	if (sf_hdr32(md, MC_SF_HDR_VERSION) != MC_SF_VERSION) {
		dev_err(dev, "soft fabric VERSION %u, want %u\n",
			sf_hdr32(md, MC_SF_HDR_VERSION), MC_SF_VERSION);
		return -EINVAL;
	}
	/* acquire: the header the creator wrote before READY */
	for (waited = 0; (state = smp_load_acquire((u32 *)(sf->fab + MC_SF_HDR_STATE))) ==
	     MC_SF_STATE_INITIALIZING && waited < 2000; waited += 50)
		msleep(50);
	if (state != MC_SF_STATE_READY) {
		dev_err(dev, "soft fabric STATE %u is not ready\n", state);
		return -EINVAL;
	}
	ps = sf_hdr32(md, MC_SF_HDR_PAGE_SIZE);
	pc = sf_hdr32(md, MC_SF_HDR_PAGE_COUNT);
	nodes = sf_hdr32(md, MC_SF_HDR_MAX_NODES);
	if (sf_hdr32(md, MC_SF_HDR_HEADER_SIZE) != MC_SF_HEADER_SIZE) {
		dev_err(dev, "soft fabric HEADER_SIZE wrong\n");
		return -EINVAL;
	}
	if (sf_hdr64(md, MC_SF_HDR_FILE_SIZE) != len) {
		dev_err(dev, "soft fabric FILE_SIZE %llu, BAR2 is %llu bytes\n",
			sf_hdr64(md, MC_SF_HDR_FILE_SIZE), len);
		return -EINVAL;
	}
	/* the rules of regmap/memchan.toml, shared with mcfab-create and Java */
	problem = mc_sf_geometry_problem(len, ps, nodes);
	if (problem) {
		dev_err(dev, "soft fabric %s invalid (%llu bytes, %u-byte pages, %u nodes)\n",
			problem, len, ps, nodes);
		return -EINVAL;
	}
	if (sf_hdr32(md, MC_SF_HDR_SYSTEM_PAGES) != MC_SYS_PAGES) {
		dev_err(dev, "soft fabric SYSTEM_PAGES %u, want %u\n",
			sf_hdr32(md, MC_SF_HDR_SYSTEM_PAGES), MC_SYS_PAGES);
		return -EINVAL;
	}
	if (pc <= MC_SYS_PAGES || pc > MC_MAX_PAGES) {
		dev_err(dev, "soft fabric PAGE_COUNT %u\n", pc);
		return -EINVAL;
	}
	if (sf_hdr64(md, MC_SF_HDR_NODE_AREA_OFFSET) != MC_SF_HEADER_SIZE) {
		dev_err(dev, "soft fabric NODE_AREA_OFFSET wrong\n");
		return -EINVAL;
	}
	nbs = mc_sf_node_block_size(ps, pc);
	data = mc_sf_data_offset(ps, pc, nodes);
	if (sf_hdr64(md, MC_SF_HDR_NODE_BLOCK_SIZE) != nbs) {
		dev_err(dev, "soft fabric NODE_BLOCK_SIZE %llu, want %llu\n",
			sf_hdr64(md, MC_SF_HDR_NODE_BLOCK_SIZE), nbs);
		return -EINVAL;
	}
	if (sf_hdr64(md, MC_SF_HDR_DATA_OFFSET) != data) {
		dev_err(dev, "soft fabric DATA_OFFSET %llu, want %llu\n",
			sf_hdr64(md, MC_SF_HDR_DATA_OFFSET), data);
		return -EINVAL;
	}
	if (!mc_sf_fits(len, ps, pc, nodes)) {
		dev_err(dev, "soft fabric data pages do not fit\n");
		return -EINVAL;
	}
	md->page_size = ps;
	md->page_count = pc;
	md->max_nodes = nodes;
	sf->node_area = MC_SF_HEADER_SIZE;
	sf->node_block_size = nbs;
	sf->stripes_off = mc_sf_stripes_offset(ps, pc, nodes);
	sf->stripe_size = mc_sf_stripe_size(ps, pc);
	sf->data_off = data;
	return 0;
}

static int mc_sf_probe(struct memchan_dev *md)
{
	struct mc_sf_dev *sf = to_sf(md);
	struct pci_dev *pdev = md->pdev;
	struct device *dev = &pdev->dev;
	u64 len = pci_resource_len(pdev, MEMCHAN_IVSHMEM_BAR);
	int ret;

	BUILD_BUG_ON(IS_ENABLED(CONFIG_CPU_BIG_ENDIAN));
	if (!(pci_resource_flags(pdev, MEMCHAN_IVSHMEM_BAR) & IORESOURCE_MEM) ||
	    len < PAGE_SIZE)
		return -ENODEV;
	ret = pci_request_region(pdev, MEMCHAN_IVSHMEM_BAR, MEMCHAN_NAME);
	if (ret)
		return ret;
	sf->fab_start = pci_resource_start(pdev, MEMCHAN_IVSHMEM_BAR);
	sf->fab_len = len;
	sf->fab = devm_memremap(dev, sf->fab_start, len, MEMREMAP_WB);
	if (IS_ERR(sf->fab))
		return PTR_ERR(sf->fab);
	/* validation only reads: a file that fails it is left untouched */
	ret = mc_sf_validate(md, len);
	if (ret)
		return ret;
	md->regmap_version = MC_REG_VERSION_RESET;
	/*
	 * What a node block's CAPS says at creation (regmap soft_fabric.init_caps): the
	 * soft fabric serves remote reads (a load of the home's page in the shared file)
	 * and atomics (a CPU atomic on it) by itself; this driver programs READ_EN /
	 * ATOMIC_EN into its RX PCT.
	 */
	md->caps = MC_SF_INIT_CAPS | MC_SF_DRIVER_CAPS;
	md->ctl_start = sf->fab_start;
	md->ctl_len = len;
	sf->host_id = mc_sf_host_id();
	INIT_DELAYED_WORK(&sf->tick, mc_sf_tick);
	spin_lock_init(&sf->clock_lock);
	return 0;
}

static void mc_sf_remove(struct memchan_dev *md)
{
	cancel_delayed_work_sync(&to_sf(md)->tick);
	mutex_lock(&md->lock);
	if (md->node_id != MEMCHAN_NODE_NONE)
		mc_sf_release_node(md);
	mutex_unlock(&md->lock);
}

static ssize_t mc_sf_link_state(struct memchan_dev *md, char *buf)
{
	return sysfs_emit(buf, "soft\n");	/* there is no link */
}

static struct memchan_dev *mc_sf_alloc(void)
{
	struct mc_sf_dev *sf = kzalloc(sizeof(*sf), GFP_KERNEL);

	return sf ? &sf->md : NULL;
}

static void mc_sf_free(struct memchan_dev *md)
{
	kfree(to_sf(md));
}

const struct memchan_backend memchan_ivshmem_backend = {
	.kind = MEMCHAN_BACKEND_IVSHMEM,
	.name = "ivshmem",
	.alloc = mc_sf_alloc,
	.free = mc_sf_free,
	.probe = mc_sf_probe,
	.remove = mc_sf_remove,
	.link_state = mc_sf_link_state,
	.reg_read = mc_sf_reg_read,
	.tx_pct_read = mc_sf_tx_pct_read,
	.rx_pct_read = mc_sf_rx_pct_read,
	.tx_pct_write = mc_sf_tx_pct_write,
	.rx_pct_write = mc_sf_rx_pct_write,
	.set_node = mc_sf_set_node,
	.ack_sweep = mc_sf_barrier,
	.notify = mc_sf_notify,
	.notify_data = mc_sf_notify_data,
	.notify_queue = mc_sf_notify_queue,
	.loopback = mc_sf_loopback,
	.release_node = mc_sf_release_dead,
	.remote = mc_sf_remote,
	.remote_copy = mc_sf_remote_copy,
	.page_counters = mc_sf_page_counters,
	.page_counters_clear = mc_sf_page_counters_clear,
	.tx_pfn = mc_sf_pfn,
	.rx_pfn = mc_sf_pfn,
	.tx_prot = mc_sf_prot,
	.rx_prot = mc_sf_prot,
	.ctl_prot = mc_sf_prot,
};
