package dev.memchan.internal.local;

import dev.memchan.layout.SystemPagesDescriptor;

/**
 * Layout of a node's local table: a file in /dev/shm shared by the processes of one node on one host
 * (never across hosts, never by C code), which lets several processes use one node
 * (docs/architecture.md, "Several processes per node"). Every field is a u64 or a byte; each offset
 * below is computed from the one before it.
 *
 * <pre>
 *   header (64 bytes):
 *     +0   MAGIC
 *     +8   INCARNATION      the node incarnation the table describes (another one: the table is stale)
 *     +16  TABLE_MUTEX      owner pid &lt;&lt; 32 | depth: guards the rest of the table
 *     +24  CLUSTER_MUTEX    owner pid &lt;&lt; 32 | depth: the process whose thread bids in the node's
 *                           cluster-lock slot
 *   process slots:  SLOTS x u64 pid (0 = free)
 *   entry bits:     SLOTS x directoryCapacity bytes: what each process holds of each directory entry
 *                   (USER, TX, RX, TX_LOOPBACK)
 *   lock-set mutexes: directoryCapacity x u64 (owner pid &lt;&lt; 32 | depth): the process whose threads bid
 *                   in the node's slots of that lock set
 *   page bitmaps:   SLOTS x PAGE_MAPS x bitmapBytes(pageCount): pages each process maps for transmit,
 *                   for receive, for receive with notification, with remote read, with atomics, with
 *                   the counter interrupt (the soft fabric's PCT reference counts)
 * </pre>
 * Every mutex word is a {@link NodeMutex}; its bit diagram (with the RECOVERING bit of a takeover
 * from a dead owner) is there.
 */
public final class NodeLocalDescriptor {
    public static final long MAGIC_VALUE = 0x4c41434f4c434d4dL; // "MMCLOCAL"
    public static final int SLOTS = 64;
    public static final int PAGE_MAPS = 6;
    public static final int MAP_TX = 0;
    public static final int MAP_RX = 1;
    public static final int MAP_RX_NOTIFY = 2;
    /** Receive maps whose process, as the page's home, grants remote read / atomics / the counter interrupt. */
    public static final int MAP_RX_READ = 3;
    public static final int MAP_RX_ATOMIC = 4;
    public static final int MAP_RX_COUNT_IRQ = 5;

    public static final int BIT_USER = 1;
    public static final int BIT_TX = 2;
    public static final int BIT_RX = 4;
    public static final int BIT_TX_LOOPBACK = 8;

    public static final long MAGIC = 0;
    public static final long INCARNATION = MAGIC + Long.BYTES;
    public static final long TABLE_MUTEX = INCARNATION + Long.BYTES;
    public static final long CLUSTER_MUTEX = TABLE_MUTEX + Long.BYTES;
    public static final long HEADER_SIZE = 64;
    public static final long SLOT_SIZE = Long.BYTES;

    private NodeLocalDescriptor() {
    }

    public static int directoryCapacity(int pageSize) {
        return (int) SystemPagesDescriptor.regionCapacity(pageSize);
    }

    public static long slot(int slot) {
        return HEADER_SIZE + SLOT_SIZE * slot;
    }

    public static long entryBits(int pageSize, int slot, int entry) {
        return slot(SLOTS) + (long) directoryCapacity(pageSize) * slot + entry;
    }

    private static long align8(long v) {
        return (v + Long.BYTES - 1) & -Long.BYTES;
    }

    public static long lockSetMutex(int pageSize, int entry) {
        return align8(entryBits(pageSize, SLOTS, 0)) + (long) Long.BYTES * entry;
    }

    public static long bitmapBytes(int pageCount) {
        return align8((pageCount + 7) / 8);
    }

    /** Byte holding page {@code page}'s bit in process {@code slot}'s map {@code map}. */
    public static long pageMapByte(int pageSize, int pageCount, int slot, int map, int page) {
        return lockSetMutex(pageSize, directoryCapacity(pageSize)) + (slot * (long) PAGE_MAPS + map) * bitmapBytes(pageCount) + page / 8;
    }

    public static long fileSize(int pageSize, int pageCount) {
        return pageMapByte(pageSize, pageCount, SLOTS, 0, 0);
    }
}
