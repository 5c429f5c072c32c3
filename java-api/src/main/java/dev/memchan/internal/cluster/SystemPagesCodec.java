package dev.memchan.internal.cluster;

import dev.memchan.admin.DirectoryEntry;
import dev.memchan.layout.SystemPagesDescriptor;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static dev.memchan.layout.Regs.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Writes of the system pages' records (region entries, the directory's generation, multicast groups) and
 * reads of their single fields, on a segment holding the system pages with network page 0 at offset 0: a
 * receive mapping, a transmit mapping, the soft fabric file, or a heap segment in a test. Writes go through
 * {@link TransmitStores}, which pushes them where the transmit mapping is a shadow. Offsets come
 * from {@link SystemPagesDescriptor}; whole records are read by {@link DirectoryEntry#read} and
 * {@code MemberSlot.read}.
 */
public final class SystemPagesCodec {
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    /** An entry's body: every field after STATE, which is its first word. */
    private static final long BODY = SYS_REGION_STATE + Integer.BYTES;

    private SystemPagesCodec() {
    }

    public static int regionCapacity(int pageSize) {
        return (int) SystemPagesDescriptor.regionCapacity(pageSize);
    }

    /**
     * Writes the body first and STATE last, so a half-written new entry is never taken as allocated; pushed
     * in that order (the body, then STATE) where the pages are a shadow.
     */
    public static void writeEntry(TransmitStores tx, int pageSize, DirectoryEntry e) {
        MemorySegment pages = tx.segment();
        long o = SystemPagesDescriptor.regionEntry(pageSize, e.index());
        INT.setVolatile(pages, o + SYS_REGION_MODE, e.mode());
        LONG.setVolatile(pages, o + SYS_REGION_KEY, e.key());
        INT.setVolatile(pages, o + SYS_REGION_UID, e.uid());
        INT.setVolatile(pages, o + SYS_REGION_GID, e.gid());
        INT.setVolatile(pages, o + SYS_REGION_FIRST_PAGE, e.firstPage());
        INT.setVolatile(pages, o + SYS_REGION_PAGE_COUNT, e.pageCount());
        INT.setVolatile(pages, o + SYS_REGION_USERS, e.users());
        INT.setVolatile(pages, o + SYS_REGION_TX_NODES, e.txNodes());
        INT.setVolatile(pages, o + SYS_REGION_RX_NODES, e.rxNodes());
        INT.setVolatile(pages, o + SYS_REGION_TX_LOOPBACK, e.txLoopback());
        INT.setVolatile(pages, o + SYS_REGION_ROUTE, e.route());
        INT.setVolatile(pages, o + SYS_REGION_FLAGS, e.flags());
        LONG.setVolatile(pages, o + SYS_REGION_GENERATION, e.generation());
        tx.push(o + BODY, SYS_REGION_ENTRY_SIZE - BODY);
        tx.setIntVolatile(o + SYS_REGION_STATE, e.state());
    }

    /** STATE first: from that store on the entry and its pages are free; then the rest is zeroed. */
    public static void freeEntry(TransmitStores tx, int pageSize, int i) {
        long o = SystemPagesDescriptor.regionEntry(pageSize, i);
        tx.setIntVolatile(o + SYS_REGION_STATE, SYS_REGION_STATE_FREE);
        for (long b = BODY; b < SYS_REGION_ENTRY_SIZE; b += Integer.BYTES) {
            INT.setVolatile(tx.segment(), o + b, 0);
        }
        tx.push(o + BODY, SYS_REGION_ENTRY_SIZE - BODY);
    }

    public static int memberState(MemorySegment pages, int pageSize, int node) {
        return (int) INT.getVolatile(pages, SystemPagesDescriptor.memberSlot(pageSize, node) + SYS_MEMBER_STATE);
    }

    public static long heartbeat(MemorySegment pages, int pageSize, int node) {
        return (long) LONG.getVolatile(pages, SystemPagesDescriptor.memberSlot(pageSize, node) + SYS_MEMBER_HEARTBEAT);
    }

    public static long generation(MemorySegment pages, int pageSize) {
        return (long) LONG.getVolatile(pages, SystemPagesDescriptor.directory(pageSize) + SYS_DIR_GENERATION);
    }

    public static void setGeneration(TransmitStores tx, int pageSize, long generation) {
        tx.setLongVolatile(SystemPagesDescriptor.directory(pageSize) + SYS_DIR_GENERATION, generation);
    }

    /** Node mask of multicast group {@code group} (range checked by the caller). */
    public static int multicastGroup(MemorySegment pages, int pageSize, int group) {
        return (int) INT.getVolatile(pages, SystemPagesDescriptor.mcastGroup(pageSize, group));
    }

    public static void setMulticastGroup(TransmitStores tx, int pageSize, int group, int mask) {
        tx.setIntVolatile(SystemPagesDescriptor.mcastGroup(pageSize, group), mask);
    }
}
