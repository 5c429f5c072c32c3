// SPDX-License-Identifier: GPL-2.0
/*
 * memchan: driver core. PCI binding, character devices, the ioctl ABI of
 * include/uapi/linux/memchan.h, grants, mmap with revocation, notification.
 *
 * Locking:
 *  md->lock (mutex) serializes every state change and every backend call.
 *  md->map_lock (rwsem) is taken for read in the fault path (under the
 *  caller's mmap_lock) and for write (under md->lock) while grants are
 *  taken away or the device goes, before the mappings are zapped with
 *  unmap_mapping_range(). No user memory is touched under either lock.
 *  Every mapping is populated at fault time and checks the grant and
 *  md->removed there, so a zapped range can never be re-populated without
 *  a grant.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/eventfd.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/poll.h>
#include <linux/pseudo_fs.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "memchan.h"

unsigned int memchan_poll_ms = 1;
module_param_named(poll_ms, memchan_poll_ms, uint, 0644);
MODULE_PARM_DESC(poll_ms,
		 "period in ms of the poll that wakes waiters: ivshmem NOTIFY_COUNT, hardware IRQ_STATUS in irq_mode poll (default 1, at least one jiffy)");

unsigned int memchan_heartbeat_ms = MC_SYS_DEFAULT_HEARTBEAT_MS;
module_param_named(heartbeat_ms, memchan_heartbeat_ms, uint, 0644);
MODULE_PARM_DESC(heartbeat_ms,
		 "ivshmem backend: period in ms of the membership HEARTBEAT increment while a node ID is set (default 100)");

static bool memchan_bind_ivshmem = true;
module_param_named(ivshmem, memchan_bind_ivshmem, bool, 0444);
MODULE_PARM_DESC(ivshmem,
		 "bind QEMU ivshmem-plain devices (1af4:1110) that hold a valid soft-fabric file (default Y)");

static DEFINE_IDA(memchan_ida);

/* ---------------------------------------------------------------------- */
/*
 * pseudo file system: one anonymous inode per open file owns that file's mappings, so a
 * revocation zaps the revoking file's mappings only (see memchan_zap)
 */

#define MEMCHAN_FS_MAGIC 0x4d43464d
static int memchan_fs_cnt;
static struct vfsmount *memchan_fs_mnt;

static int memchan_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, MEMCHAN_FS_MAGIC) ? 0 : -ENOMEM;
}

/*
 * No .owner: the internal mount lives exactly as long as a bound device or
 * an open file (which pins the module through its fops), and it is released
 * synchronously (MNT_INTERNAL) when the last of them goes. With an owner the
 * mount would pin the module and rmmod would never succeed.
 */
static struct file_system_type memchan_fs_type = {
	.name = "memchan_inode",
	.init_fs_context = memchan_fs_init_fs_context,
	.kill_sb = kill_anon_super,
};

static struct inode *memchan_inode_new(void)
{
	struct inode *inode;
	int ret;

	ret = simple_pin_fs(&memchan_fs_type, &memchan_fs_mnt, &memchan_fs_cnt);
	if (ret)
		return ERR_PTR(ret);
	inode = alloc_anon_inode(memchan_fs_mnt->mnt_sb);
	if (IS_ERR(inode))
		simple_release_fs(&memchan_fs_mnt, &memchan_fs_cnt);
	return inode;
}

static void memchan_inode_free(struct inode *inode)
{
	iput(inode);
	simple_release_fs(&memchan_fs_mnt, &memchan_fs_cnt);
}

/* ---------------------------------------------------------------------- */

static void memchan_release_dev(struct kref *kref)
{
	struct memchan_dev *md = container_of(kref, struct memchan_dev, kref);
	struct pci_dev *pdev = md->pdev;
	int i;

	kvfree(md->tx_users);
	kvfree(md->rx_users);
	for (i = 0; i < MEMCHAN_RX_ATTRS; i++)
		kvfree(md->rx_attr_users[i]);
	kfree(md->mms);
	ida_free(&memchan_ida, md->index);
	md->be->free(md);
	pci_dev_put(pdev);
}

static void memchan_put(struct memchan_dev *md)
{
	kref_put(&md->kref, memchan_release_dev);
}

/* Wake poll()/read()/MEMCHAN_WAIT sleepers and eventfds: count changed. */
void memchan_notify_arrived(struct memchan_dev *md, u32 count)
{
	struct memchan_file *f;

	WRITE_ONCE(md->notify_count, count);
	wake_up_interruptible_all(&md->wq);
	spin_lock(&md->files_lock);
	list_for_each_entry(f, &md->files, node)
		if (f->efd)
			eventfd_signal(f->efd, 1);
	spin_unlock(&md->files_lock);
}

static const char * const memchan_irq_kind_names[] = {
	[MEMCHAN_IRQ_NONE] = "none",
	[MEMCHAN_IRQ_MSIX] = "msix",
	[MEMCHAN_IRQ_MSI] = "msi",
	[MEMCHAN_IRQ_INTX] = "intx",
	[MEMCHAN_IRQ_POLL] = "poll",
};

static const char *memchan_irq_mode(struct memchan_dev *md)
{
	enum memchan_irq_kind kind = md->be->irq_kind ? md->be->irq_kind(md) : MEMCHAN_IRQ_NONE;

	return kind < ARRAY_SIZE(memchan_irq_kind_names) ? memchan_irq_kind_names[kind] : "none";
}

/*
 * Remember that current's address space maps receive pages at mmap time
 * (be->rx_mmap); called under md->map_lock (read), so a revocation that
 * takes it for write afterwards finds the entry.
 */
static int memchan_mms_add(struct memchan_dev *md)
{
	struct mm_struct **mms;
	u32 i;
	int ret = 0;

	mutex_lock(&md->mms_lock);
	for (i = 0; i < md->mms_count; i++)
		if (md->mms[i] == current->mm)
			goto out;
	if (md->mms_count == md->mms_size) {
		mms = krealloc_array(md->mms, max(2 * md->mms_size, 4U), sizeof(*mms), GFP_KERNEL);
		if (!mms) {
			ret = -ENOMEM;
			goto out;
		}
		md->mms = mms;
		md->mms_size = max(2 * md->mms_size, 4U);
	}
	mmgrab(current->mm);
	md->mms[md->mms_count++] = current->mm;
out:
	mutex_unlock(&md->mms_lock);
	return ret;
}

/*
 * Zap every user mapping of [start, start + len) of file f (len 0: all of
 * them); called after f's grants (or md->removed) changed under md->map_lock
 * (write). Each open file has its own address space: the receive pages of
 * the hardware backend are mapped at mmap time and cannot fault back in, so
 * zapping another file's mapping of a page that file still holds would cost
 * it the page (SIGBUS) whenever any process of the node let go of it: every
 * process of a node maps the system pages. Faulted mappings re-check the
 * grant. A vma populated by
 * be->rx_mmap is only linked into the address space after ->mmap returns, so
 * an mmap that passed its grant check before the change may link its vma
 * after the first zap: wait for the mmap calls in flight in every address
 * space that mapped that way (their mmap_lock), then zap again. Never called
 * with mmap_lock held (md->lock may be: nothing takes md->lock under mmap_lock).
 */
static void memchan_zap(struct memchan_dev *md, struct memchan_file *f,
			u64 start, u64 len)
{
	struct mm_struct **mms;
	u32 i, n;

	unmap_mapping_range(f->inode->i_mapping, start, len, 1);
	mutex_lock(&md->mms_lock);
	mms = md->mms;
	n = md->mms_count;
	md->mms = NULL;
	md->mms_count = 0;
	md->mms_size = 0;
	mutex_unlock(&md->mms_lock);
	if (!n)
		return;
	for (i = 0; i < n; i++) {
		mmap_read_lock(mms[i]);
		mmap_read_unlock(mms[i]);
		mmdrop(mms[i]);
	}
	kfree(mms);
	unmap_mapping_range(f->inode->i_mapping, start, len, 1);
}

static u64 memchan_page_offset(struct memchan_dev *md, bool tx, u32 page)
{
	return (tx ? MEMCHAN_MMAP_TX_BASE : MEMCHAN_MMAP_RX_BASE) +
		(u64)page * md->page_size;
}

/* ---------------------------------------------------------------------- */
/* PCT entry validation (user-supplied entries) */

/*
 * The rule of regmap/memchan.toml [tx_pct_rule], generated: request pages
 * (remote read, atomics) name one node and need an adapter that turns stores
 * into requests; the soft fabric's remote reads and atomics are the
 * library's, not request pages.
 */
static int memchan_check_tx_entry(struct memchan_dev *md, u32 e)
{
	switch (mc_tx_pct_rule(e, md->max_nodes, md->caps,
			       md->be->kind != MEMCHAN_BACKEND_HW)) {
	case MC_TX_RULE_OK:
		return 0;
	case MC_TX_RULE_EMULATED:
	case MC_TX_RULE_CAPS:
		return -EOPNOTSUPP;
	default:
		return -EINVAL;
	}
}

/*
 * Receive attributes a grant may ask for (rx_flags), in the order of
 * md->rx_attr_users[] and f->rx_attr_map[]: the RX PCT bit each sets, and the
 * CAPS bit without which the adapter cannot serve it (0: every adapter).
 */
static const struct memchan_rx_attr {
	u32 flag;
	u64 pct;
	u32 cap;
} memchan_rx_attrs[MEMCHAN_RX_ATTRS] = {
	{ MEMCHAN_RX_IRQ, MC_RX_PCT_IRQ_ON_RX_MASK, 0 },
	{ MEMCHAN_RX_READ, MC_RX_PCT_READ_EN_MASK, MC_CAPS_REMOTE_READ_MASK },
	{ MEMCHAN_RX_ATOMIC, MC_RX_PCT_ATOMIC_EN_MASK, MC_CAPS_ATOMICS_MASK },
	{ MEMCHAN_RX_COUNT_IRQ, MC_RX_PCT_COUNT_IRQ_MASK, MC_CAPS_PAGE_COUNTERS_MASK },
};

#define MEMCHAN_RX_FLAGS	(MEMCHAN_RX_IRQ | MEMCHAN_RX_READ | MEMCHAN_RX_ATOMIC | \
				 MEMCHAN_RX_COUNT_IRQ)
#define MEMCHAN_RX_PCT_USER	(MC_RX_PCT_RX_EN_MASK | MC_RX_PCT_IRQ_ON_RX_MASK | \
				 MC_RX_PCT_READ_EN_MASK | MC_RX_PCT_ATOMIC_EN_MASK | \
				 MC_RX_PCT_COUNT_IRQ_MASK)

/* -EOPNOTSUPP if RX PCT bits pct ask for an attribute this adapter does not serve */
static int memchan_rx_supported(struct memchan_dev *md, u64 pct)
{
	int i;

	for (i = 0; i < MEMCHAN_RX_ATTRS; i++)
		if ((pct & memchan_rx_attrs[i].pct) && (md->caps & memchan_rx_attrs[i].cap) !=
		    memchan_rx_attrs[i].cap)
			return -EOPNOTSUPP;
	return 0;
}

/* the RX PCT bits of rx_flags (valid flags only) */
static u64 memchan_rx_flags_pct(u32 rx_flags)
{
	u64 pct = 0;
	int i;

	for (i = 0; i < MEMCHAN_RX_ATTRS; i++)
		if (rx_flags & memchan_rx_attrs[i].flag)
			pct |= memchan_rx_attrs[i].pct;
	return pct;
}

static int memchan_check_rx_entry(struct memchan_dev *md, u64 e)
{
	if (e & ~MEMCHAN_RX_PCT_USER)
		return -EINVAL;	/* reserved bits or REMAP (driver-owned) */
	return memchan_rx_supported(md, e);
}

/*
 * Private receive pages (hardware): every page of the window is received for as long as the node
 * has an ID, whether or not a process holds a receive grant, so the node's copy of a page is
 * always current and a process that attaches late finds every store made since the node got
 * its ID, as on ivshmem, where the pages are the shared file (a process that attached a lock
 * set after its holder bid missed the bid: FailureConformanceTest on the co-simulated board).
 * The receive area already covers the whole window; grants bound only what a process may map
 * and the per-grant attributes (memchan_rx_attrs). Stores made before the node got its ID are
 * not there (hot join: firmware/cosim/README.md).
 */
static bool memchan_rx_always(struct memchan_dev *md)
{
	return md->be->rx_private && md->node_id != MEMCHAN_NODE_NONE;
}

static u64 memchan_rx_entry(struct memchan_dev *md, u32 page)
{
	u64 e = 0;

	int i;

	if (md->rx_users[page] || memchan_rx_always(md)) {
		e = MC_RX_PCT_RX_EN_MASK;
		for (i = 0; i < MEMCHAN_RX_ATTRS; i++)
			if (md->rx_attr_users[i][page])
				e |= memchan_rx_attrs[i].pct;
	}
	return e;
}

/* ---------------------------------------------------------------------- */
/* grants */

/* Take back page grants of f in [first, first + count); md->lock held. */
static void memchan_drop_grants(struct memchan_dev *md, struct memchan_file *f,
				bool tx, u32 first, u32 count)
{
	unsigned long *map = tx ? f->tx_map : f->rx_map;
	u32 p;
	int i;

	down_write(&md->map_lock);
	for (p = first; p < first + count; p++) {
		if (!test_bit(p, map))
			continue;
		clear_bit(p, map);
		md->grants--;
		if (tx) {
			if (--md->tx_users[p] == 0 && !md->removed)
				md->be->tx_pct_write(md, p, 0);
		} else {
			for (i = 0; i < MEMCHAN_RX_ATTRS; i++)
				if (test_and_clear_bit(p, f->rx_attr_map[i]))
					md->rx_attr_users[i][p]--;
			md->rx_users[p]--;
			if (!md->removed)
				md->be->rx_pct_write(md, p, memchan_rx_entry(md, p));
		}
	}
	up_write(&md->map_lock);
	memchan_zap(md, f, memchan_page_offset(md, tx, first), (u64)count * md->page_size);
}

static int memchan_grant(struct memchan_dev *md, struct memchan_file *f,
			 struct memchan_grant *g)
{
	bool tx = g->flags == MEMCHAN_GRANT_TX;
	u32 p, last;
	int ret = 0, i;

	if (g->flags != MEMCHAN_GRANT_TX && g->flags != MEMCHAN_GRANT_RX)
		return -EINVAL;
	if (!g->count || g->first_page >= md->page_count ||
	    g->count > md->page_count - g->first_page)
		return -EINVAL;
	if (tx) {
		if (g->rx_flags || !(g->tx_entry & MC_TX_PCT_TX_EN_MASK))
			return -EINVAL;
		ret = memchan_check_tx_entry(md, g->tx_entry);
	} else {
		if (g->tx_entry || (g->rx_flags & ~MEMCHAN_RX_FLAGS))
			return -EINVAL;
		ret = memchan_rx_supported(md, memchan_rx_flags_pct(g->rx_flags));
	}
	if (ret)
		return ret;
	if (md->node_id == MEMCHAN_NODE_NONE)
		return -ENXIO;
	last = g->first_page + g->count;

	for (p = g->first_page; p < last; p++) {
		if (test_bit(p, tx ? f->tx_map : f->rx_map))
			return -EEXIST;
		if (tx) {
			u32 cur = md->be->tx_pct_read(md, p);

			if ((cur & MC_TX_PCT_TX_EN_MASK) && cur != g->tx_entry)
				return -EBUSY;
		}
	}
	for (p = g->first_page; p < last; p++) {
		if (tx) {
			if (md->tx_users[p] == 0) {
				ret = md->be->tx_pct_write(md, p, g->tx_entry);
				if (ret)
					break;
			}
			md->tx_users[p]++;
			set_bit(p, f->tx_map);
		} else {
			/*
			 * A private receive page (hardware) is received throughout, so it holds
			 * what the node received (memchan_rx_always); the first local receiver
			 * counts the accesses it serves from zero, as the region's home
			 */
			if (md->rx_users[p] == 0 && md->be->page_counters_clear)
				md->be->page_counters_clear(md, p);
			md->rx_users[p]++;
			for (i = 0; i < MEMCHAN_RX_ATTRS; i++) {
				if (g->rx_flags & memchan_rx_attrs[i].flag) {
					md->rx_attr_users[i][p]++;
					set_bit(p, f->rx_attr_map[i]);
				}
			}
			set_bit(p, f->rx_map);
			ret = md->be->rx_pct_write(md, p, memchan_rx_entry(md, p));
			if (ret) {
				md->grants++;
				p++;
				break;
			}
		}
		md->grants++;
	}
	if (ret) {
		memchan_drop_grants(md, f, tx, g->first_page, p - g->first_page);
		return ret;
	}
	g->mmap_offset = memchan_page_offset(md, tx, g->first_page);
	return 0;
}

static int memchan_revoke(struct memchan_dev *md, struct memchan_file *f,
			  struct memchan_grant *g)
{
	bool tx = g->flags == MEMCHAN_GRANT_TX;
	u32 p;

	if (g->flags != MEMCHAN_GRANT_TX && g->flags != MEMCHAN_GRANT_RX)
		return -EINVAL;
	if (g->tx_entry || g->rx_flags)
		return -EINVAL;
	if (!g->count || g->first_page >= md->page_count ||
	    g->count > md->page_count - g->first_page)
		return -EINVAL;
	for (p = g->first_page; p < g->first_page + g->count; p++)
		if (!test_bit(p, tx ? f->tx_map : f->rx_map))
			return -EACCES;
	memchan_drop_grants(md, f, tx, g->first_page, g->count);
	g->mmap_offset = memchan_page_offset(md, tx, g->first_page);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* ioctl handlers: run with md->lock held and !md->removed */

static int memchan_ioc_info(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_info *in = arg;
	const struct memchan_backend *be = md->be;

	if (in->flags)
		return -EINVAL;
	memset(in, 0, sizeof(*in));
	in->api_version = MEMCHAN_API_VERSION;
	in->backend = be->kind;
	in->regmap_version = md->regmap_version;
	in->caps = md->caps;
	in->node_id = md->node_id;
	if (md->node_id != MEMCHAN_NODE_NONE)
		in->flags |= MEMCHAN_INFO_NODE_VALID;
	if (md->node_auto)
		in->flags |= MEMCHAN_INFO_NODE_AUTO;
	in->flags |= MEMCHAN_INFO_RX_ATTRS | MEMCHAN_INFO_REMOTE;
	if (be->mcast_group)
		in->flags |= MEMCHAN_INFO_MCAST_REGS;
	if (be->notify_data && be->notify_queue)
		in->flags |= MEMCHAN_INFO_NOTIFY_DATA;
	in->max_nodes = md->max_nodes;
	in->page_size = md->page_size;
	in->page_count = md->page_count;
	in->link_status = be->reg_read(md, MC_REG_LINK_STATUS);
	in->loopback = be->reg_read(md, MC_REG_LOOPBACK) & MC_LOOPBACK_MODE_MASK;
	in->window_size = (u64)md->page_count * md->page_size;
	in->tx_mmap_base = MEMCHAN_MMAP_TX_BASE;
	in->rx_mmap_base = MEMCHAN_MMAP_RX_BASE;
	in->tx_packets = be->reg_read(md, MC_REG_TX_PACKETS);
	in->tx_bytes = be->reg_read(md, MC_REG_TX_BYTES);
	in->rx_packets = be->reg_read(md, MC_REG_RX_PACKETS);
	in->rx_bytes = be->reg_read(md, MC_REG_RX_BYTES);
	in->tx_drop_disabled = be->reg_read(md, MC_REG_TX_DROP_DISABLED);
	in->rx_drop_disabled = be->reg_read(md, MC_REG_RX_DROP_DISABLED);
	in->crc_errors = be->reg_read(md, MC_REG_CRC_ERRORS);
	in->link_retries = be->reg_read(md, MC_REG_LINK_RETRIES);
	in->error_count = be->reg_read(md, MC_REG_ERROR_COUNT);
	in->acks_received = be->reg_read(md, MC_REG_ACKS_RECEIVED);
	in->notify_count = be->reg_read(md, MC_REG_NOTIFY_COUNT);
	in->ack_outstanding = be->reg_read(md, MC_REG_ACK_OUTSTANDING);
	in->incarnation = md->incarnation;
	return 0;
}

static int memchan_ioc_reg_read(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_reg *r = arg;

	if (r->flags || r->value)
		return -EINVAL;
	if (r->offset >= MC_SF_NODE_REGS_SIZE || r->offset % 4)
		return -EINVAL;
	r->value = md->be->reg_read(md, r->offset);
	return 0;
}

static int memchan_ioc_mcast_group(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_mcast_group *g = arg;
	u32 nodes = md->max_nodes >= 32 ? ~0U : (1U << md->max_nodes) - 1;

	if (g->flags & ~MEMCHAN_MCAST_WRITE)
		return -EINVAL;
	if (g->group >= MC_MULTICAST_GROUPS)
		return -EINVAL;
	if (!(g->flags & MEMCHAN_MCAST_WRITE) && g->mask)
		return -EINVAL;
	if (g->mask & ~nodes)
		return -EINVAL;
	if (!md->be->mcast_group)
		return -EOPNOTSUPP;
	md->be->mcast_group(md, g->group, g->flags & MEMCHAN_MCAST_WRITE, &g->mask);
	return 0;
}

static int memchan_ioc_release_node(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_release *r = arg;
	int ret;

	if (r->flags || r->released)
		return -EINVAL;
	if (r->node >= md->max_nodes || r->node == md->node_id)
		return -EINVAL;
	ret = md->be->release_node(md, r->node, r->incarnation);
	if (ret < 0)
		return ret;
	r->released = ret;
	return 0;
}

/* every receive entry as memchan_rx_entry says (at probe, after a node-ID change), or off */
static int memchan_sync_rx(struct memchan_dev *md, bool off)
{
	u32 p;
	int ret;

	if (!md->be->rx_private)
		return 0;
	for (p = 0; p < md->page_count; p++) {
		ret = md->be->rx_pct_write(md, p, off ? 0 : memchan_rx_entry(md, p));
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * A private receive area holds what the node received under its earlier ID (no grants are
 * left: set_node refuses with grants held): receive nothing while it is zeroed, so the new ID
 * starts from zeros as the soft fabric's pages do, then receive under the new one. Without an
 * ID every entry is already off (no grant, no raw PCT write without one), and stays off: each
 * pass over the PCT costs four register accesses a page, slow on a co-simulated board.
 */
static int memchan_rx_restart(struct memchan_dev *md, bool was_receiving)
{
	int ret;

	if (!md->be->rx_private)
		return 0;
	if (was_receiving) {
		ret = memchan_sync_rx(md, true);
		if (ret)
			return ret;
	}
	md->be->rx_clear(md);
	return memchan_rx_always(md) ? memchan_sync_rx(md, false) : 0;
}

static int memchan_ioc_set_node(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_node *n = arg;
	bool was_receiving;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if ((n->flags & ~(MEMCHAN_NODE_TAKEOVER | MEMCHAN_NODE_AUTO)) || n->pad)
		return -EINVAL;
	if (n->flags & MEMCHAN_NODE_AUTO) {
		/* the link chooses: no ID to ask for, no claim to take over */
		if (n->node_id != MEMCHAN_NODE_NONE || (n->flags & MEMCHAN_NODE_TAKEOVER))
			return -EINVAL;
	} else {
		if (n->node_id != MEMCHAN_NODE_NONE && n->node_id >= md->max_nodes)
			return -EINVAL;
		if (n->node_id == md->node_id)
			return 0;
	}
	if (md->grants)
		return -EBUSY;
	was_receiving = memchan_rx_always(md);
	ret = md->be->set_node(md, n->node_id, n->flags);
	if (ret)
		return ret;
	return memchan_rx_restart(md, was_receiving);
}

static int memchan_ioc_pct(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_pct *pc = arg;
	int ret;

	if (pc->flags & ~(MEMCHAN_PCT_WRITE_TX | MEMCHAN_PCT_WRITE_RX))
		return -EINVAL;
	if (pc->page >= md->page_count)
		return -EINVAL;
	if (pc->flags) {
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		if (md->node_id == MEMCHAN_NODE_NONE)
			return -ENXIO;
		if (pc->flags & MEMCHAN_PCT_WRITE_TX) {
			ret = memchan_check_tx_entry(md, pc->tx_entry);
			if (!ret && md->be->tx_route_check && (pc->tx_entry & MC_TX_PCT_TX_EN_MASK))
				ret = md->be->tx_route_check(md, pc->page, pc->tx_entry);
			if (ret)
				return ret;
		}
		if (pc->flags & MEMCHAN_PCT_WRITE_RX) {
			ret = memchan_check_rx_entry(md, pc->rx_entry);
			if (ret)
				return ret;
		}
		if (pc->flags & MEMCHAN_PCT_WRITE_TX) {
			ret = md->be->tx_pct_write(md, pc->page, pc->tx_entry);
			if (ret)
				return ret;
		}
		if (pc->flags & MEMCHAN_PCT_WRITE_RX) {
			ret = md->be->rx_pct_write(md, pc->page, pc->rx_entry);
			if (ret)
				return ret;
		}
	} else if (pc->tx_entry || pc->rx_entry) {
		return -EINVAL;
	}
	pc->tx_entry = md->be->tx_pct_read(md, pc->page);
	pc->rx_entry = md->be->rx_pct_read(md, pc->page);
	/* bus addresses of receive pages are for the privileged tool only */
	if (!capable(CAP_SYS_ADMIN))
		pc->rx_entry &= ~(MC_RX_PCT_REMAP_ADDR_MASK | MC_RX_PCT_REMAP_EN_MASK);
	return 0;
}

static int memchan_ioc_grant(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	return memchan_grant(md, f, arg);
}

static int memchan_ioc_revoke(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	return memchan_revoke(md, f, arg);
}

static int memchan_ioc_barrier(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_barrier *b = arg;
	u64 t = b->timeout_ns ? b->timeout_ns : 100 * NSEC_PER_MSEC;

	if (b->flags || b->pad || b->ack_outstanding)
		return -EINVAL;
	if (t > 10ULL * NSEC_PER_SEC)
		return -EINVAL;
	return md->be->ack_sweep(md, t, &b->ack_outstanding);
}

static int memchan_ioc_eventfd(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_eventfd *e = arg;
	struct eventfd_ctx *ctx = NULL, *old;

	if (e->flags || e->pad)
		return -EINVAL;
	if (e->fd != -1) {
		if (e->fd < 0)
			return -EINVAL;
		ctx = eventfd_ctx_fdget(e->fd);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
	}
	spin_lock(&md->files_lock);
	old = f->efd;
	f->efd = ctx;
	spin_unlock(&md->files_lock);
	if (old)
		eventfd_ctx_put(old);
	return 0;
}

static int memchan_ioc_notify(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_notify *n = arg;

	if (n->flags || n->nodes)
		return -EINVAL;
	if (n->page >= md->page_count)
		return -EINVAL;
	if (!md->be->notify)
		return -EOPNOTSUPP;
	if (!test_bit(n->page, f->tx_map))
		return -EACCES;
	return md->be->notify(md, n->page, &n->nodes);
}

static int memchan_ioc_loopback(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_loopback *l = arg;

	if (l->flags || l->pad)
		return -EINVAL;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (l->mode > MC_LOOPBACK_MODE_EXTERNAL)
		return -EINVAL;
	return md->be->loopback(md, l->mode);
}

static int memchan_ioc_errcnt(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_errcnt *e = arg;

	if ((e->flags & ~MEMCHAN_ERRCNT_CHECK) || e->pad || e->count || e->changed)
		return -EINVAL;
	if (!(e->flags & MEMCHAN_ERRCNT_CHECK) && e->since)
		return -EINVAL;
	e->count = md->be->reg_read(md, MC_REG_ERROR_COUNT);
	if (e->flags & MEMCHAN_ERRCNT_CHECK)
		e->changed = e->count != e->since;
	return 0;
}

/* MEMCHAN_REMOTE input the home never sees: 0 or the error; md->lock held */
static int memchan_remote_check(struct memchan_dev *md, struct memchan_remote *r)
{
	u64 window = (u64)md->page_count * md->page_size;
	bool range = r->op == MEMCHAN_REMOTE_CHECK || r->op == MEMCHAN_REMOTE_COPY;
	u32 cap;

	if (r->flags || r->result || r->op > MEMCHAN_REMOTE_COPY || r->home >= md->max_nodes)
		return -EINVAL;
	if (r->compare && r->op != MEMCHAN_REMOTE_CAS)
		return -EINVAL;
	if (r->buffer && r->op != MEMCHAN_REMOTE_COPY)
		return -EINVAL;
	if (range) {
		if (!r->operand || r->addr >= window || r->operand > window - r->addr ||
		    (r->op == MEMCHAN_REMOTE_COPY && r->operand > MEMCHAN_REMOTE_COPY_MAX))
			return -EINVAL;
	} else if (r->addr > window - sizeof(u64) ||
		   (r->operand && r->op == MEMCHAN_REMOTE_READ)) {
		return -EINVAL;
	}
	switch (r->op) {
	case MEMCHAN_REMOTE_READ:
	case MEMCHAN_REMOTE_COPY:
		cap = MC_CAPS_REMOTE_READ_MASK;
		break;
	case MEMCHAN_REMOTE_CHECK:
		cap = md->caps & (MC_CAPS_REMOTE_READ_MASK | MC_CAPS_ATOMICS_MASK);
		if (!cap)
			return -EOPNOTSUPP;
		break;
	default:
		cap = MC_CAPS_ATOMICS_MASK;
	}
	if ((md->caps & cap) != cap)
		return -EOPNOTSUPP;
	if (md->node_id == MEMCHAN_NODE_NONE)
		return -ENXIO;
	if (r->op == MEMCHAN_REMOTE_COPY ? !md->be->remote_copy : !md->be->remote)
		return -EOPNOTSUPP;
	return 0;
}

static int memchan_ioc_remote(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_remote *r = arg;
	int ret = memchan_remote_check(md, r);

	if (ret)
		return ret;
	if (r->op == MEMCHAN_REMOTE_COPY)
		return -EINVAL;	/* memchan_ioc_remote_copy: it writes user memory */
	return md->be->remote(md, r);
}

/*
 * MEMCHAN_REMOTE_COPY runs the copy from the home's pages under md->lock into a
 * kernel buffer and writes user memory after dropping it: md->lock is never held
 * across user copies (a fault there may need the mmap path's locks).
 */
static int memchan_ioc_remote_copy(struct memchan_dev *md, struct memchan_remote *r)
{
	void *buf;
	int ret;

	if (!r->operand || r->operand > MEMCHAN_REMOTE_COPY_MAX)
		return -EINVAL;
	buf = kvmalloc(r->operand, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&md->lock);
	ret = md->removed ? -ENODEV : memchan_remote_check(md, r);
	if (!ret)
		ret = md->be->remote_copy(md, r, buf);
	mutex_unlock(&md->lock);
	if (!ret && copy_to_user(u64_to_user_ptr(r->buffer), buf, r->operand))
		ret = -EFAULT;
	kvfree(buf);
	return ret;
}

static int memchan_ioc_page_counters(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_page_counters *pc = arg;

	if ((pc->flags & ~(MEMCHAN_PAGE_SET_THRESHOLD | MEMCHAN_PAGE_TAKE_HOT)) ||
	    pc->page >= md->page_count || pc->reads || pc->atomics || pc->hot || pc->pad)
		return -EINVAL;
	if (pc->threshold && !(pc->flags & MEMCHAN_PAGE_SET_THRESHOLD))
		return -EINVAL;
	if (md->node_id == MEMCHAN_NODE_NONE)
		return -ENXIO;
	if (!(md->caps & MC_CAPS_PAGE_COUNTERS_MASK) || !md->be->page_counters)
		return -EOPNOTSUPP;
	return md->be->page_counters(md, pc);
}

static int memchan_ioc_notify_data(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_notify_data *n = arg;

	if (n->flags || n->pad || n->queued)
		return -EINVAL;
	if (n->node >= md->max_nodes || n->page >= md->page_count ||
	    n->payload > MC_NQ_ENTRY_PAYLOAD_MASK >> MC_NQ_ENTRY_PAYLOAD_SHIFT)
		return -EINVAL;
	if (md->node_id == MEMCHAN_NODE_NONE)
		return -ENXIO;
	if (!md->be->notify_data)
		return -EOPNOTSUPP;
	return md->be->notify_data(md, n);
}

static int memchan_ioc_notify_queue(struct memchan_dev *md, struct memchan_file *f, void *arg)
{
	struct memchan_notify_queue *q = arg;

	if ((q->flags & ~MEMCHAN_NQ_TAKE) || q->pad || q->entry || q->overflow || q->pending)
		return -EINVAL;
	if (q->page >= md->page_count)
		return -EINVAL;
	if (md->node_id == MEMCHAN_NODE_NONE)
		return -ENXIO;
	if (!md->be->notify_queue)
		return -EOPNOTSUPP;
	if (!test_bit(q->page, f->rx_map))
		return -EACCES;
	return md->be->notify_queue(md, q);
}

/* MEMCHAN_WAIT runs without md->lock: it sleeps. */
static int memchan_ioc_wait(struct memchan_dev *md, struct memchan_file *f,
			    struct memchan_wait *w)
{
	long left;
	u64 t = w->timeout_ns;
	u32 from = w->count;

	if (w->flags || w->pad)
		return -EINVAL;
	if (t > 3600ULL * NSEC_PER_SEC)
		return -EINVAL;
	/*
	 * Callers compare with the live register (MEMCHAN_REG_READ); the cached
	 * count may lag it by one poll period on ivshmem: catch up first, so a
	 * waiter never spins on a stale cache.
	 */
	mutex_lock(&md->lock);
	if (!md->removed) {
		u32 cur = md->be->reg_read(md, MC_REG_NOTIFY_COUNT);

		if (cur != READ_ONCE(md->notify_count))
			memchan_notify_arrived(md, cur);
	}
	mutex_unlock(&md->lock);
	if (t && READ_ONCE(md->notify_count) == from) {
		unsigned long jiff = max_t(unsigned long, 1, nsecs_to_jiffies(t));

		left = wait_event_interruptible_timeout(md->wq,
							READ_ONCE(md->notify_count) != from ||
							READ_ONCE(md->removed), jiff);
		if (left < 0)
			return -EINTR;
	}
	if (READ_ONCE(md->removed))
		return -ENODEV;
	w->count = READ_ONCE(md->notify_count);
	f->seen = w->count;
	return w->count == from ? -ETIMEDOUT : 0;
}

struct memchan_ioc_desc {
	unsigned int cmd;
	u32 size;
	bool locked;
	int (*fn)(struct memchan_dev *md, struct memchan_file *f, void *arg);
};

static const struct memchan_ioc_desc memchan_iocs[] = {
	{ MEMCHAN_INFO, sizeof(struct memchan_info), true, memchan_ioc_info },
	{ MEMCHAN_SET_NODE, sizeof(struct memchan_node), true, memchan_ioc_set_node },
	{ MEMCHAN_PCT, sizeof(struct memchan_pct), true, memchan_ioc_pct },
	{ MEMCHAN_GRANT, sizeof(struct memchan_grant), true, memchan_ioc_grant },
	{ MEMCHAN_REVOKE, sizeof(struct memchan_grant), true, memchan_ioc_revoke },
	{ MEMCHAN_BARRIER, sizeof(struct memchan_barrier), true, memchan_ioc_barrier },
	{ MEMCHAN_WAIT, sizeof(struct memchan_wait), false, NULL },
	{ MEMCHAN_SET_EVENTFD, sizeof(struct memchan_eventfd), true, memchan_ioc_eventfd },
	{ MEMCHAN_NOTIFY, sizeof(struct memchan_notify), true, memchan_ioc_notify },
	{ MEMCHAN_LOOPBACK, sizeof(struct memchan_loopback), true, memchan_ioc_loopback },
	{ MEMCHAN_ERRCNT, sizeof(struct memchan_errcnt), true, memchan_ioc_errcnt },
	{ MEMCHAN_REG_READ, sizeof(struct memchan_reg), true, memchan_ioc_reg_read },
	{ MEMCHAN_RELEASE_NODE, sizeof(struct memchan_release), true, memchan_ioc_release_node },
	{ MEMCHAN_REMOTE, sizeof(struct memchan_remote), true, memchan_ioc_remote },
	{ MEMCHAN_PAGE_COUNTERS, sizeof(struct memchan_page_counters), true,
	  memchan_ioc_page_counters },
	{ MEMCHAN_MCAST_GROUP, sizeof(struct memchan_mcast_group), true, memchan_ioc_mcast_group },
	{ MEMCHAN_NOTIFY_DATA, sizeof(struct memchan_notify_data), true, memchan_ioc_notify_data },
	{ MEMCHAN_NOTIFY_QUEUE, sizeof(struct memchan_notify_queue), true,
	  memchan_ioc_notify_queue },
};

union memchan_ioc_arg {
	struct memchan_info info;
	struct memchan_node node;
	struct memchan_pct pct;
	struct memchan_grant grant;
	struct memchan_barrier barrier;
	struct memchan_wait wait;
	struct memchan_eventfd efd;
	struct memchan_notify notify;
	struct memchan_loopback loopback;
	struct memchan_errcnt errcnt;
	struct memchan_reg reg;
	struct memchan_release release;
	struct memchan_remote remote;
	struct memchan_page_counters counters;
	struct memchan_mcast_group mcast;
	struct memchan_notify_data notify_data;
	struct memchan_notify_queue notify_queue;
};

static long memchan_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct memchan_file *f = file->private_data;
	struct memchan_dev *md = f->md;
	void __user *uarg = (void __user *)arg;
	const struct memchan_ioc_desc *d = NULL;
	union memchan_ioc_arg karg;
	u32 argsz;
	size_t i;
	int ret;

	if (cmd == MEMCHAN_GET_API_VERSION)
		return arg ? -EINVAL : MEMCHAN_API_VERSION;
	for (i = 0; i < ARRAY_SIZE(memchan_iocs); i++)
		if (memchan_iocs[i].cmd == cmd)
			d = &memchan_iocs[i];
	if (!d)
		return -ENOTTY;
	if (get_user(argsz, (u32 __user *)uarg))
		return -EFAULT;
	if (argsz < d->size || argsz > PAGE_SIZE)
		return -EINVAL;
	ret = copy_struct_from_user(&karg, d->size, uarg, argsz);
	if (ret)
		return ret;

	if (!d->locked) {
		ret = memchan_ioc_wait(md, f, &karg.wait);
	} else if (cmd == MEMCHAN_REMOTE && karg.remote.op == MEMCHAN_REMOTE_COPY) {
		ret = memchan_ioc_remote_copy(md, &karg.remote);
	} else {
		mutex_lock(&md->lock);
		ret = md->removed ? -ENODEV : d->fn(md, f, &karg);
		mutex_unlock(&md->lock);
	}
	if (ret && ret != -ETIMEDOUT)
		return ret;
	karg.info.argsz = d->size;
	if (copy_to_user(uarg, &karg, d->size))
		return -EFAULT;
	return ret;
}

/* ---------------------------------------------------------------------- */
/* file operations */

static void memchan_file_free(struct memchan_file *f)
{
	int i;

	if (f->inode)
		memchan_inode_free(f->inode);
	kvfree(f->tx_map);
	kvfree(f->rx_map);
	for (i = 0; i < MEMCHAN_RX_ATTRS; i++)
		kvfree(f->rx_attr_map[i]);
	kfree(f);
}

static int memchan_open_common(struct inode *inode, struct file *file,
			       struct memchan_dev *md, bool ctl)
{
	struct memchan_file *f;
	size_t words;
	bool nomem;
	int i;

	if (ctl && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	words = BITS_TO_LONGS(md->page_count);
	f->tx_map = kvcalloc(words, sizeof(long), GFP_KERNEL);
	f->rx_map = kvcalloc(words, sizeof(long), GFP_KERNEL);
	nomem = !f->tx_map || !f->rx_map;
	for (i = 0; i < MEMCHAN_RX_ATTRS; i++) {
		f->rx_attr_map[i] = kvcalloc(words, sizeof(long), GFP_KERNEL);
		nomem |= !f->rx_attr_map[i];
	}
	if (nomem) {
		memchan_file_free(f);
		return -ENOMEM;
	}
	f->inode = memchan_inode_new();
	if (IS_ERR(f->inode)) {
		int ret = PTR_ERR(f->inode);

		f->inode = NULL;
		memchan_file_free(f);
		return ret;
	}
	f->md = md;
	f->ctl = ctl;
	kref_get(&md->kref);
	f->seen = READ_ONCE(md->notify_count);
	mutex_lock(&md->lock);
	spin_lock(&md->files_lock);
	list_add(&f->node, &md->files);
	spin_unlock(&md->files_lock);
	mutex_unlock(&md->lock);
	file->private_data = f;
	file->f_mapping = f->inode->i_mapping;
	return stream_open(inode, file);
}

static int memchan_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;

	return memchan_open_common(inode, file,
				   container_of(misc, struct memchan_dev, misc), false);
}

static int memchan_ctl_open(struct inode *inode, struct file *file)
{
	struct miscdevice *misc = file->private_data;

	return memchan_open_common(inode, file,
				   container_of(misc, struct memchan_dev, misc_ctl), true);
}

static int memchan_release(struct inode *inode, struct file *file)
{
	struct memchan_file *f = file->private_data;
	struct memchan_dev *md = f->md;

	mutex_lock(&md->lock);
	memchan_drop_grants(md, f, true, 0, md->page_count);
	memchan_drop_grants(md, f, false, 0, md->page_count);
	spin_lock(&md->files_lock);
	list_del(&f->node);
	spin_unlock(&md->files_lock);
	mutex_unlock(&md->lock);
	if (f->efd)
		eventfd_ctx_put(f->efd);
	memchan_file_free(f);
	memchan_put(md);
	return 0;
}

static __poll_t memchan_poll(struct file *file, poll_table *wait)
{
	struct memchan_file *f = file->private_data;
	struct memchan_dev *md = f->md;

	poll_wait(file, &md->wq, wait);
	if (READ_ONCE(md->removed))
		return EPOLLERR | EPOLLHUP;
	if (READ_ONCE(md->notify_count) != READ_ONCE(f->seen))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

static ssize_t memchan_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct memchan_file *f = file->private_data;
	struct memchan_dev *md = f->md;
	u64 v;

	if (len < sizeof(v))
		return -EINVAL;
	if (READ_ONCE(md->notify_count) == f->seen && !READ_ONCE(md->removed)) {
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(md->wq,
					     READ_ONCE(md->notify_count) != f->seen ||
					     READ_ONCE(md->removed)))
			return -ERESTARTSYS;
	}
	if (READ_ONCE(md->removed))
		return -ENODEV;
	v = READ_ONCE(md->notify_count);
	f->seen = v;
	if (put_user(v, (u64 __user *)buf))
		return -EFAULT;
	return sizeof(v);
}

/* ---------------------------------------------------------------------- */
/* mmap: every page is inserted at fault time after checking its grant */

static vm_fault_t memchan_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct memchan_file *f = vma->vm_private_data;
	struct memchan_dev *md = f->md;
	u64 off = (u64)vmf->pgoff << PAGE_SHIFT;
	unsigned long pfn = 0;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	bool tx = off < MEMCHAN_MMAP_RX_BASE;
	u32 page;

	down_read(&md->map_lock);
	if (md->removed)
		goto out;
	if (f->ctl) {
		if (off < md->ctl_len)
			pfn = (md->ctl_start + off) >> PAGE_SHIFT;
	} else {
		if (!tx)
			off -= MEMCHAN_MMAP_RX_BASE;
		page = div_u64(off, md->page_size);
		if (page >= md->page_count)
			goto out;
		if (tx && test_bit(page, f->tx_map))
			pfn = md->be->tx_pfn(md, page, off - (u64)page * md->page_size);
		else if (!tx && test_bit(page, f->rx_map) && md->be->rx_pfn)
			pfn = md->be->rx_pfn(md, page, off - (u64)page * md->page_size);
		/* else (be->rx_mmap): populated at mmap time; revoked since: SIGBUS */
	}
	if (pfn)
		ret = vmf_insert_pfn(vma, vmf->address, pfn);
out:
	up_read(&md->map_lock);
	return ret;
}

static const struct vm_operations_struct memchan_vm_ops = {
	.fault = memchan_fault,
};

static int memchan_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct memchan_file *f = file->private_data;
	struct memchan_dev *md = f->md;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;
	u32 first, last, p;
	bool tx;
	int ret = 0;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	down_read(&md->map_lock);
	if (md->removed) {
		ret = -ENODEV;
		goto out;
	}
	if (f->ctl) {
		if (off >= md->ctl_len || len > md->ctl_len - off) {
			ret = -EINVAL;
			goto out;
		}
		vma->vm_page_prot = md->be->ctl_prot(vma->vm_page_prot);
		goto ok;
	}
	tx = off < MEMCHAN_MMAP_RX_BASE;
	if (!tx)
		off -= MEMCHAN_MMAP_RX_BASE;
	if (off >= (u64)md->page_count * md->page_size ||
	    len > (u64)md->page_count * md->page_size - off) {
		ret = -EINVAL;
		goto out;
	}
	first = div_u64(off, md->page_size);
	last = div_u64(off + len - 1, md->page_size);
	for (p = first; p <= last; p++) {
		if (!test_bit(p, tx ? f->tx_map : f->rx_map)) {
			ret = -EACCES;
			goto out;
		}
	}
	if (tx) {
		vma->vm_page_prot = md->be->tx_prot(vma->vm_page_prot);
	} else {
		if (vma->vm_flags & VM_WRITE) {
			ret = -EACCES;
			goto out;
		}
		memchan_vm_flags_clear(vma, VM_MAYWRITE);
		vma->vm_page_prot = md->be->rx_prot(vma->vm_page_prot);
		if (md->be->rx_mmap) {
			ret = memchan_mms_add(md);
			if (!ret)
				ret = md->be->rx_mmap(md, vma, off);
			if (ret)
				goto out;
		}
	}
ok:
	memchan_vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = f;
	vma->vm_ops = &memchan_vm_ops;
out:
	up_read(&md->map_lock);
	return ret;
}

static const struct file_operations memchan_fops = {
	.owner = THIS_MODULE,
	.open = memchan_open,
	.release = memchan_release,
	.unlocked_ioctl = memchan_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = memchan_mmap,
	.poll = memchan_poll,
	.read = memchan_read,
};

static const struct file_operations memchan_ctl_fops = {
	.owner = THIS_MODULE,
	.open = memchan_ctl_open,
	.release = memchan_release,
	.unlocked_ioctl = memchan_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = memchan_mmap,
};

/* ---------------------------------------------------------------------- */
/* sysfs (Documentation/ABI/testing/sysfs-class-memchan) */

static struct memchan_dev *memchan_from_dev(struct device *dev)
{
	struct miscdevice *misc = dev_get_drvdata(dev);

	return container_of(misc, struct memchan_dev, misc);
}

static ssize_t memchan_show_reg(struct device *dev, char *buf, u32 reg, const char *fmt)
{
	struct memchan_dev *md = memchan_from_dev(dev);
	ssize_t ret = -ENODEV;

	mutex_lock(&md->lock);
	if (!md->removed)
		ret = sysfs_emit(buf, fmt, md->be->reg_read(md, reg));
	mutex_unlock(&md->lock);
	return ret;
}

static ssize_t node_id_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct memchan_dev *md = memchan_from_dev(dev);
	u32 id = READ_ONCE(md->node_id);

	if (id == MEMCHAN_NODE_NONE)
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%u\n", id);
}
static DEVICE_ATTR_RO(node_id);

static ssize_t link_state_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct memchan_dev *md = memchan_from_dev(dev);
	ssize_t ret = -ENODEV;

	mutex_lock(&md->lock);
	if (!md->removed)
		ret = md->be->link_state(md, buf);
	mutex_unlock(&md->lock);
	return ret;
}
static DEVICE_ATTR_RO(link_state);

static ssize_t version_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct memchan_dev *md = memchan_from_dev(dev);

	return sysfs_emit(buf, "%u.%u api=%u\n",
			  (md->regmap_version & MC_VERSION_MAJOR_MASK) >> MC_VERSION_MAJOR_SHIFT,
			  md->regmap_version & MC_VERSION_MINOR_MASK, MEMCHAN_API_VERSION);
}
static DEVICE_ATTR_RO(version);

static ssize_t backend_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	struct memchan_dev *md = memchan_from_dev(dev);

	return sysfs_emit(buf, "%s\n", md->be->name);
}
static DEVICE_ATTR_RO(backend);

static ssize_t irq_mode_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", memchan_irq_mode(memchan_from_dev(dev)));
}
static DEVICE_ATTR_RO(irq_mode);

static ssize_t page_size_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", memchan_from_dev(dev)->page_size);
}
static DEVICE_ATTR_RO(page_size);

static ssize_t page_count_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", memchan_from_dev(dev)->page_count);
}
static DEVICE_ATTR_RO(page_count);

static struct attribute *memchan_attrs[] = {
	&dev_attr_node_id.attr,
	&dev_attr_link_state.attr,
	&dev_attr_version.attr,
	&dev_attr_backend.attr,
	&dev_attr_irq_mode.attr,
	&dev_attr_page_size.attr,
	&dev_attr_page_count.attr,
	NULL,
};

static const struct attribute_group memchan_attr_group = {
	.attrs = memchan_attrs,
};

#define MEMCHAN_COUNTER_ATTR(_name, _reg)					\
static ssize_t _name##_show(struct device *dev, struct device_attribute *attr,	\
			    char *buf)						\
{										\
	return memchan_show_reg(dev, buf, _reg, "%u\n");			\
}										\
static DEVICE_ATTR_RO(_name)

MEMCHAN_COUNTER_ATTR(tx_packets, MC_REG_TX_PACKETS);
MEMCHAN_COUNTER_ATTR(tx_bytes, MC_REG_TX_BYTES);
MEMCHAN_COUNTER_ATTR(rx_packets, MC_REG_RX_PACKETS);
MEMCHAN_COUNTER_ATTR(rx_bytes, MC_REG_RX_BYTES);
MEMCHAN_COUNTER_ATTR(tx_drop_disabled, MC_REG_TX_DROP_DISABLED);
MEMCHAN_COUNTER_ATTR(rx_drop_disabled, MC_REG_RX_DROP_DISABLED);
MEMCHAN_COUNTER_ATTR(crc_errors, MC_REG_CRC_ERRORS);
MEMCHAN_COUNTER_ATTR(link_retries, MC_REG_LINK_RETRIES);
MEMCHAN_COUNTER_ATTR(error_count, MC_REG_ERROR_COUNT);
MEMCHAN_COUNTER_ATTR(acks_received, MC_REG_ACKS_RECEIVED);
MEMCHAN_COUNTER_ATTR(notify_count, MC_REG_NOTIFY_COUNT);

static struct attribute *memchan_counter_attrs[] = {
	&dev_attr_tx_packets.attr,
	&dev_attr_tx_bytes.attr,
	&dev_attr_rx_packets.attr,
	&dev_attr_rx_bytes.attr,
	&dev_attr_tx_drop_disabled.attr,
	&dev_attr_rx_drop_disabled.attr,
	&dev_attr_crc_errors.attr,
	&dev_attr_link_retries.attr,
	&dev_attr_error_count.attr,
	&dev_attr_acks_received.attr,
	&dev_attr_notify_count.attr,
	NULL,
};

static const struct attribute_group memchan_counter_group = {
	.name = "counters",
	.attrs = memchan_counter_attrs,
};

static const struct attribute_group *memchan_groups[] = {
	&memchan_attr_group,
	&memchan_counter_group,
	NULL,
};

/* ---------------------------------------------------------------------- */
/* PCI */

static int memchan_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	const struct memchan_backend *be = (const struct memchan_backend *)id->driver_data;
	struct memchan_dev *md;
	bool nomem;
	int ret, i;

	if (be->kind == MEMCHAN_BACKEND_IVSHMEM && !memchan_bind_ivshmem)
		return -ENODEV;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;

	md = be->alloc();
	if (!md)
		return -ENOMEM;
	ret = ida_alloc(&memchan_ida, GFP_KERNEL);
	if (ret < 0) {
		be->free(md);
		return ret;
	}
	md->index = ret;
	kref_init(&md->kref);
	md->pdev = pci_dev_get(pdev);
	md->be = be;
	md->node_id = MEMCHAN_NODE_NONE;
	mutex_init(&md->lock);
	init_rwsem(&md->map_lock);
	mutex_init(&md->mms_lock);
	spin_lock_init(&md->files_lock);
	INIT_LIST_HEAD(&md->files);
	init_waitqueue_head(&md->wq);
	snprintf(md->name, sizeof(md->name), MEMCHAN_NAME "%d", md->index);
	snprintf(md->ctl_name, sizeof(md->ctl_name), MEMCHAN_NAME "%d-ctl", md->index);

	ret = be->probe(md);
	if (ret)
		goto err_put;
	if (md->page_size < PAGE_SIZE || md->page_size % PAGE_SIZE) {
		dev_err(&pdev->dev, "network page size %u unsupported with PAGE_SIZE %lu\n",
			md->page_size, PAGE_SIZE);
		ret = -EINVAL;
		goto err_backend;
	}
	md->tx_users = kvcalloc(md->page_count, sizeof(u32), GFP_KERNEL);
	md->rx_users = kvcalloc(md->page_count, sizeof(u32), GFP_KERNEL);
	nomem = !md->tx_users || !md->rx_users;
	for (i = 0; i < MEMCHAN_RX_ATTRS; i++) {
		md->rx_attr_users[i] = kvcalloc(md->page_count, sizeof(u32), GFP_KERNEL);
		nomem |= !md->rx_attr_users[i];
	}
	if (nomem) {
		ret = -ENOMEM;
		goto err_backend;
	}
	ret = memchan_sync_rx(md, false);	/* an adapter that kept its node ID */
	if (ret)
		goto err_backend;
	pci_set_drvdata(pdev, md);

	md->misc.minor = MISC_DYNAMIC_MINOR;
	md->misc.name = md->name;
	md->misc.fops = &memchan_fops;
	md->misc.parent = &pdev->dev;
	md->misc.groups = memchan_groups;
	ret = misc_register(&md->misc);
	if (ret)
		goto err_backend;

	md->misc_ctl.minor = MISC_DYNAMIC_MINOR;
	md->misc_ctl.name = md->ctl_name;
	md->misc_ctl.fops = &memchan_ctl_fops;
	md->misc_ctl.parent = &pdev->dev;
	md->misc_ctl.mode = 0600;
	ret = misc_register(&md->misc_ctl);
	if (ret)
		goto err_misc;

	dev_info(&pdev->dev, "%s: %s backend, %u pages of %u bytes, %u nodes, irq %s\n",
		 md->name, be->name, md->page_count, md->page_size, md->max_nodes,
		 memchan_irq_mode(md));
	return 0;

err_misc:
	misc_deregister(&md->misc);
err_backend:
	be->remove(md);
err_put:
	memchan_put(md);
	return ret;
}

static void memchan_remove(struct pci_dev *pdev)
{
	struct memchan_dev *md = pci_get_drvdata(pdev);
	struct memchan_file *f;

	/* no new opens, no sysfs readers */
	misc_deregister(&md->misc_ctl);
	misc_deregister(&md->misc);

	mutex_lock(&md->lock);
	/* clear the PCT entries every open file still holds */
	list_for_each_entry(f, &md->files, node) {
		memchan_drop_grants(md, f, true, 0, md->page_count);
		memchan_drop_grants(md, f, false, 0, md->page_count);
	}
	down_write(&md->map_lock);
	WRITE_ONCE(md->removed, true);
	up_write(&md->map_lock);
	/* every mapping goes: a later access faults and gets SIGBUS */
	list_for_each_entry(f, &md->files, node)
		memchan_zap(md, f, 0, 0);
	mutex_unlock(&md->lock);
	wake_up_interruptible_all(&md->wq);

	md->be->remove(md);
	memchan_put(md);
}

static const struct pci_device_id memchan_ids[] = {
	{ PCI_DEVICE(MC_PCI_VENDOR, MC_PCI_DEVICE),
	  .driver_data = (kernel_ulong_t)&memchan_hw_backend },
	{ PCI_DEVICE(MC_IVSHMEM_VENDOR, MC_IVSHMEM_DEVICE),
	  .driver_data = (kernel_ulong_t)&memchan_ivshmem_backend },
	{ }
};
MODULE_DEVICE_TABLE(pci, memchan_ids);

static struct pci_driver memchan_driver = {
	.name = MEMCHAN_NAME,
	.id_table = memchan_ids,
	.probe = memchan_probe,
	.remove = memchan_remove,
};
module_pci_driver(memchan_driver);

MODULE_DESCRIPTION("memchan cluster interconnect: FPGA adapter and ivshmem soft fabric");
MODULE_AUTHOR("memchan project");
MODULE_LICENSE("GPL");
