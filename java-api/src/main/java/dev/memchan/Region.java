package dev.memchan;

import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.DirectoryEntry;
import dev.memchan.layout.RxPct;
import dev.memchan.spi.Backend;

import java.util.ArrayList;
import java.util.List;

/**
 * A region of network pages allocated by key (imc_asalloc). Attach it for transmit
 * ({@link #attachTransmit}: imc_asattach / imc_asattach_ptp) or receive ({@link #attachReceive});
 * {@link #close()} detaches this process's mappings and deallocates (imc_asdealloc); the last user's
 * deallocation frees the pages.
 */
public final class Region implements AutoCloseable {
    static final int TX = 0;
    static final int RX = 1;
    /** A remote mapping: no directory state of its own (the region's user bit is enough). */
    static final int REMOTE = 2;

    private final Fabric fabric;
    private final int index;
    private final long generation;
    private final long key;
    private final int firstPage;
    private final int pageCount;
    private final int flags;
    private final List<AutoCloseable> mappings = new ArrayList<>();
    private boolean closed;

    Region(Fabric fabric, DirectoryEntry e) {
        this.fabric = fabric;
        this.index = e.index();
        this.generation = e.generation();
        this.key = e.key();
        this.firstPage = e.firstPage();
        this.pageCount = e.pageCount();
        this.flags = e.flags();
    }

    /** The home of a CAS lock set's region (its allocator). */
    int home() {
        return dev.memchan.layout.SystemPagesDescriptor.regionFlagsHome(flags);
    }

    public long key() {
        return key;
    }

    /** First network page of the region. */
    public int firstPage() {
        return firstPage;
    }

    public int pageCount() {
        return pageCount;
    }

    public long sizeBytes() {
        return (long) pageCount * fabric.pageSize();
    }

    /** Node mask of the nodes attached for receive, from the directory. */
    public int receivers() {
        return fabric.context().directory().readEntry(index).rxNodes();
    }

    /** Node mask of the nodes attached for transmit, from the directory. */
    public int transmitters() {
        return fabric.context().directory().readEntry(index).txNodes();
    }

    Fabric fabric() {
        return fabric;
    }

    /** The region's directory entry number. */
    int entryIndex() {
        return index;
    }

    /** Attaches the whole region for transmit on {@code route}, with or without local copy. */
    public OutgoingMapping attachTransmit(Route route, boolean localCopy) {
        return attachTransmit(route, localCopy, false, 0, sizeBytes());
    }

    /**
     * Attaches {@code length} bytes from {@code offset} (both whole pages) for transmit. With
     * {@code ackRequest} every packet asks its destinations for an acknowledgement (hardware).
     */
    public synchronized OutgoingMapping attachTransmit(Route route, boolean localCopy, boolean ackRequest, long offset, long length) {
        int[] pages = pages(offset, length);
        ensureOpen();
        if (route.isNode() && route.dest() >= fabric.maxNodes()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "destination node " + route.dest() + " out of range 0.."
                    + (fabric.maxNodes() - 1) + " on " + fabric.location());
        }
        boolean first = fabric.context().firstAttachment(index, TX);
        try {
            if (first) {
                fabric.context().directory().attachTransmit(index, generation, route, localCopy, fabric.context().credentials());
            } else {
                DirectoryEntry e = fabric.context().directory().readEntry(index);
                Route current = Route.fromPct(e.route());
                boolean loop = (e.txLoopback() & (1 << fabric.nodeId())) != 0;
                if (!current.equals(route) || loop != localCopy) {
                    throw new MemchanException(Kind.INVALID_ARGUMENT, String.format("region 0x%x is attached for transmit by "
                            + "this process to %s%s; a second attachment must use the same route and local copy", key,
                            current, loop ? " with local copy" : ""));
                }
            }
        } catch (RuntimeException ex) {
            fabric.context().lastAttachment(index, TX);
            throw ex;
        }
        Backend.Grant grant;
        try {
            grant = fabric.context().backend().grantTransmit(firstPage + pages[0], pages[1], route.pctEntry(localCopy, ackRequest));
        } catch (RuntimeException ex) {
            detached(TX);
            throw ex;
        }
        OutgoingMapping m = new OutgoingMapping(this, grant, route);
        mappings.add(m);
        return m;
    }

    /** Attaches the whole region for receive; with {@code notify}, stores to it can wake a {@link Notifier} waiter. */
    public IncomingMapping attachReceive(boolean notify) {
        return attachReceive(notify, 0, sizeBytes());
    }

    /**
     * Attaches the whole region for receive as its home, granting other nodes {@code grants} on its pages
     * (remote read, atomics, the counter notification; see {@link RemoteAccess}).
     */
    public IncomingMapping attachReceive(boolean notify, RemoteAccess... grants) {
        return attachReceive(notify, 0, sizeBytes(), grants);
    }

    /**
     * Attaches {@code length} bytes from {@code offset} (whole pages) for receive, mapped read-only, granting
     * other nodes {@code grants} on them.
     */
    public synchronized IncomingMapping attachReceive(boolean notify, long offset, long length, RemoteAccess... grants) {
        int[] pages = pages(offset, length);
        ensureOpen();
        boolean first = fabric.context().firstAttachment(index, RX);
        try {
            if (first) {
                fabric.context().directory().attachReceive(index, generation, fabric.context().credentials());
            }
        } catch (RuntimeException ex) {
            fabric.context().lastAttachment(index, RX);
            throw ex;
        }
        Backend.Grant grant;
        try {
            grant = fabric.context().backend().grantReceive(firstPage + pages[0], pages[1], RxPct.encode(true, notify,
                    has(grants, RemoteAccess.READ), has(grants, RemoteAccess.ATOMIC), has(grants, RemoteAccess.COUNT_NOTIFY)));
        } catch (RuntimeException ex) {
            detached(RX);
            throw ex;
        }
        IncomingMapping m = new IncomingMapping(this, grant);
        mappings.add(m);
        return m;
    }

    private static boolean has(RemoteAccess[] grants, RemoteAccess a) {
        for (RemoteAccess g : grants) {
            if (g == a) {
                return true;
            }
        }
        return false;
    }

    /**
     * Maps the whole region for remote read and atomics at node {@code home}, which must receive it and
     * grant {@link RemoteAccess#READ} or {@link RemoteAccess#ATOMIC} on every page; refused otherwise
     * (PERMISSION: the region is not homed there), counted in the home's REMOTE_REFUSED.
     */
    public RemoteMapping attachRemote(int home) {
        return attachRemote(home, 0, sizeBytes());
    }

    /** Maps {@code length} bytes from {@code offset} (whole pages) for remote read and atomics at {@code home}. */
    public synchronized RemoteMapping attachRemote(int home, long offset, long length) {
        int[] pages = pages(offset, length);
        ensureOpen();
        if (home < 0 || home >= fabric.maxNodes()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "home node " + home + " out of range 0.." + (fabric.maxNodes() - 1)
                    + " on " + fabric.location());
        }
        RemoteMapping m = new RemoteMapping(this, fabric.context().backend().openRemote(home, firstPage + pages[0], pages[1]), offset);
        mappings.add(m);
        return m;
    }

    /** Validates a byte range of the region and returns {first page within the region, page count}. */
    private int[] pages(long offset, long length) {
        int ps = fabric.pageSize();
        if (offset < 0 || length < 1 || offset % ps != 0 || length % ps != 0) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "mapping of " + length + " bytes at offset " + offset
                    + ": offset and length must be whole pages of " + ps + " bytes, length at least one page");
        }
        if (offset + length > sizeBytes()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, String.format("mapping of bytes %d..%d is past the end of "
                    + "region 0x%x (%d bytes)", offset, offset + length - 1, key, sizeBytes()));
        }
        return new int[]{(int) (offset / ps), (int) (length / ps)};
    }

    /** Called by a mapping's close. */
    synchronized void mappingClosed(AutoCloseable m, int kind) {
        if (mappings.remove(m)) {
            detached(kind);
        }
    }

    private void detached(int kind) {
        if (kind != REMOTE && fabric.context().lastAttachment(index, kind)) {
            fabric.context().directory().detach(index, generation, kind == TX);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new MemchanException(Kind.CLOSED, String.format("region 0x%x is closed", key));
        }
    }

    /** Detaches this process's mappings of the region and deallocates it (imc_asdealloc). */
    @Override
    public void close() {
        List<AutoCloseable> toClose;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            toClose = new ArrayList<>(mappings);
        }
        for (AutoCloseable m : toClose) {
            try {
                m.close();
            } catch (Exception ignored) {
                // the release below clears this node's directory state anyway
            }
        }
        fabric.context().directory().release(index, generation);
        fabric.untrack(this);
    }
}
