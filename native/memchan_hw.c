// SPDX-License-Identifier: GPL-2.0
/*
 * memchan: hardware backend for the FPGA adapter (MC_PCI_VENDOR:MC_PCI_DEVICE).
 *
 * BAR0: registers (0x000-0xfff), TX PCT (MC_TX_PCT_BASE, u32 per page),
 * RX PCT (MC_RX_PCT_BASE, u64 per page as lo/hi words). BAR2: the transmit
 * window, PAGE_COUNT * PAGE_SIZE bytes, mapped write-combining into users.
 * The receive area is one DMA-coherent buffer of PAGE_COUNT * PAGE_SIZE bytes,
 * allocated at probe; network page p is at byte p * PAGE_SIZE of it, its bus
 * address in RX PCT REMAP_ADDR (receive-side remapping). Users map it with
 * dma_mmap_coherent(). It is freed at remove, after the adapter is disabled
 * (a packet that passed the PCT lookup may still be in flight) and after the
 * core has zapped every user mapping.
 *
 * Interrupts: MSI-X, else MSI, else INTx, else polling (irq_mode). Polling is
 * a delayed work reading IRQ_STATUS every poll_ms; a host whose bridge gives
 * no usable interrupt (and the co-simulated board of firmware/cosim, whose
 * QEMU proxy device cannot deliver one) still gets every notification.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/iopoll.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "memchan.h"

#define MEMCHAN_BAR_REGS	0
#define MEMCHAN_BAR_WINDOW	2

/* the hardware backend's state around the core's */
struct mc_hw_dev {
	struct memchan_dev md;
	void __iomem *regs;
	void __iomem *win;			/* BAR2 (write-combining): MEMCHAN_REMOTE */
	resource_size_t win_start;
	void *rx_cpu;				/* receive area */
	dma_addr_t rx_dma;
	size_t rx_size;
	enum memchan_irq_kind irq_kind;
	u32 irq_mask;				/* IRQ_MASK as written */
	struct delayed_work poll;		/* irq_mode poll */
};

static struct mc_hw_dev *to_hw(struct memchan_dev *md)
{
	return container_of(md, struct mc_hw_dev, md);
}

static char *memchan_irq_mode = "auto";
module_param_named(irq_mode, memchan_irq_mode, charp, 0444);
MODULE_PARM_DESC(irq_mode,
		 "hardware backend: interrupt delivery: auto (MSI-X, else MSI, else INTx, else poll), msix, msi, intx or poll (IRQ_STATUS read every poll_ms)");

static unsigned int memchan_node_auto_ms = 30000;
module_param_named(node_auto_ms, memchan_node_auto_ms, uint, 0644);
MODULE_PARM_DESC(node_auto_ms,
		 "hardware backend: how long MEMCHAN_SET_NODE with MEMCHAN_NODE_AUTO waits for the link to assign the node ID (default 30000)");

static u32 mc_hw_reg_read(struct memchan_dev *md, u32 off)
{
	return readl(to_hw(md)->regs + off);
}

static void mc_hw_reg_write(struct memchan_dev *md, u32 off, u32 v)
{
	writel(v, to_hw(md)->regs + off);
}

static u32 mc_hw_tx_pct_read(struct memchan_dev *md, u32 page)
{
	return readl(to_hw(md)->regs + MC_TX_PCT_BASE + page * MC_TX_PCT_ENTRY_SIZE);
}

static u64 mc_hw_rx_pct_read(struct memchan_dev *md, u32 page)
{
	void __iomem *e = to_hw(md)->regs + MC_RX_PCT_BASE + page * MC_RX_PCT_ENTRY_SIZE;

	return readl(e) | (u64)readl(e + 4) << 32;
}

static int mc_hw_tx_pct_write(struct memchan_dev *md, u32 page, u32 entry)
{
	void __iomem *e = to_hw(md)->regs + MC_TX_PCT_BASE + page * MC_TX_PCT_ENTRY_SIZE;

	writel(entry, e);
	readl(e);	/* flush the posted write before the page is mapped */
	return 0;
}

/*
 * One route per network page across nodes: this adapter holds only its own PCT, so a raw write
 * is checked against the routes the region directory records, in this node's copy of the
 * system pages (received while the node has an ID): a page of an allocated entry that some node
 * transmits on (ROUTED) with another destination is refused. Grants are not checked here: the
 * library records the route in the directory under the cluster lock before it asks for them.
 */
static int mc_hw_tx_route_check(struct memchan_dev *md, u32 page, u32 entry)
{
	const u32 route = MC_SYS_REGION_ROUTE_DEST_KIND_MASK | MC_SYS_REGION_ROUTE_DEST_MASK;
	u32 i, n = mc_sys_region_capacity(md->page_size);

	for (i = 0; i < n; i++) {
		const u8 *e = to_hw(md)->rx_cpu + mc_sys_region_entry(md->page_size, i);
		u32 first = READ_ONCE(*(const u32 *)(e + MC_SYS_REGION_FIRST_PAGE));
		u32 count = READ_ONCE(*(const u32 *)(e + MC_SYS_REGION_PAGE_COUNT));
		u32 r = READ_ONCE(*(const u32 *)(e + MC_SYS_REGION_ROUTE));

		if (READ_ONCE(*(const u32 *)(e + MC_SYS_REGION_STATE)) !=
		    MC_SYS_REGION_STATE_ALLOCATED || !(r & MC_SYS_REGION_ROUTE_ROUTED_MASK) ||
		    page < first || page - first >= count)
			continue;
		if ((r & route) != (entry & route))
			return -EBUSY;
	}
	return 0;
}

static int mc_hw_rx_pct_write(struct memchan_dev *md, u32 page, u64 entry)
{
	struct mc_hw_dev *hw = to_hw(md);
	void __iomem *e = hw->regs + MC_RX_PCT_BASE + page * MC_RX_PCT_ENTRY_SIZE;
	dma_addr_t bus = hw->rx_dma + (dma_addr_t)page * md->page_size;
	/* what lets the adapter touch the page: writes, remote reads, atomics */
	const u64 access = MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_READ_EN_MASK | MC_RX_PCT_ATOMIC_EN_MASK;

	if (entry & access)
		entry |= MC_RX_PCT_REMAP_EN_MASK | (bus & MC_RX_PCT_REMAP_ADDR_MASK);
	/* the high word (address) first, then the low word enables the entry */
	writel(lower_32_bits(entry) & ~(u32)access, e);
	writel(upper_32_bits(entry), e + 4);
	writel(lower_32_bits(entry), e);
	readl(e);
	return 0;
}

/*
 * Close every route. Whole 32-bit stores: memset_io() may store bytes (x86: rep stosb),
 * four times the BAR traffic, and the register block takes whole words only.
 */
static void mc_hw_clear_pcts(struct mc_hw_dev *hw)
{
	u32 p;

	for (p = 0; p < hw->md.page_count; p++) {
		writel(0, hw->regs + MC_TX_PCT_BASE + p * MC_TX_PCT_ENTRY_SIZE);
		writel(0, hw->regs + MC_RX_PCT_BASE + p * MC_RX_PCT_ENTRY_SIZE);
		writel(0, hw->regs + MC_RX_PCT_BASE + p * MC_RX_PCT_ENTRY_SIZE + 4);
	}
}

/*
 * NODE_ID.AUTO: the link assigns 0 or 1 once both ends announce AUTO (or the
 * peer has an ID). Wait for it, bounded; on failure put back the ID we had, so
 * a refused call changes nothing.
 */
static int mc_hw_set_node_auto(struct memchan_dev *md)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(memchan_node_auto_ms);
	u32 old = mc_hw_reg_read(md, MC_REG_NODE_ID);
	u32 v;

	mc_hw_reg_write(md, MC_REG_NODE_ID, MC_NODE_ID_AUTO_MASK);
	while (!((v = mc_hw_reg_read(md, MC_REG_NODE_ID)) & MC_NODE_ID_VALID_MASK)) {
		/* a register read per 20 ms: BAR reads are slow on some hosts */
		if (time_after(jiffies, deadline) || msleep_interruptible(20)) {
			mc_hw_reg_write(md, MC_REG_NODE_ID, old);
			if (signal_pending(current))
				return -EINTR;
			dev_info(&md->pdev->dev, "no node ID from the link within %u ms: no peer announcing one\n",
				 memchan_node_auto_ms);
			return -ETIMEDOUT;
		}
	}
	md->node_id = (v & MC_NODE_ID_ID_MASK) >> MC_NODE_ID_ID_SHIFT;
	md->node_auto = true;
	md->incarnation++;
	dev_info(&md->pdev->dev, "node ID %u assigned by the link\n", md->node_id);
	return 0;
}

static int mc_hw_set_node(struct memchan_dev *md, u32 node, u32 flags)
{
	if (flags & MEMCHAN_NODE_TAKEOVER)
		return -EINVAL;	/* takeover is a soft-fabric notion */
	if (flags & MEMCHAN_NODE_AUTO)
		return mc_hw_set_node_auto(md);
	mc_hw_reg_write(md, MC_REG_NODE_ID,
			node == MEMCHAN_NODE_NONE ? 0 : node | MC_NODE_ID_VALID_MASK);
	md->node_id = node;
	md->node_auto = false;
	if (node != MEMCHAN_NODE_NONE)
		md->incarnation++;
	return 0;
}

static int mc_hw_barrier(struct memchan_dev *md, u64 timeout_ns, u32 *outstanding)
{
	u32 v;
	int ret;

	mc_hw_reg_write(md, MC_REG_BARRIER, MC_BARRIER_START_MASK);
	ret = readl_poll_timeout(to_hw(md)->regs + MC_REG_BARRIER, v, v & MC_BARRIER_DONE_MASK,
				 10, div_u64(timeout_ns, NSEC_PER_USEC) + 1);
	*outstanding = mc_hw_reg_read(md, MC_REG_ACK_OUTSTANDING);
	return ret;
}

/*
 * The adapter's page access counters through their index/data pair (PAGE_CNT_SEL), under
 * md->lock like every other register sequence. PAGE_HOT is not among the interrupt causes
 * the driver takes (IRQ_MASK): it stays set until MEMCHAN_PAGE_TAKE_HOT clears it.
 */
static int mc_hw_page_counters(struct memchan_dev *md, struct memchan_page_counters *pc)
{
	if (pc->flags & MEMCHAN_PAGE_SET_THRESHOLD)
		mc_hw_reg_write(md, MC_REG_PAGE_CNT_THRESHOLD, pc->threshold);
	pc->threshold = mc_hw_reg_read(md, MC_REG_PAGE_CNT_THRESHOLD);
	mc_hw_reg_write(md, MC_REG_PAGE_CNT_SEL, pc->page);
	pc->reads = mc_hw_reg_read(md, MC_REG_PAGE_CNT_READS);
	pc->atomics = mc_hw_reg_read(md, MC_REG_PAGE_CNT_ATOMICS);
	pc->hot = MEMCHAN_PAGE_NONE;
	if ((pc->flags & MEMCHAN_PAGE_TAKE_HOT) &&
	    (mc_hw_reg_read(md, MC_REG_IRQ_STATUS) & MC_IRQ_STATUS_PAGE_HOT_MASK)) {
		pc->hot = mc_hw_reg_read(md, MC_REG_PAGE_HOT);
		mc_hw_reg_write(md, MC_REG_IRQ_STATUS, MC_IRQ_STATUS_PAGE_HOT_MASK);	/* w1c */
	}
	return 0;
}

static void mc_hw_page_counters_clear(struct memchan_dev *md, u32 page)
{
	mc_hw_reg_write(md, MC_REG_PAGE_CNT_SEL, page);
	mc_hw_reg_write(md, MC_REG_PAGE_CNT_READS, 0);	/* a write sets the count */
	mc_hw_reg_write(md, MC_REG_PAGE_CNT_ATOMICS, 0);
}

/* how long MEMCHAN_REMOTE waits for REMOTE_DONE (a board's round trip is microseconds) */
#define MC_HW_REMOTE_TIMEOUT_US	(2 * USEC_PER_SEC)

static const u32 mc_hw_remote_op[] = {
	[MEMCHAN_REMOTE_READ] = MC_OP_READ << MC_TX_PCT_OP_SHIFT,
	[MEMCHAN_REMOTE_FETCH_ADD] = MC_OP_FETCH_ADD << MC_TX_PCT_OP_SHIFT,
	[MEMCHAN_REMOTE_SWAP] = MC_OP_SWAP << MC_TX_PCT_OP_SHIFT,
	[MEMCHAN_REMOTE_CAS] = MC_OP_SWAP << MC_TX_PCT_OP_SHIFT | MC_TX_PCT_CAS_MASK,
};

/*
 * Where a response from another home lands (Memory Channel 2 read-on-write): this node's receive
 * page at the same network address, which needs RX_EN here (the adapter completes a response for a
 * page without it as failed). A page this node does not receive gets RX_EN for the request only,
 * under md->lock, and its entry as it was (read back, whatever enabled it) afterwards; the first
 * receive grant of the page clears what landed there. So a requester needs no receive grant of the
 * region, and the data of a page it does receive land in its copy, as in Memory Channel 2.
 * A request to this node itself lands nowhere (the home's page is that page).
 */
static u64 mc_hw_landing_open(struct memchan_dev *md, u32 home, u32 page)
{
	u64 entry;

	if (home == md->node_id)
		return 0;
	entry = mc_hw_rx_pct_read(md, page);
	if (!(entry & MC_RX_PCT_RX_EN_MASK))
		mc_hw_rx_pct_write(md, page, entry | MC_RX_PCT_RX_EN_MASK);
	return entry;
}

static void mc_hw_landing_close(struct memchan_dev *md, u32 home, u32 page, u64 entry)
{
	if (home != md->node_id && !(entry & MC_RX_PCT_RX_EN_MASK))
		mc_hw_rx_pct_write(md, page, entry);
}

/*
 * The store that launches a request, then the bounded wait for REMOTE_DONE to move from *done
 * (the completion, good or failed; *done is then the new count). A word at 4 mod 8 is launched
 * as one 4-byte store: a misaligned atomic the home refuses and counts.
 */
static int mc_hw_launch(struct memchan_dev *md, u64 addr, u64 word, u32 *done)
{
	struct mc_hw_dev *hw = to_hw(md);
	u32 now;
	int ret;

	if (addr & sizeof(u32))
		writel(lower_32_bits(word), hw->win + addr);
	else
		writeq(word, hw->win + addr);	/* one request: one 8-byte store */
	wmb();	/* out of the write-combining buffer */
	ret = readl_poll_timeout(hw->regs + MC_REG_REMOTE_DONE, now, now != *done, 10,
				 MC_HW_REMOTE_TIMEOUT_US);
	*done = now;
	return ret;
}

/*
 * The page's TX PCT entry as a request page to home (OP bits op), and the landing place of the
 * responses; saved: the entries to put back (mc_hw_request_end). md->lock held.
 */
static int mc_hw_request_begin(struct memchan_dev *md, u32 home, u32 op, u32 page,
			       u32 *saved_tx, u64 *saved_rx)
{
	if (md->tx_users[page])
		return -EBUSY;
	*saved_tx = mc_hw_tx_pct_read(md, page);
	*saved_rx = mc_hw_landing_open(md, home, page);
	mc_hw_tx_pct_write(md, page, MC_TX_PCT_TX_EN_MASK | op |
			   MC_DEST_KIND_NODE << MC_TX_PCT_DEST_KIND_SHIFT |
			   home << MC_TX_PCT_DEST_SHIFT);
	return 0;
}

static void mc_hw_request_end(struct memchan_dev *md, u32 home, u32 page, u32 saved_tx,
			      u64 saved_rx)
{
	mc_hw_tx_pct_write(md, page, saved_tx);
	mc_hw_landing_close(md, home, page, saved_rx);
}

/*
 * One request through the adapter (docs/driver.md), md->lock held: the page's TX PCT entry
 * becomes a request page to home (OP bits op) for the one store that launches the request (no
 * other MEMCHAN_REMOTE interleaves; a page some file holds for transmit is EBUSY), then the
 * driver waits, bounded, for REMOTE_DONE to move and takes the result from REMOTE_LAST. The home
 * checks its grant and the alignment and counts a refusal (REMOTE_REFUSED there); here it
 * completes as failed (REMOTE_ERRORS): EACCES. A CAS stages its compare operand in REMOTE_CAS_CMP
 * and arms the page in REMOTE_CAS_PAGE, so the one 8-byte store (the new word) launches the
 * whole request: a 16-byte store is not delivered to a BAR as one write by every CPU (QEMU's TCG
 * splits it), and two 8-byte stores could be split by another process's store to the window in
 * between. Only this page is armed, only while md->lock is held.
 */
static int mc_hw_request(struct memchan_dev *md, u32 home, u32 op, u64 addr, u64 word,
			 u64 compare, u64 *result)
{
	u32 page = addr >> ilog2(md->page_size);
	u32 saved_tx, done, errors;
	bool cas = op & MC_TX_PCT_CAS_MASK;
	u64 saved_rx;
	int ret;

	ret = mc_hw_request_begin(md, home, op, page, &saved_tx, &saved_rx);
	if (ret)
		return ret;
	if (cas) {
		mc_hw_reg_write(md, MC_REG_REMOTE_CAS_CMP_LO, lower_32_bits(compare));
		mc_hw_reg_write(md, MC_REG_REMOTE_CAS_CMP_HI, upper_32_bits(compare));
		mc_hw_reg_write(md, MC_REG_REMOTE_CAS_PAGE, MC_REMOTE_CAS_PAGE_ARM_MASK | page);
	}
	/* the reads also make the posted register writes land before the store */
	done = mc_hw_reg_read(md, MC_REG_REMOTE_DONE);
	errors = mc_hw_reg_read(md, MC_REG_REMOTE_ERRORS);
	ret = mc_hw_launch(md, addr, word, &done);
	if (cas)
		mc_hw_reg_write(md, MC_REG_REMOTE_CAS_PAGE, 0);
	mc_hw_request_end(md, home, page, saved_tx, saved_rx);
	if (ret)
		return ret;
	if (mc_hw_reg_read(md, MC_REG_REMOTE_ERRORS) != errors)
		return -EACCES;
	*result = mc_hw_reg_read(md, MC_REG_REMOTE_LAST_LO) |
		  (u64)mc_hw_reg_read(md, MC_REG_REMOTE_LAST_HI) << 32;
	return 0;
}

/*
 * MEMCHAN_REMOTE_CHECK: every page of the range has READ_EN or ATOMIC_EN at the home. Homed at
 * this node, its own RX PCT says it; a page without either gets a read request, refused by the
 * adapter as the home and counted in REMOTE_REFUSED there, as on every backend. Another home's
 * grant is seen only through an access: a read of the page's first word, and where that is
 * refused a fetch-and-add of 0 (it changes nothing). So there the check is counted at the home
 * as what it is: one read served per page (an atomic, after a refused read, for a page with
 * ATOMIC_EN only), and a page with neither grant is two refusals.
 */
static int mc_hw_check(struct memchan_dev *md, struct memchan_remote *r)
{
	const u32 read = MC_OP_READ << MC_TX_PCT_OP_SHIFT;
	const u32 fadd = MC_OP_FETCH_ADD << MC_TX_PCT_OP_SHIFT;
	const u64 need = MC_RX_PCT_READ_EN_MASK | MC_RX_PCT_ATOMIC_EN_MASK;
	u32 shift = ilog2(md->page_size);
	u32 page, last = (r->addr + r->operand - 1) >> shift;
	bool own = r->home == md->node_id;
	u64 at, v;
	int ret;

	for (page = r->addr >> shift; page <= last; page++) {
		at = (u64)page << shift;
		if (own && (mc_hw_rx_pct_read(md, page) & need))
			continue;
		ret = mc_hw_request(md, r->home, read, at, 0, 0, &v);
		if (ret == -EACCES && !own)
			ret = mc_hw_request(md, r->home, fadd, at, 0, 0, &v);
		if (ret)
			return ret;
	}
	return 0;
}

/* regmap 1.3: REMOTE_CAS_CMP_LO/HI and REMOTE_CAS_PAGE (a CAS launched by one 8-byte store) */
static bool mc_hw_staged_cas(struct memchan_dev *md)
{
	return (md->regmap_version & MC_VERSION_MINOR_MASK) >> MC_VERSION_MINOR_SHIFT >= 3;
}

/*
 * MEMCHAN_REMOTE on the adapter: one request (mc_hw_request). A misaligned word is refused
 * before it is sent (EACCES, not counted at the home), except an atomic's word at 4 mod 8, which
 * goes out as a 4-byte store the home refuses and counts, as the ivshmem path counts it: an
 * 8-byte store that is not 4-aligned would reach the adapter as partial words, each refused by
 * this adapter (regmap 1.3; before, they were dropped and the request never completed).
 */
static int mc_hw_remote(struct memchan_dev *md, struct memchan_remote *r)
{
	u32 misaligned = r->addr & (sizeof(u64) - 1);

	if (r->op == MEMCHAN_REMOTE_CHECK)
		return mc_hw_check(md, r);
	if (r->op == MEMCHAN_REMOTE_CAS && !mc_hw_staged_cas(md))
		return -EOPNOTSUPP;
	if (misaligned && (misaligned != sizeof(u32) || r->op == MEMCHAN_REMOTE_READ))
		return -EACCES;
	return mc_hw_request(md, r->home, mc_hw_remote_op[r->op], r->addr, r->operand, r->compare,
			     &r->result);
}

/*
 * A remote copy from another home, one page of it ([from, to) inside page): one 8-byte read
 * request per word, each launched after the previous completed (two stores in a row could
 * combine into one request of unknown length), its answer loaded from where it landed (one
 * 8-byte load: never torn) as soon as it completed. The page's first request is checked alone,
 * so a page without READ_EN is one refusal at the home, not one per word; a grant taken back
 * part-way fails the copy (EACCES). The home counts one read per word.
 */
static int mc_hw_copy_page(struct memchan_dev *md, u32 home, u64 from, u64 to, u8 *dst)
{
	const u8 *landing = to_hw(md)->rx_cpu;
	u32 page = from >> ilog2(md->page_size);
	u32 saved_tx, done, errors;
	u64 saved_rx, w, v, b;
	int ret;

	ret = mc_hw_request_begin(md, home, MC_OP_READ << MC_TX_PCT_OP_SHIFT, page, &saved_tx,
				  &saved_rx);
	if (ret)
		return ret;
	done = mc_hw_reg_read(md, MC_REG_REMOTE_DONE);
	errors = mc_hw_reg_read(md, MC_REG_REMOTE_ERRORS);
	for (w = ALIGN_DOWN(from, sizeof(u64)); w < to; w += sizeof(u64)) {
		ret = mc_hw_launch(md, w, 0, &done);
		if (ret)
			break;
		if (w == ALIGN_DOWN(from, sizeof(u64)) &&
		    mc_hw_reg_read(md, MC_REG_REMOTE_ERRORS) != errors) {
			ret = -EACCES;
			break;
		}
		rmb();	/* the completion before the load of what it wrote */
		v = READ_ONCE(*(const u64 *)(landing + w));
		for (b = max(w, from); b < min(w + sizeof(u64), to); b++)
			dst[b - from] = v >> (BITS_PER_BYTE * (b - w));
	}
	if (!ret && mc_hw_reg_read(md, MC_REG_REMOTE_ERRORS) != errors)
		ret = -EACCES;
	mc_hw_request_end(md, home, page, saved_tx, saved_rx);
	return ret;
}

/*
 * MEMCHAN_REMOTE_COPY. Homed at this node: READ_EN on every page first (refused by the adapter,
 * counted, as above), then one 8-byte read request per page, which the adapter serves after
 * every earlier write it delivered there and counts (one read per page, as on ivshmem); then the
 * copy from the receive area, the home's memory. Homed at another node: page by page
 * (mc_hw_copy_page), the data from this node's receive page where the responses land.
 */
static int mc_hw_remote_copy(struct memchan_dev *md, struct memchan_remote *r, void *dst)
{
	u32 shift = ilog2(md->page_size);
	u32 page, last = (r->addr + r->operand - 1) >> shift;
	u64 v, word, from, to, end = r->addr + r->operand;
	int ret;

	if (r->home != md->node_id) {
		for (from = r->addr, ret = 0; !ret && from < end; from = to) {
			to = min(end, ALIGN(from + 1, (u64)md->page_size));
			ret = mc_hw_copy_page(md, r->home, from, to, (u8 *)dst + (from - r->addr));
		}
		return ret;
	}
	for (page = r->addr >> shift, ret = 0; !ret && page <= last; page++)
		if (!(mc_hw_rx_pct_read(md, page) & MC_RX_PCT_READ_EN_MASK))
			ret = mc_hw_request(md, r->home, MC_OP_READ << MC_TX_PCT_OP_SHIFT,
					    (u64)page << shift, 0, 0, &v);
	for (page = r->addr >> shift; !ret && page <= last; page++) {
		word = max(r->addr, (u64)page << shift) & ~(u64)(sizeof(u64) - 1);
		ret = mc_hw_request(md, r->home, MC_OP_READ << MC_TX_PCT_OP_SHIFT, word, 0, 0, &v);
	}
	if (ret)
		return ret;
	rmb();	/* the completions (REMOTE_DONE) before the loads of what they served */
	memcpy(dst, to_hw(md)->rx_cpu + r->addr, r->operand);
	return 0;
}

static int mc_hw_loopback(struct memchan_dev *md, u32 mode)
{
	u32 caps = md->caps;

	if ((mode == 1 && !(caps & MC_CAPS_LOOPBACK_INTERNAL_MASK)) ||
	    (mode == 2 && !(caps & MC_CAPS_LOOPBACK_EXTERNAL_MASK)))
		return -EOPNOTSUPP;
	mc_hw_reg_write(md, MC_REG_LOOPBACK, mode);
	return 0;
}

static void mc_hw_mcast_group(struct memchan_dev *md, u32 group, bool write, u32 *mask)
{
	u32 off = MC_REG_MCAST_GROUP_BASE + group * MC_REG_MCAST_GROUP_STRIDE;

	if (write)
		mc_hw_reg_write(md, off, *mask);
	*mask = mc_hw_reg_read(md, off);
}

static int mc_hw_release_node(struct memchan_dev *md, u32 node, u64 incarnation)
{
	return 0;	/* the dead node's PCT is in its own adapter */
}

static unsigned long mc_hw_tx_pfn(struct memchan_dev *md, u32 page, u32 off)
{
	return (to_hw(md)->win_start + (u64)page * md->page_size + off) >> PAGE_SHIFT;
}

/*
 * x86 PAT tracks a remap of a whole vma (VM_PAT) through the vma's first PTE,
 * which a revocation zaps; at munmap 6.1's untrack_pfn() then finds no PTE and
 * warns. For RAM the tracking reserves nothing (reserve_pfn_range() and
 * free_pfn_range() skip RAM), so the flag is dropped there; a receive area
 * that is not RAM could not be revoked safely and is not mapped.
 */
static int mc_hw_rx_untrack(struct vm_area_struct *vma)
{
#ifdef VM_PAT
	unsigned long pfn;

	if (!(vma->vm_flags & VM_PAT))
		return 0;
	if (follow_pfn(vma, vma->vm_start, &pfn) ||
	    region_intersects(PFN_PHYS(pfn), vma->vm_end - vma->vm_start,
			      IORESOURCE_SYSTEM_RAM, IORES_DESC_NONE) != REGION_INTERSECTS)
		return -ENXIO;
	memchan_vm_flags_clear(vma, VM_PAT);
#endif
	return 0;
}

/*
 * The receive area into vma, off bytes into the area (page aligned, the range
 * checked by the core and here again against the area). dma_mmap_coherent()
 * takes the offset into the buffer from vm_pgoff; the file offset is put back
 * for unmap_mapping_range().
 */
static int mc_hw_rx_mmap(struct memchan_dev *md, struct vm_area_struct *vma, u64 off)
{
	struct mc_hw_dev *hw = to_hw(md);
	unsigned long pgoff = vma->vm_pgoff;
	int ret;

	if (!PAGE_ALIGNED(off) || off >= hw->rx_size ||
	    vma->vm_end - vma->vm_start > hw->rx_size - off)
		return -EINVAL;
	vma->vm_pgoff = off >> PAGE_SHIFT;
	ret = dma_mmap_coherent(&md->pdev->dev, vma, hw->rx_cpu, hw->rx_dma, hw->rx_size);
	vma->vm_pgoff = pgoff;
	if (ret)
		return ret;
	return mc_hw_rx_untrack(vma);
}

/*
 * The adapter writes a receive page only while its RX PCT entry is on; the core
 * calls this with every entry off, so no DMA races the clear.
 */
static void mc_hw_rx_clear(struct memchan_dev *md)
{
	struct mc_hw_dev *hw = to_hw(md);

	memset(hw->rx_cpu, 0, hw->rx_size);
}

static pgprot_t mc_hw_tx_prot(pgprot_t prot)
{
	return pgprot_writecombine(prot);
}

static pgprot_t mc_hw_rx_prot(pgprot_t prot)
{
	return prot;
}

static pgprot_t mc_hw_ctl_prot(pgprot_t prot)
{
	return pgprot_noncached(prot);
}

/* What the interrupt handler does, also for the poll work: true if a cause was pending. */
static bool mc_hw_service(struct mc_hw_dev *hw)
{
	struct memchan_dev *md = &hw->md;
	u32 st = mc_hw_reg_read(md, MC_REG_IRQ_STATUS) & hw->irq_mask;

	if (!st)
		return false;
	mc_hw_reg_write(md, MC_REG_IRQ_STATUS, st);	/* w1c */
	if (st & MC_IRQ_STATUS_RX_NOTIFY_MASK)
		memchan_notify_arrived(md, mc_hw_reg_read(md, MC_REG_NOTIFY_COUNT));
	if (st & MC_IRQ_STATUS_ERROR_MASK)
		dev_warn_ratelimited(&md->pdev->dev, "ERROR_COUNT now %u\n",
				     mc_hw_reg_read(md, MC_REG_ERROR_COUNT));
	return true;
}

static irqreturn_t mc_hw_irq(int irq, void *data)
{
	return mc_hw_service(data) ? IRQ_HANDLED : IRQ_NONE;
}

/* one BAR read per period while nothing is pending */
static void mc_hw_poll(struct work_struct *work)
{
	struct mc_hw_dev *hw = container_of(to_delayed_work(work), struct mc_hw_dev, poll);

	mc_hw_service(hw);
	schedule_delayed_work(&hw->poll, max(msecs_to_jiffies(memchan_poll_ms), 1UL));
}

/* MSI-X, MSI, INTx as irq_mode allows, the first that the device and platform give; else poll */
static int mc_hw_setup_irq(struct mc_hw_dev *hw)
{
	struct pci_dev *pdev = hw->md.pdev;
	unsigned int flags;
	int ret;

	if (!strcmp(memchan_irq_mode, "auto"))
		flags = PCI_IRQ_MSIX | PCI_IRQ_MSI | PCI_IRQ_LEGACY;
	else if (!strcmp(memchan_irq_mode, "msix"))
		flags = PCI_IRQ_MSIX;
	else if (!strcmp(memchan_irq_mode, "msi"))
		flags = PCI_IRQ_MSI;
	else if (!strcmp(memchan_irq_mode, "intx"))
		flags = PCI_IRQ_LEGACY;
	else if (!strcmp(memchan_irq_mode, "poll"))
		flags = 0;
	else
		return -EINVAL;

	if (flags) {
		ret = pci_alloc_irq_vectors(pdev, 1, 1, flags);
		if (ret < 0 && strcmp(memchan_irq_mode, "auto")) {
			dev_err(&pdev->dev, "irq_mode=%s: no such interrupt (%d)\n",
				memchan_irq_mode, ret);
			return ret;
		}
		if (ret > 0) {
			unsigned long irqf = IRQF_ONESHOT;

			hw->irq_kind = pdev->msix_enabled ? MEMCHAN_IRQ_MSIX :
				       pdev->msi_enabled ? MEMCHAN_IRQ_MSI : MEMCHAN_IRQ_INTX;
			if (hw->irq_kind == MEMCHAN_IRQ_INTX)
				irqf |= IRQF_SHARED;
			/* threaded: the handler reads registers, which may be slow */
			return devm_request_threaded_irq(&pdev->dev, pci_irq_vector(pdev, 0), NULL,
							 mc_hw_irq, irqf, hw->md.name, hw);
		}
	}
	hw->irq_kind = MEMCHAN_IRQ_POLL;
	INIT_DELAYED_WORK(&hw->poll, mc_hw_poll);
	return 0;
}

/*
 * Which bitstream the board runs: BUILD_GIT and BUILD_TIME, which the board's build stamps
 * (both 0 on the co-simulated board and on a bitstream built without a stamp).
 */
static void mc_hw_log_build(struct memchan_dev *md)
{
	u32 git = mc_hw_reg_read(md, MC_REG_BUILD_GIT);
	time64_t built = mc_hw_reg_read(md, MC_REG_BUILD_TIME);

	if (!git && !built) {
		dev_info(&md->pdev->dev, "register map %u.%u, no build stamp\n",
			 (md->regmap_version & MC_VERSION_MAJOR_MASK) >> MC_VERSION_MAJOR_SHIFT,
			 (md->regmap_version & MC_VERSION_MINOR_MASK) >> MC_VERSION_MINOR_SHIFT);
		return;
	}
	dev_info(&md->pdev->dev, "register map %u.%u, bitstream of commit %08x built %ptT UTC\n",
		 (md->regmap_version & MC_VERSION_MAJOR_MASK) >> MC_VERSION_MAJOR_SHIFT,
		 (md->regmap_version & MC_VERSION_MINOR_MASK) >> MC_VERSION_MINOR_SHIFT,
		 git, &built);
}

static int mc_hw_probe(struct memchan_dev *md)
{
	struct mc_hw_dev *hw = to_hw(md);
	struct pci_dev *pdev = md->pdev;
	struct device *dev = &pdev->dev;
	resource_size_t win_len;
	u32 id, ver;
	int ret;

	if (!(pci_resource_flags(pdev, MEMCHAN_BAR_REGS) & IORESOURCE_MEM) ||
	    pci_resource_len(pdev, MEMCHAN_BAR_REGS) < MC_BAR0_SIZE ||
	    !(pci_resource_flags(pdev, MEMCHAN_BAR_WINDOW) & IORESOURCE_MEM))
		return -ENODEV;
	ret = pcim_iomap_regions(pdev, BIT(MEMCHAN_BAR_REGS), MEMCHAN_NAME);
	if (ret)
		return ret;
	hw->regs = pcim_iomap_table(pdev)[MEMCHAN_BAR_REGS];

	id = mc_hw_reg_read(md, MC_REG_ID);
	ver = mc_hw_reg_read(md, MC_REG_VERSION);
	if (id != MC_ID) {
		dev_err(dev, "ID register reads %#x, expected %#x: not a memchan adapter\n",
			id, MC_ID);
		return -ENODEV;
	}
	if ((ver & MC_VERSION_MAJOR_MASK) >> MC_VERSION_MAJOR_SHIFT != MC_VERSION_MAJOR) {
		dev_err(dev, "VERSION register reads %#x: register-map major %u, this driver supports %u\n",
			ver, (ver & MC_VERSION_MAJOR_MASK) >> MC_VERSION_MAJOR_SHIFT,
			MC_VERSION_MAJOR);
		return -ENODEV;
	}
	md->regmap_version = ver;
	md->caps = mc_hw_reg_read(md, MC_REG_CAPS);
	md->page_size = mc_hw_reg_read(md, MC_REG_PAGE_SIZE);
	md->page_count = mc_hw_reg_read(md, MC_REG_PAGE_COUNT);
	md->max_nodes = mc_hw_reg_read(md, MC_REG_MAX_NODES);
	if ((md->page_size != 4096 && md->page_size != 8192) || !md->page_count ||
	    md->page_count > MC_MAX_PAGES || md->max_nodes < 2 ||
	    md->max_nodes > MC_MAX_NODES) {
		dev_err(dev, "bad geometry: %u pages of %u bytes, %u nodes\n",
			md->page_count, md->page_size, md->max_nodes);
		return -ENODEV;
	}
	mc_hw_log_build(md);
	win_len = (resource_size_t)md->page_count * md->page_size;
	if (pci_resource_len(pdev, MEMCHAN_BAR_WINDOW) < win_len) {
		dev_err(dev, "BAR2 smaller than the %llu-byte window\n", (u64)win_len);
		return -ENODEV;
	}
	/* managed by pcim: released with the device */
	ret = pci_request_region(pdev, MEMCHAN_BAR_WINDOW, MEMCHAN_NAME);
	if (ret)
		return ret;
	hw->win_start = pci_resource_start(pdev, MEMCHAN_BAR_WINDOW);
	ret = devm_arch_io_reserve_memtype_wc(dev, hw->win_start, win_len);
	if (ret)
		return ret;
	devm_arch_phys_wc_add(dev, hw->win_start, win_len);
	hw->win = devm_ioremap_wc(dev, hw->win_start, win_len);
	if (!hw->win)
		return -ENOMEM;
	md->ctl_start = pci_resource_start(pdev, MEMCHAN_BAR_REGS);
	md->ctl_len = MC_BAR0_SIZE;

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	hw->rx_size = win_len;
	hw->rx_cpu = dma_alloc_coherent(dev, hw->rx_size, &hw->rx_dma, GFP_KERNEL);
	if (!hw->rx_cpu) {
		dev_err(dev, "cannot allocate the %zu-byte DMA-coherent receive area\n",
			hw->rx_size);
		return -ENOMEM;
	}
	pci_set_master(pdev);

	/* start with every route closed */
	mc_hw_reg_write(md, MC_REG_CTRL, 0);
	mc_hw_clear_pcts(hw);
	id = mc_hw_reg_read(md, MC_REG_NODE_ID);
	if (id & MC_NODE_ID_VALID_MASK) {
		md->node_id = (id & MC_NODE_ID_ID_MASK) >> MC_NODE_ID_ID_SHIFT;
		md->node_auto = id & MC_NODE_ID_AUTO_MASK;
	}

	hw->irq_mask = MC_IRQ_STATUS_RX_NOTIFY_MASK | MC_IRQ_STATUS_LINK_CHANGE_MASK |
		       MC_IRQ_STATUS_ERROR_MASK;
	ret = mc_hw_setup_irq(hw);
	if (ret)
		goto err_free;
	mc_hw_reg_write(md, MC_REG_IRQ_STATUS, ~0U);
	mc_hw_reg_write(md, MC_REG_IRQ_MASK, hw->irq_mask);
	md->notify_count = mc_hw_reg_read(md, MC_REG_NOTIFY_COUNT);
	mc_hw_reg_write(md, MC_REG_CTRL, MC_CTRL_ENABLE_MASK | MC_CTRL_RETRY_EN_MASK);
	if (hw->irq_kind == MEMCHAN_IRQ_POLL)
		schedule_delayed_work(&hw->poll, 1);
	return 0;

err_free:
	pci_clear_master(pdev);
	dma_free_coherent(dev, hw->rx_size, hw->rx_cpu, hw->rx_dma);
	hw->rx_cpu = NULL;
	return ret;
}

static void mc_hw_remove(struct memchan_dev *md)
{
	struct mc_hw_dev *hw = to_hw(md);

	/* stop the adapter before its receive area goes (the core zapped every mapping) */
	if (hw->irq_kind == MEMCHAN_IRQ_POLL)
		cancel_delayed_work_sync(&hw->poll);
	mc_hw_reg_write(md, MC_REG_IRQ_MASK, 0);
	mc_hw_reg_write(md, MC_REG_CTRL, 0);
	mc_hw_clear_pcts(hw);
	mc_hw_reg_read(md, MC_REG_CTRL);
	pci_clear_master(md->pdev);
	dma_free_coherent(&md->pdev->dev, hw->rx_size, hw->rx_cpu, hw->rx_dma);
	hw->rx_cpu = NULL;
}

static ssize_t mc_hw_link_state(struct memchan_dev *md, char *buf)
{
	u32 st = mc_hw_reg_read(md, MC_REG_LINK_STATUS);

	return sysfs_emit(buf, "%s%s%s peer=%u\n",
			  st & MC_LINK_STATUS_UP_MASK ? "up" : "down",
			  st & MC_LINK_STATUS_PEER_SEEN_MASK ? " peer-seen" : "",
			  st & MC_LINK_STATUS_DISCARDING_MASK ? " discarding" : "",
			  (st & MC_LINK_STATUS_PEER_NODE_MASK) >> MC_LINK_STATUS_PEER_NODE_SHIFT);
}

static enum memchan_irq_kind mc_hw_irq_kind(struct memchan_dev *md)
{
	return to_hw(md)->irq_kind;
}

static struct memchan_dev *mc_hw_alloc(void)
{
	struct mc_hw_dev *hw = kzalloc(sizeof(*hw), GFP_KERNEL);

	return hw ? &hw->md : NULL;
}

static void mc_hw_free(struct memchan_dev *md)
{
	kfree(to_hw(md));
}

const struct memchan_backend memchan_hw_backend = {
	.kind = MEMCHAN_BACKEND_HW,
	.name = "hw",
	.rx_private = true,
	.alloc = mc_hw_alloc,
	.free = mc_hw_free,
	.probe = mc_hw_probe,
	.remove = mc_hw_remove,
	.link_state = mc_hw_link_state,
	.irq_kind = mc_hw_irq_kind,
	.reg_read = mc_hw_reg_read,
	.tx_pct_read = mc_hw_tx_pct_read,
	.rx_pct_read = mc_hw_rx_pct_read,
	.tx_pct_write = mc_hw_tx_pct_write,
	.tx_route_check = mc_hw_tx_route_check,
	.rx_pct_write = mc_hw_rx_pct_write,
	.rx_clear = mc_hw_rx_clear,
	.set_node = mc_hw_set_node,
	.ack_sweep = mc_hw_barrier,
	.loopback = mc_hw_loopback,
	.page_counters = mc_hw_page_counters,
	.page_counters_clear = mc_hw_page_counters_clear,
	.remote = mc_hw_remote,
	.remote_copy = mc_hw_remote_copy,
	.release_node = mc_hw_release_node,
	.mcast_group = mc_hw_mcast_group,
	.tx_pfn = mc_hw_tx_pfn,
	.rx_mmap = mc_hw_rx_mmap,
	.tx_prot = mc_hw_tx_prot,
	.rx_prot = mc_hw_rx_prot,
	.ctl_prot = mc_hw_ctl_prot,
};
