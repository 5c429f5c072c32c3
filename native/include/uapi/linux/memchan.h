/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR MIT) */
/*
 * memchan: user ABI of the memchan cluster interconnect driver.
 *
 * This header is the contract between the kernel driver (native/memchan.c)
 * and user space (the Java library's dev: backend, mcctl, the C tests).
 * Register offsets and PCT entry encodings are those of memchan_regs.h
 * (generated from regmap/memchan.toml); they are not repeated here.
 *
 * Rules (Documentation/process/botching-up-ioctls.rst):
 *  - every argument struct starts with __u32 argsz (the size user space
 *    passes, at least the v1 size below) and __u32 flags;
 *  - only __u32/__u64 fields, explicit padding, every struct a multiple of
 *    8 bytes, no pointers;
 *  - unknown flags, non-zero padding/reserved fields and non-zero bytes
 *    beyond the structure the kernel knows are rejected (EINVAL / E2BIG);
 *  - the kernel writes back at most argsz bytes.
 *  - MEMCHAN_GET_API_VERSION returns MEMCHAN_API_VERSION as the ioctl's
 *    return value; a later version only adds ioctls, flags and trailing
 *    fields.
 *
 * The ioctl numbers carry no size (as in VFIO): argsz is the size.
 *
 * mmap offsets (docs/driver.md):
 *   MEMCHAN_MMAP_TX_BASE + page * page_size   transmit window of network
 *        page "page": MAP_SHARED, PROT_READ|PROT_WRITE (write-combining on
 *        hardware); every page of the range must be granted for transmit
 *        to the open file, otherwise EACCES.
 *   MEMCHAN_MMAP_RX_BASE + page * page_size   receive page: MAP_SHARED,
 *        PROT_READ only (PROT_WRITE is refused with EACCES); every page
 *        must be granted for receive to the open file.
 * The control node /dev/memchanN-ctl maps, at offset 0, BAR0 (registers and
 * PCTs) on hardware and the whole soft-fabric file (ivshmem BAR2) on the
 * ivshmem backend.
 */
#ifndef _UAPI_LINUX_MEMCHAN_H
#define _UAPI_LINUX_MEMCHAN_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define MEMCHAN_API_VERSION	1

#define MEMCHAN_MMAP_TX_BASE	0x0ULL
#define MEMCHAN_MMAP_RX_BASE	(1ULL << 40)

#define MEMCHAN_BACKEND_HW	1	/* the FPGA adapter */
#define MEMCHAN_BACKEND_IVSHMEM	2	/* soft fabric on QEMU ivshmem */

#define MEMCHAN_NODE_NONE	0xffffffffU

/* MEMCHAN_INFO: out only; flags must be 0 on entry. */
#define MEMCHAN_INFO_NODE_VALID	(1U << 0)	/* out: a node ID is set */
#define MEMCHAN_INFO_NODE_AUTO	(1U << 1)	/* out: ... assigned by the link (NODE_AUTO) */
/*
 * out: the driver takes MEMCHAN_RX_READ / MEMCHAN_RX_ATOMIC grants and READ_EN /
 * ATOMIC_EN in MEMCHAN_PCT, each where caps has REMOTE_READ / ATOMICS
 */
#define MEMCHAN_INFO_RX_ATTRS	(1U << 2)
/*
 * out: the driver has MEMCHAN_REMOTE, MEMCHAN_PAGE_COUNTERS and the
 * MEMCHAN_RX_COUNT_IRQ grant (each answers EOPNOTSUPP where the backend or caps
 * lacks it)
 */
#define MEMCHAN_INFO_REMOTE	(1U << 3)
/*
 * out: the adapter filters multicast by its own MCAST_GROUP registers, which
 * MEMCHAN_MCAST_GROUP reads and writes (hardware; on ivshmem membership is the
 * directory's mask itself)
 */
#define MEMCHAN_INFO_MCAST_REGS	(1U << 4)
/*
 * out: the driver carries notifications that carry data, MEMCHAN_NOTIFY_DATA and
 * MEMCHAN_NOTIFY_QUEUE (ivshmem; each answers EOPNOTSUPP where this is clear: the
 * board's adapter does not enqueue them yet)
 */
#define MEMCHAN_INFO_NOTIFY_DATA	(1U << 5)
struct memchan_info {
	__u32 argsz;
	__u32 flags;
	__u32 api_version;	/* MEMCHAN_API_VERSION */
	__u32 backend;		/* MEMCHAN_BACKEND_* */
	__u32 regmap_version;	/* VERSION register (MAJOR << 16 | MINOR) */
	__u32 caps;		/* CAPS register */
	__u32 node_id;		/* node ID or MEMCHAN_NODE_NONE */
	__u32 max_nodes;
	__u32 page_size;	/* network page size: 4096 or 8192 */
	__u32 page_count;	/* network pages */
	__u32 link_status;	/* LINK_STATUS register */
	__u32 loopback;		/* LOOPBACK.MODE */
	__u64 window_size;	/* page_count * page_size */
	__u64 tx_mmap_base;	/* MEMCHAN_MMAP_TX_BASE */
	__u64 rx_mmap_base;	/* MEMCHAN_MMAP_RX_BASE */
	/* counters: the registers of the same name */
	__u32 tx_packets;
	__u32 tx_bytes;
	__u32 rx_packets;
	__u32 rx_bytes;
	__u32 tx_drop_disabled;
	__u32 rx_drop_disabled;
	__u32 crc_errors;
	__u32 link_retries;
	__u32 error_count;
	__u32 acks_received;
	__u32 notify_count;
	__u32 ack_outstanding;
	__u64 incarnation;	/* changes at every node-ID claim (ivshmem: INCARNATION) */
};

/*
 * MEMCHAN_SET_NODE: CAP_SYS_ADMIN (else EPERM).
 * MEMCHAN_NODE_AUTO (hardware; node_id MEMCHAN_NODE_NONE): the link assigns
 * the ID, 0 or 1 between two adapters cabled back to back, which turns on the
 * virtual hub that orders both nodes' packets (docs/firmware.md). The call
 * waits until the peer has agreed, at most node_auto_ms (module parameter);
 * on timeout (ETIMEDOUT: no peer announcing AUTO or an ID) or a signal (EINTR)
 * the adapter keeps the node ID it had. EOPNOTSUPP on ivshmem.
 */
#define MEMCHAN_NODE_TAKEOVER	(1U << 0)	/* ivshmem: take over a claim, heartbeat stopped */
#define MEMCHAN_NODE_AUTO	(1U << 1)	/* hardware: the link assigns the node ID */
struct memchan_node {
	__u32 argsz;
	__u32 flags;
	__u32 node_id;		/* 0..max_nodes-1, or MEMCHAN_NODE_NONE to release */
	__u32 pad;		/* must be 0 */
};

/*
 * MEMCHAN_PCT: read one page's TX and RX PCT entries; with the WRITE flags
 * (CAP_SYS_ADMIN, else EPERM) write them first. Entries use the encodings
 * of memchan_regs.h; reserved bits, REMAP_EN/REMAP_ADDR (the driver owns
 * receive-side remapping) and out-of-range destinations are refused (EINVAL);
 * READ_EN / ATOMIC_EN / COUNT_IRQ where caps lacks REMOTE_READ / ATOMICS /
 * PAGE_COUNTERS with EOPNOTSUPP. A refused write changes neither entry.
 */
#define MEMCHAN_PCT_WRITE_TX	(1U << 0)
#define MEMCHAN_PCT_WRITE_RX	(1U << 1)
struct memchan_pct {
	__u32 argsz;
	__u32 flags;
	__u32 page;
	__u32 tx_entry;
	__u64 rx_entry;
};

/*
 * MEMCHAN_GRANT / MEMCHAN_REVOKE: give (take back) this open file the right
 * to map pages first_page..first_page+count-1 for transmit (MEMCHAN_GRANT_TX,
 * tx_entry = the TX PCT entry to program, TX_EN set) or receive
 * (MEMCHAN_GRANT_RX, rx_flags = MEMCHAN_RX_* or 0). Exactly one of TX/RX.
 * A receive page's RX PCT entry has RX_EN and each attribute that at least
 * one open file's grant of it asks for. MEMCHAN_RX_READ / MEMCHAN_RX_ATOMIC /
 * MEMCHAN_RX_COUNT_IRQ where caps lacks REMOTE_READ / ATOMICS / PAGE_COUNTERS:
 * EOPNOTSUPP, nothing granted.
 * A grant fails with EBUSY when a page already carries a different route on
 * this node or (ivshmem) another node's TX PCT routes it elsewhere; with
 * EEXIST when this file already holds that grant; ENXIO without a node ID.
 * The PCT entry stays while any open file holds a grant; it is cleared when
 * the last one goes. REVOKE of a page the file does not hold: EACCES; it
 * unmaps the file's mappings of the range (later access: SIGBUS).
 * Out: mmap_offset of first_page in the direction granted.
 */
#define MEMCHAN_GRANT_TX	(1U << 0)
#define MEMCHAN_GRANT_RX	(1U << 1)
#define MEMCHAN_RX_IRQ		(1U << 0)	/* rx_flags: notify on arrival (IRQ_ON_RX) */
#define MEMCHAN_RX_READ		(1U << 1)	/* rx_flags: other nodes may read (READ_EN) */
#define MEMCHAN_RX_ATOMIC	(1U << 2)	/* rx_flags: ... run atomics on it (ATOMIC_EN) */
#define MEMCHAN_RX_COUNT_IRQ	(1U << 3)	/* rx_flags: PAGE_HOT at threshold (COUNT_IRQ) */
struct memchan_grant {
	__u32 argsz;
	__u32 flags;
	__u32 first_page;
	__u32 count;
	__u32 tx_entry;
	__u32 rx_flags;
	__u64 mmap_offset;	/* out */
};

/*
 * MEMCHAN_BARRIER: acknowledge sweep. Returns when every earlier store of the
 * caller has been acknowledged (hardware: BARRIER.DONE) or fails with
 * ETIMEDOUT after timeout_ns (0: 100 ms).
 */
struct memchan_barrier {
	__u32 argsz;
	__u32 flags;
	__u64 timeout_ns;
	__u32 ack_outstanding;	/* out */
	__u32 pad;
};

/*
 * MEMCHAN_WAIT: sleep until NOTIFY_COUNT differs from count (in) or
 * timeout_ns passes (0: do not sleep); count (out) is the current value,
 * also acknowledged for poll() on this file. ETIMEDOUT on timeout,
 * EINTR on a signal. poll() reports EPOLLIN while NOTIFY_COUNT differs from
 * the value last acknowledged by MEMCHAN_WAIT or read() (8 bytes: the count
 * as __u64) on the file.
 */
struct memchan_wait {
	__u32 argsz;
	__u32 flags;
	__u64 timeout_ns;
	__u32 count;
	__u32 pad;
};

/* MEMCHAN_SET_EVENTFD: signal eventfd fd at every notification; fd -1 clears. */
struct memchan_eventfd {
	__u32 argsz;
	__u32 flags;
	__s32 fd;
	__u32 pad;
};

/*
 * MEMCHAN_NOTIFY: emulated receive interrupt (ivshmem): for every node whose
 * RX PCT entry of page has RX_EN|IRQ_ON_RX, set IRQ_STATUS.RX_NOTIFY, store
 * RX_NOTIFY_PAGE and increment NOTIFY_COUNT. The file must hold a transmit
 * grant of page (EACCES). On hardware arrival raises the interrupt itself:
 * EOPNOTSUPP. Out: nodes = mask of nodes notified.
 */
struct memchan_notify {
	__u32 argsz;
	__u32 flags;
	__u32 page;
	__u32 nodes;		/* out */
};

/* MEMCHAN_LOOPBACK: set LOOPBACK.MODE (CAP_SYS_ADMIN); mode 0 off, 1 internal, 2 external. */
struct memchan_loopback {
	__u32 argsz;
	__u32 flags;
	__u32 mode;
	__u32 pad;
};

/*
 * MEMCHAN_ERRCNT: read ERROR_COUNT (imc_rderrcnt). With MEMCHAN_ERRCNT_CHECK
 * also compare it with since (imc_ckerrcnt): changed = 1 when it differs.
 */
#define MEMCHAN_ERRCNT_CHECK	(1U << 0)
struct memchan_errcnt {
	__u32 argsz;
	__u32 flags;
	__u32 since;
	__u32 count;		/* out */
	__u32 changed;		/* out */
	__u32 pad;
};

/*
 * MEMCHAN_REG_READ: read the 32-bit register at offset (below 0x1000, 4-byte
 * aligned) of the BAR0 register block (hardware) or of this node's register
 * block in the soft-fabric file (ivshmem; 0 while no node ID is set). One
 * read has one side effect: reading GLOBAL_TIME_LO latches GLOBAL_TIME_HI
 * (read LO, then HI; two readers can interleave). Every other read has none
 * (IRQ_STATUS is write-1-to-clear).
 */
struct memchan_reg {
	__u32 argsz;
	__u32 flags;
	__u32 offset;
	__u32 value;		/* out */
};

/*
 * MEMCHAN_RELEASE_NODE: the cluster service has cleaned up dead node "node"
 * whose claim had this incarnation; free its adapter-side state where this
 * backend can see it. ivshmem: when that node block's OWNER still holds
 * incarnation and its HOST_ID is not this kernel's (a block another device
 * bound here claimed stays claimed), clear its TX/RX PCTs and NODE_ID and
 * release OWNER (released = 1); otherwise nothing. Hardware: nothing (each
 * adapter holds only its own PCT). Refused for this node's own ID (EINVAL).
 */
struct memchan_release {
	__u32 argsz;
	__u32 flags;
	__u32 node;
	__u32 released;		/* out */
	__u64 incarnation;
};

/*
 * MEMCHAN_REMOTE (MEMCHAN_INFO_REMOTE): one remote operation on the memory of
 * node home (this node too) at network byte address addr, served as the home's
 * adapter serves it: the home's RX PCT entry of the page must have READ_EN
 * (READ) or ATOMIC_EN (FETCH_ADD, SWAP, CAS) and addr must be 8-byte aligned;
 * otherwise the home refuses: EACCES, counted in the home's REMOTE_REFUSED,
 * nothing read or changed. The grant is the home's alone: the caller needs no
 * grant of the page, and gets no mapping of it (a page it may read or run
 * atomics on stays unwritable by it). A served operation counts in the home's
 * page counters (MEMCHAN_PAGE_COUNTERS) and is a full memory barrier.
 *   READ       result = the word
 *   FETCH_ADD  word += operand; result = the old word
 *   SWAP       word = operand; result = the old word
 *   CAS        if word == compare, word = operand; result = the old word
 *   CHECK      nothing read: refused (EACCES, counted) unless every page of
 *              addr..addr+operand-1 has READ_EN or ATOMIC_EN at home (a region
 *              homed there)
 *   COPY       remote copy (Telegraphos): operand bytes (1..MEMCHAN_REMOTE_COPY_MAX)
 *              from addr into the caller's memory at user address buffer; any
 *              alignment; refused (EACCES, counted once, nothing copied) unless
 *              every page of the range has READ_EN; counts one read per page;
 *              EFAULT when buffer is not writable (the read was served)
 * EINVAL: flags, op, home >= max_nodes, a range beyond the window, compare
 * non-zero but for CAS, operand non-zero for READ, buffer non-zero but for
 * COPY, result non-zero on entry;
 * ENXIO without a node ID; EOPNOTSUPP where caps lacks REMOTE_READ (READ) or
 * ATOMICS (the atomics), or where the backend has no path for the op
 * (hardware: CHECK, COPY and CAS). Hardware only: the driver launches the request
 * from the page's transmit window (EBUSY while a file holds the page for
 * transmit) and waits for its completion (ETIMEDOUT after 2 s); a misaligned
 * word is refused before it is sent (EACCES, not counted); a request to
 * another node also writes its answer into this node's receive page at addr
 * (Memory Channel 2's read-on-write), which must then have RX_EN.
 */
#define MEMCHAN_REMOTE_READ		0
#define MEMCHAN_REMOTE_FETCH_ADD	1
#define MEMCHAN_REMOTE_SWAP		2
#define MEMCHAN_REMOTE_CAS		3
#define MEMCHAN_REMOTE_CHECK		4
#define MEMCHAN_REMOTE_COPY		5
#define MEMCHAN_REMOTE_COPY_MAX		65536
struct memchan_remote {
	__u32 argsz;
	__u32 flags;
	__u32 home;
	__u32 op;		/* MEMCHAN_REMOTE_* */
	__u64 addr;		/* page * page_size + offset */
	__u64 operand;		/* addend, new value, or CHECK's / COPY's length in bytes */
	__u64 compare;		/* CAS: the expected word */
	__u64 result;		/* out */
	__u64 buffer;		/* COPY: user address of the destination */
};

/*
 * MEMCHAN_PAGE_COUNTERS (MEMCHAN_INFO_REMOTE; caps PAGE_COUNTERS, else
 * EOPNOTSUPP): this node's access counters of page (remote reads and atomics
 * it served as the home since the page's first receive grant, which zeroes
 * them; they wrap) and PAGE_CNT_THRESHOLD. With
 * MEMCHAN_PAGE_SET_THRESHOLD, first set PAGE_CNT_THRESHOLD to threshold (0:
 * never notify): a served operation that brings a counter of a page whose RX
 * PCT entry has COUNT_IRQ to exactly the threshold sets IRQ_STATUS.PAGE_HOT,
 * PAGE_HOT and notifies (NOTIFY_COUNT, MEMCHAN_WAIT). With
 * MEMCHAN_PAGE_TAKE_HOT, acknowledge IRQ_STATUS.PAGE_HOT: hot = PAGE_HOT when
 * it was set, else MEMCHAN_PAGE_NONE. EINVAL: unknown flags, page >= page_count,
 * non-zero pad or out fields, threshold non-zero without SET_THRESHOLD;
 * ENXIO without a node ID.
 */
#define MEMCHAN_PAGE_SET_THRESHOLD	(1U << 0)
#define MEMCHAN_PAGE_TAKE_HOT		(1U << 1)
#define MEMCHAN_PAGE_NONE		0xffffffffU
struct memchan_page_counters {
	__u32 argsz;
	__u32 flags;
	__u32 page;
	__u32 threshold;	/* in with SET_THRESHOLD; out: PAGE_CNT_THRESHOLD */
	__u32 reads;		/* out */
	__u32 atomics;		/* out */
	__u32 hot;		/* out (TAKE_HOT) */
	__u32 pad;
};

/*
 * MEMCHAN_MCAST_GROUP (MEMCHAN_INFO_MCAST_REGS): read multicast group group's
 * node mask from the adapter's MCAST_GROUP register; with MEMCHAN_MCAST_WRITE
 * write mask first (read back into mask). The register is a copy of the
 * cluster's group table (the directory header of the system pages), which
 * every member may change, so no privilege is needed beyond the open file;
 * on a hub the adapter announces its groups and the hub replicates multicast
 * frames to members only. EINVAL: unknown flags, non-zero pad, group >=
 * 16 (MC_MULTICAST_GROUPS), a mask with nodes >= max_nodes, mask non-zero
 * without WRITE; the register is then unchanged. EOPNOTSUPP on ivshmem.
 */
#define MEMCHAN_MCAST_WRITE	(1U << 0)
struct memchan_mcast_group {
	__u32 argsz;
	__u32 flags;
	__u32 group;
	__u32 mask;		/* in with WRITE; out: the register */
};

/*
 * MEMCHAN_NOTIFY_DATA (MEMCHAN_INFO_NOTIFY_DATA): a notification that carries data
 * (docs/driver.md): payload and this node's ID into node node's notification
 * queue in network page "page" (memchan_regs.h MC_NQ_*: the page in the receiver's
 * memory), after the caller's earlier stores, as the receiver's adapter enqueues
 * it: the receiver's RX PCT entry of page must have RX_EN (else EACCES, nothing
 * changed); when the queue is full the notification is counted in its OVERFLOW
 * word instead (queued = 0), else queued = 1; then, where the entry has
 * IRQ_ON_RX, the receiver's receive interrupt (IRQ_STATUS.RX_NOTIFY,
 * RX_NOTIFY_PAGE, NOTIFY_COUNT: MEMCHAN_WAIT, poll, read and the eventfd wake).
 * The caller needs no grant of the page. node may be this node.
 * EINVAL: flags, non-zero pad or queued, node >= max_nodes, page >= page_count,
 * payload above MC_NQ_ENTRY_PAYLOAD_MASK; ENXIO without a node ID; EAGAIN when
 * TAIL moved under MEMCHAN_NQ_TRIES attempts in a row (producers racing without
 * end, or a page that does not hold a queue), nothing enqueued or counted;
 * EOPNOTSUPP on hardware.
 */
#define MEMCHAN_NQ_TRIES	4096
struct memchan_notify_data {
	__u32 argsz;
	__u32 flags;
	__u32 node;
	__u32 page;
	__u64 payload;		/* 48 bits: MC_NQ_ENTRY_PAYLOAD_MASK */
	__u32 queued;		/* out: 1 enqueued, 0 counted in OVERFLOW */
	__u32 pad;
};

/*
 * MEMCHAN_NOTIFY_QUEUE (MEMCHAN_INFO_NOTIFY_DATA): this node's notification
 * queue in network page "page", which the open file must hold a receive grant of
 * (else EACCES): its OVERFLOW word and the entries pending (TAIL - HEAD); with
 * MEMCHAN_NQ_TAKE first take the oldest entry as a consumer of the queue does
 * (several files and processes may take from one queue; each entry goes to one).
 * entry: the ENTRY word taken (payload and sender, MC_NQ_ENTRY_*), or
 * MEMCHAN_NQ_EMPTY when the queue is empty (or without TAKE). The receiver waits
 * for entries on the receive interrupt: a receive grant with MEMCHAN_RX_IRQ, then
 * MEMCHAN_WAIT, poll, read or the eventfd, as for MEMCHAN_NOTIFY.
 * EINVAL: unknown flags, non-zero pad or out fields, page >= page_count; ENXIO
 * without a node ID; EAGAIN when HEAD moved under MEMCHAN_NQ_TRIES attempts in a
 * row, nothing taken; EOPNOTSUPP on hardware.
 */
#define MEMCHAN_NQ_TAKE		(1U << 0)
#define MEMCHAN_NQ_EMPTY	0xffffffffffffffffULL
struct memchan_notify_queue {
	__u32 argsz;
	__u32 flags;
	__u32 page;
	__u32 pad;
	__u64 entry;		/* out */
	__u64 overflow;		/* out */
	__u64 pending;		/* out */
};

#define MEMCHAN_IOC_MAGIC	0xB7

#define MEMCHAN_GET_API_VERSION	_IO(MEMCHAN_IOC_MAGIC, 0x00)
#define MEMCHAN_INFO		_IO(MEMCHAN_IOC_MAGIC, 0x01)
#define MEMCHAN_SET_NODE	_IO(MEMCHAN_IOC_MAGIC, 0x02)
#define MEMCHAN_PCT		_IO(MEMCHAN_IOC_MAGIC, 0x03)
#define MEMCHAN_GRANT		_IO(MEMCHAN_IOC_MAGIC, 0x04)
#define MEMCHAN_REVOKE		_IO(MEMCHAN_IOC_MAGIC, 0x05)
#define MEMCHAN_BARRIER		_IO(MEMCHAN_IOC_MAGIC, 0x06)
#define MEMCHAN_WAIT		_IO(MEMCHAN_IOC_MAGIC, 0x07)
#define MEMCHAN_SET_EVENTFD	_IO(MEMCHAN_IOC_MAGIC, 0x08)
#define MEMCHAN_NOTIFY		_IO(MEMCHAN_IOC_MAGIC, 0x09)
#define MEMCHAN_LOOPBACK	_IO(MEMCHAN_IOC_MAGIC, 0x0a)
#define MEMCHAN_ERRCNT		_IO(MEMCHAN_IOC_MAGIC, 0x0b)
#define MEMCHAN_REG_READ	_IO(MEMCHAN_IOC_MAGIC, 0x0c)
#define MEMCHAN_RELEASE_NODE	_IO(MEMCHAN_IOC_MAGIC, 0x0d)
#define MEMCHAN_REMOTE		_IO(MEMCHAN_IOC_MAGIC, 0x0e)
#define MEMCHAN_PAGE_COUNTERS	_IO(MEMCHAN_IOC_MAGIC, 0x0f)
#define MEMCHAN_MCAST_GROUP	_IO(MEMCHAN_IOC_MAGIC, 0x10)
#define MEMCHAN_NOTIFY_DATA	_IO(MEMCHAN_IOC_MAGIC, 0x11)
#define MEMCHAN_NOTIFY_QUEUE	_IO(MEMCHAN_IOC_MAGIC, 0x12)

#endif /* _UAPI_LINUX_MEMCHAN_H */
