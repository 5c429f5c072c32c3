/* SPDX-License-Identifier: GPL-2.0 */
/*
 * memchan: internal definitions shared by the core and the two backends.
 */
#ifndef MEMCHAN_H
#define MEMCHAN_H

#include <linux/kref.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/version.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "include/memchan_regs.h"
#include "include/uapi/linux/memchan.h"

#define MEMCHAN_NAME "memchan"

/* receive attributes a grant may ask for (rx_flags): IRQ, remote read, atomics, counter IRQ */
#define MEMCHAN_RX_ATTRS	4

/* vm_flags became read-only (vm_flags_set/clear) in 6.3; DKMS builds for both */
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
#define memchan_vm_flags_set(vma, f)	vm_flags_set(vma, f)
#define memchan_vm_flags_clear(vma, f)	vm_flags_clear(vma, f)
#else
#define memchan_vm_flags_set(vma, f)	((vma)->vm_flags |= (f))
#define memchan_vm_flags_clear(vma, f)	((vma)->vm_flags &= ~(f))
#endif

struct memchan_dev;

/* how the hardware backend learns of IRQ_STATUS causes (sysfs irq_mode) */
enum memchan_irq_kind {
	MEMCHAN_IRQ_NONE,			/* ivshmem backend: no adapter interrupts */
	MEMCHAN_IRQ_MSIX,
	MEMCHAN_IRQ_MSI,
	MEMCHAN_IRQ_INTX,
	MEMCHAN_IRQ_POLL,			/* delayed work every poll_ms */
};

/*
 * Backend operations: the core reaches a backend only through these.
 * alloc/free create and destroy the backend's own structure, which embeds
 * struct memchan_dev (container_of); free runs when the last reference goes,
 * after remove. probe/remove bind and unbind the PCI function. The others
 * are called with md->lock held and md->removed false, except the mapping
 * helpers: tx_pfn/rx_pfn run in the fault path under md->map_lock (read),
 * rx_mmap in the mmap path under md->map_lock (read), with md->removed false.
 */
struct memchan_backend {
	u32 kind;				/* MEMCHAN_BACKEND_* */
	const char *name;			/* sysfs backend */
	/*
	 * Receive pages are this node's own copy, holding only what the adapter delivered while
	 * their RX PCT entry was on (hardware: every page while the node has an ID); not a view of
	 * shared memory (ivshmem).
	 */
	bool rx_private;

	struct memchan_dev *(*alloc)(void);
	void (*free)(struct memchan_dev *md);
	/* fill the geometry (page_size, page_count, max_nodes, caps, ...) */
	int (*probe)(struct memchan_dev *md);
	void (*remove)(struct memchan_dev *md);
	ssize_t (*link_state)(struct memchan_dev *md, char *buf);
	enum memchan_irq_kind (*irq_kind)(struct memchan_dev *md);

	/* BAR0 register (hardware) or own node block register (ivshmem); 0 if none */
	u32 (*reg_read)(struct memchan_dev *md, u32 off);
	u32 (*tx_pct_read)(struct memchan_dev *md, u32 page);
	u64 (*rx_pct_read)(struct memchan_dev *md, u32 page);
	/* entry validated by the core (reserved bits, ranges); backend checks routes */
	int (*tx_pct_write)(struct memchan_dev *md, u32 page, u32 entry);
	/*
	 * a raw write (MEMCHAN_PCT) of a TX entry with TX_EN: -EBUSY where another node routes the
	 * page elsewhere, as far as the backend can tell; NULL where tx_pct_write checks it itself
	 */
	int (*tx_route_check)(struct memchan_dev *md, u32 page, u32 entry);
	/* entry validated by the core (no REMAP); the backend adds remapping */
	int (*rx_pct_write)(struct memchan_dev *md, u32 page, u64 entry);
	/*
	 * rx_private backends: zero the whole receive area, every RX PCT entry off (a node-ID
	 * change: what it holds was received under the earlier ID).
	 */
	void (*rx_clear)(struct memchan_dev *md);
	int (*set_node)(struct memchan_dev *md, u32 node, u32 flags);
	int (*ack_sweep)(struct memchan_dev *md, u64 timeout_ns, u32 *outstanding);
	/* emulated receive interrupt; NULL where arrival raises it itself */
	int (*notify)(struct memchan_dev *md, u32 page, u32 *nodes);
	int (*loopback)(struct memchan_dev *md, u32 mode);
	/*
	 * MCAST_GROUP[group] (validated by the core): write *mask first if write, then
	 * read it back into *mask. NULL where membership is not an adapter register.
	 */
	void (*mcast_group)(struct memchan_dev *md, u32 group, bool write, u32 *mask);
	/* free a dead node's adapter state if it still holds incarnation; 1 if done */
	int (*release_node)(struct memchan_dev *md, u32 node, u64 incarnation);
	/*
	 * MEMCHAN_REMOTE, input validated by the core (op, home, range, caps, node ID);
	 * the backend is the home's adapter: grant, alignment, counters. NULL: EOPNOTSUPP.
	 */
	int (*remote)(struct memchan_dev *md, struct memchan_remote *r);
	/*
	 * MEMCHAN_REMOTE_COPY, validated by the core: check the grants and copy operand
	 * bytes into the kernel buffer dst (user memory is written after md->lock is dropped)
	 */
	int (*remote_copy)(struct memchan_dev *md, struct memchan_remote *r, void *dst);
	/*
	 * MEMCHAN_NOTIFY_DATA, validated by the core (node, page, payload, node ID): what the
	 * receiver's adapter does with the notification (its RX PCT, its queue, its interrupt).
	 * NULL where the adapter's receive path does that itself (not yet on hardware): EOPNOTSUPP.
	 */
	int (*notify_data)(struct memchan_dev *md, struct memchan_notify_data *n);
	/* MEMCHAN_NOTIFY_QUEUE, validated by the core (page, grant, node ID); NULL: EOPNOTSUPP */
	int (*notify_queue)(struct memchan_dev *md, struct memchan_notify_queue *q);
	/* MEMCHAN_PAGE_COUNTERS, validated by the core; NULL: EOPNOTSUPP */
	int (*page_counters)(struct memchan_dev *md, struct memchan_page_counters *pc);
	/* zero this node's access counters of a page (its first receive grant) */
	void (*page_counters_clear)(struct memchan_dev *md, u32 page);

	/* pfn of byte offset off of a network page, inserted at fault time */
	unsigned long (*tx_pfn)(struct memchan_dev *md, u32 page, u32 off);
	unsigned long (*rx_pfn)(struct memchan_dev *md, u32 page, u32 off);
	/*
	 * Instead of rx_pfn: map the whole receive vma at mmap time, off bytes into
	 * the receive area (granted pages only, checked by the core).
	 */
	int (*rx_mmap)(struct memchan_dev *md, struct vm_area_struct *vma, u64 off);
	pgprot_t (*tx_prot)(pgprot_t prot);
	pgprot_t (*rx_prot)(pgprot_t prot);
	/* control node: protection of what it maps (md->ctl_start/ctl_len) */
	pgprot_t (*ctl_prot)(pgprot_t prot);
};

/* The core state of one adapter, embedded in the backend's structure. */
struct memchan_dev {
	struct kref kref;
	struct pci_dev *pdev;			/* referenced until the last put */
	int index;
	char name[16];
	char ctl_name[24];
	struct miscdevice misc;
	struct miscdevice misc_ctl;
	const struct memchan_backend *be;

	u32 page_size;
	u32 page_count;
	u32 max_nodes;
	u32 caps;
	u32 regmap_version;
	u32 node_id;				/* MEMCHAN_NODE_NONE when unset */
	bool node_auto;				/* node_id was assigned by the link */
	u64 incarnation;			/* of the current node-ID claim */

	struct mutex lock;			/* state; never held across user copies */
	struct rw_semaphore map_lock;		/* fault path vs. revocation */
	bool removed;

	u32 *tx_users;				/* per page: open files holding a tx grant */
	u32 *rx_users;
	u32 *rx_attr_users[MEMCHAN_RX_ATTRS];	/* ... with that receive attribute */
	u32 grants;				/* sum of tx_users and rx_users */

	spinlock_t files_lock;			/* files and each file's efd (irq/poll context) */
	struct list_head files;
	wait_queue_head_t wq;
	u32 notify_count;			/* last NOTIFY_COUNT seen by irq/poll */

	/*
	 * Address spaces that mapped receive pages at mmap time (be->rx_mmap): a
	 * revocation waits for their mmap calls in flight (memchan_zap).
	 */
	struct mutex mms_lock;
	struct mm_struct **mms;
	u32 mms_count;
	u32 mms_size;

	resource_size_t ctl_start;
	resource_size_t ctl_len;
};

struct memchan_file {
	struct memchan_dev *md;
	struct list_head node;
	unsigned long *tx_map;
	unsigned long *rx_map;
	unsigned long *rx_attr_map[MEMCHAN_RX_ATTRS];
	u32 seen;
	struct eventfd_ctx *efd;
	struct inode *inode;	/* address space of this file's mappings (memchan_zap) */
	bool ctl;
};

extern const struct memchan_backend memchan_hw_backend;
extern const struct memchan_backend memchan_ivshmem_backend;
extern unsigned int memchan_poll_ms;
extern unsigned int memchan_heartbeat_ms;

/* core services for the backends */
void memchan_notify_arrived(struct memchan_dev *md, u32 count);

#endif /* MEMCHAN_H */
