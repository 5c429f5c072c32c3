package dev.memchan.conformance;

import dev.memchan.ClusterTime;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.local.NodeLocal;
import dev.memchan.internal.local.NodeShared;
import dev.memchan.spi.Backend;
import dev.memchan.spi.RemoteWindow;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A soft fabric seen as a network backend sees its pages: every transmit grant's segment is a private shadow
 * of the pages, zeroed when granted (the strictest start: a diff then sends no zero the library stores, so
 * each must be pushed as a range), and a store reaches the soft fabric's real transmit pages only when it is
 * pushed: {@link ShadowGrant#push} copies a range as it is,
 * {@link ShadowGrant#pushChanges} every word that differs from a twin of what was last sent. Everything else
 * (receive grants, PCT, notification, remote operations, the clock) is the soft fabric's. The conformance
 * suite runs on it to prove that every store the library makes keeps its meaning where grants are shadows.
 *
 * <p>System property {@value #DROP} names pushes this backend drops, for the negative control: {@code ranges}
 * (a push of more than 8 bytes: a message frame, a directory entry's body, zeroed pages) or {@code words}
 * (a push of 8 bytes or fewer: a flag, a bid, a header, a field). Unset, nothing is dropped.
 */
final class ShadowBackend implements Backend, NodeShared {
    /** The system property of the negative control's dropped pushes. */
    static final String DROP = "memchan.test.shadow.drop";
    private static final VarHandle BYTE = JAVA_BYTE.varHandle();
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private final String location;
    private final Backend soft;
    private final NodeShared shared;
    private final Set<ShadowGrant> grants = ConcurrentHashMap.newKeySet();
    private final boolean dropRanges;
    private final boolean dropWords;

    ShadowBackend(String location, Backend soft) {
        String drop = System.getProperty(DROP, "");
        if (!List.of("", "ranges", "words").contains(drop)) {
            soft.close();
            throw new IllegalArgumentException(DROP + " must be ranges or words, not '" + drop + "'");
        }
        if (!(soft instanceof NodeShared s)) {
            soft.close();
            throw new IllegalArgumentException(soft.location() + " is not a soft fabric, whose node's table the cluster shares");
        }
        this.location = location;
        this.soft = soft;
        this.shared = s;
        this.dropRanges = drop.equals("ranges");
        this.dropWords = drop.equals("words");
    }

    @Override
    public String kind() {
        return "shadow";
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public List<String> locationsOfNodeHere(int node) {
        return soft.locationsOfNodeHere(node);
    }

    @Override
    public int nodeId() {
        return soft.nodeId();
    }

    @Override
    public int maxNodes() {
        return soft.maxNodes();
    }

    @Override
    public int pageSize() {
        return soft.pageSize();
    }

    @Override
    public int pageCount() {
        return soft.pageCount();
    }

    @Override
    public int readRegister(int offset) {
        return soft.readRegister(offset);
    }

    @Override
    public int txPct(int page) {
        return soft.txPct(page);
    }

    @Override
    public long rxPct(int page) {
        return soft.rxPct(page);
    }

    @Override
    public void readPct(int firstPage, int[] tx, long[] rx) {
        soft.readPct(firstPage, tx, rx);
    }

    @Override
    public void writeTxPct(int page, int entry) {
        soft.writeTxPct(page, entry);
    }

    @Override
    public void writeRxPct(int page, long entry) {
        soft.writeRxPct(page, entry);
    }

    @Override
    public Grant grantTransmit(int firstPage, int count, int txEntry) {
        ShadowGrant g = new ShadowGrant(soft.grantTransmit(firstPage, count, txEntry));
        grants.add(g);
        return g;
    }

    @Override
    public Grant grantReceive(int firstPage, int count, long rxEntry) {
        return soft.grantReceive(firstPage, count, rxEntry);
    }

    /** As a network backend's: every grant's changes are sent first, then the soft fabric's sweep. */
    @Override
    public void ackBarrier(Duration timeout) {
        pushAllGrants();
        soft.ackBarrier(timeout);
    }

    @Override
    public void pushAllGrants() {
        for (ShadowGrant g : grants) {
            g.pushChanges();
        }
    }

    /** A shadow is ordinary memory; a push orders its stores. */
    @Override
    public boolean transmitWriteCombining() {
        return false;
    }

    @Override
    public void raiseNotify(int page) {
        soft.raiseNotify(page);
    }

    @Override
    public void requireNotificationData() {
        soft.requireNotificationData();
    }

    /** After the stores before it, as a network backend sends it behind its pushes. */
    @Override
    public void postNotification(int dest, int page, long payload) {
        pushAllGrants();
        soft.postNotification(dest, page, payload);
    }

    @Override
    public dev.memchan.spi.NotificationQueue openNotificationQueue(int page) {
        return soft.openNotificationQueue(page);
    }

    @Override
    public int notifyCount() {
        return soft.notifyCount();
    }

    @Override
    public void awaitNotify(int observed, long timeoutNanos) {
        soft.awaitNotify(observed, timeoutNanos);
    }

    @Override
    public void setLoopback(int mode) {
        soft.setLoopback(mode);
    }

    @Override
    public boolean hasMulticastRegisters() {
        return soft.hasMulticastRegisters();
    }

    @Override
    public int writeMulticastGroup(int group, int nodeMask) {
        return soft.writeMulticastGroup(group, nodeMask);
    }

    @Override
    public RemoteWindow openRemote(int home, int firstPage, int count) {
        return soft.openRemote(home, firstPage, count);
    }

    @Override
    public long pageCounter(int page, int counter) {
        return soft.pageCounter(page, counter);
    }

    @Override
    public void readPageCounters(int firstPage, long[] reads, long[] atomics) {
        soft.readPageCounters(firstPage, reads, atomics);
    }

    @Override
    public void setPageCountThreshold(int threshold) {
        soft.setPageCountThreshold(threshold);
    }

    @Override
    public int takeHotPage() {
        return soft.takeHotPage();
    }

    @Override
    public ClusterTime clusterTime() {
        return soft.clusterTime();
    }

    @Override
    public ClusterTime.Unit globalTimeUnit() {
        return soft.globalTimeUnit();
    }

    @Override
    public long errorCount() {
        return soft.errorCount();
    }

    @Override
    public void releaseDeadNode(int node, long incarnation) {
        soft.releaseDeadNode(node, incarnation);
    }

    @Override
    public long incarnation() {
        return soft.incarnation();
    }

    @Override
    public NodeLocal nodeLocal() {
        return shared.nodeLocal();
    }

    @Override
    public int localSlot() {
        return shared.localSlot();
    }

    @Override
    public void releaseProcess(int slot, int pid) {
        shared.releaseProcess(slot, pid);
    }

    @Override
    public void close() {
        for (ShadowGrant g : grants) {
            g.close();
        }
        soft.close();
    }

    /**
     * A transmit grant whose segment is a shadow: {@code pages} (the soft fabric's transmit pages, which every
     * receiver reads) change only by a push. {@code twin} holds what was last sent of each word.
     */
    private final class ShadowGrant implements Grant {
        private final Grant real;
        private final MemorySegment pages;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment shadow;
        private final MemorySegment twin;
        private boolean closed;

        ShadowGrant(Grant real) {
            this.real = real;
            this.pages = real.segment();
            this.shadow = arena.allocate(pages.byteSize(), Long.BYTES);
            this.twin = arena.allocate(pages.byteSize(), Long.BYTES);
        }

        @Override
        public int firstPage() {
            return real.firstPage();
        }

        @Override
        public int pageCount() {
            return real.pageCount();
        }

        @Override
        public MemorySegment segment() {
            return shadow;
        }

        @Override
        public boolean writeCombining() {
            return false;
        }

        @Override
        public boolean shadowed() {
            return true;
        }

        /** Copies the range to the pages in ascending order, each aligned word or int whole (no torn fields). */
        @Override
        public synchronized void push(long offset, long length) {
            if (offset < 0 || length < 0 || offset > shadow.byteSize() - length) {
                throw new MemchanException(Kind.INVALID_ARGUMENT, "push of bytes " + offset + "+" + length
                        + " outside the grant's " + shadow.byteSize() + " bytes");
            }
            if (length > Long.BYTES ? dropRanges : dropWords) {
                return;
            }
            long end = offset + length;
            for (long at = offset; at < end; ) {
                if (at % Long.BYTES == 0 && end - at >= Long.BYTES) {
                    send(at, shadow.get(JAVA_LONG, at));
                    at += Long.BYTES;
                } else if (at % Integer.BYTES == 0 && end - at >= Integer.BYTES) {
                    int v = shadow.get(JAVA_INT, at);
                    twin.set(JAVA_INT, at, v);
                    INT.setRelease(pages, at, v);
                    at += Integer.BYTES;
                } else {
                    byte v = shadow.get(JAVA_BYTE, at);
                    twin.set(JAVA_BYTE, at, v);
                    BYTE.setRelease(pages, at, v);
                    at++;
                }
            }
        }

        /** Sends every word that differs from what was last sent, in ascending order. */
        @Override
        public synchronized void pushChanges() {
            if (closed) {
                return; // closed while pushAllGrants went through the grants
            }
            for (long at = 0; at < shadow.byteSize(); at += Long.BYTES) {
                long v = shadow.get(JAVA_LONG, at);
                if (v != twin.get(JAVA_LONG, at)) {
                    send(at, v);
                }
            }
        }

        private void send(long at, long v) {
            twin.set(JAVA_LONG, at, v);
            LONG.setRelease(pages, at, v);
        }

        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                grants.remove(this);
                real.close();
                arena.close();
            }
        }
    }
}
