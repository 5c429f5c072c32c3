package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.internal.nativeio.ErrnoException;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.internal.nativeio.Ucp;
import dev.memchan.internal.nativeio.UcpDefs;
import dev.memchan.internal.nativeio.UcpDefs.ucp_am_handler_param_t;
import dev.memchan.internal.nativeio.UcpDefs.ucp_am_recv_param;
import dev.memchan.internal.nativeio.UcpDefs.ucp_ep_params_t;
import dev.memchan.internal.nativeio.UcpDefs.ucp_listener_attr_t;
import dev.memchan.internal.nativeio.UcpDefs.ucp_listener_params_t;
import dev.memchan.internal.nativeio.UcpDefs.ucp_worker_attr_t;
import dev.memchan.internal.nativeio.UcpDefs.ucp_worker_params_t;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A UCP worker and its progress thread: the node's communication engine. Makes listeners and endpoints,
 * holds the active-message handlers, reports {@link UcxEvent}s.
 *
 * <p><b>Thread model.</b> The worker is created in {@code UCS_THREAD_MODE_MULTI} (UCX serializes calls with
 * its own lock): any thread issues operations directly, with no hand-over to another thread on the issue
 * path, and a blocking operation progresses the worker in the calling thread until its request completes.
 * The alternative, a single-threaded worker that only the progress thread touches, would cost every
 * operation two thread wake-ups. The progress thread ({@code ucx-progress-NAME}) progresses the worker
 * while there is work and, where configured, for a short adaptive spin after it ({@link #MAX_SPIN_NANOS}),
 * then arms it ({@code ucp_worker_arm}) and sleeps in {@code poll} on its wakeup descriptor: an idle node
 * sleeps. Over TCP it is what serves the peers' puts, gets and atomics, which UCX emulates with active
 * messages the target must progress.
 *
 * <p><b>Callbacks.</b> Active-message handlers, event listeners and {@link #execute} tasks run on the
 * progress thread only, one at a time. A message that arrives while another thread progresses the worker
 * (inside a blocking operation) is copied out of UCX's buffer and handed to the progress thread; on the
 * progress thread the handler reads UCX's buffer in place.
 *
 * <p>Thread-safe. {@link #close()} stops the progress thread, closes the endpoints and listeners and
 * destroys the worker; call it once no other thread uses them.
 */
public final class UcxWorker implements AutoCloseable {
    /** The largest active-message id (handlers are a table indexed by id). */
    public static final int MAX_AM_ID = 255;
    /**
     * The longest the progress thread goes on progressing the worker after its last event or task before it arms the
     * worker and sleeps: a message that follows within it is taken without a wake-up. Adaptive: each spin that
     * expires halves the next one, a wake-up from sleep sooner than this restores it; a node idle for longer sleeps.
     * The system property {@code memchan.ucx.spinMicros}; 0 (no spin) unless set: on the project's 2-vCPU machine,
     * where the application's own threads spin, a 50 us spin tripled the ping-pong's latency (docs/ucx.md).
     */
    static final long MAX_SPIN_NANOS = Math.max(0, Long.getLong("memchan.ucx.spinMicros", 0)) * 1000;

    private static final AtomicReferenceArray<UcxWorker> SLOTS = new AtomicReferenceArray<>(4096);
    private static final MemorySegment AM_UPCALL;
    private static final MemorySegment ERROR_UPCALL;
    private static final MemorySegment CONNECTION_UPCALL;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            AM_UPCALL = Ucp.upcall(lookup.findStatic(UcxWorker.class, "onMessage", MethodType.methodType(byte.class,
                            MemorySegment.class, MemorySegment.class, long.class, MemorySegment.class, long.class, MemorySegment.class)),
                    UcpDefs.Upcalls.ucp_am_recv_callback_t);
            ERROR_UPCALL = Ucp.upcall(lookup.findStatic(UcxWorker.class, "onError", MethodType.methodType(void.class,
                    MemorySegment.class, MemorySegment.class, byte.class)), UcpDefs.Upcalls.ucp_err_handler_cb_t);
            CONNECTION_UPCALL = Ucp.upcall(lookup.findStatic(UcxWorker.class, "onConnection", MethodType.methodType(void.class,
                    MemorySegment.class, MemorySegment.class)), UcpDefs.Upcalls.ucp_listener_conn_callback_t);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final UcxContext context;
    final MemorySegment handle;
    private final String name;
    private final int slot;
    private final Consumer<UcxEvent> events;
    private final long maxHeader;
    private final int wakeupFd;
    private final Thread progressThread;
    private final AtomicReferenceArray<AmHandler> handlers = new AtomicReferenceArray<>(MAX_AM_ID + 1);
    private final AtomicInteger serials = new AtomicInteger();
    /** Copy-on-write (rare changes, read by the message upcall to find the reply endpoint). */
    private volatile UcxEndpoint[] endpoints = new UcxEndpoint[0];
    private volatile UcxListener[] listeners = new UcxListener[0];
    /** Tasks the progress thread gave itself (inside UCX callbacks): only it touches this queue. */
    private final ArrayDeque<Runnable> ownTasks = new ArrayDeque<>();
    /** Tasks from other threads; each offer signals the worker so that the progress thread wakes. */
    private final ConcurrentLinkedQueue<Runnable> otherTasks = new ConcurrentLinkedQueue<>();
    /** Set by the progress thread while an active-message handler runs. */
    private boolean inHandler;
    private volatile boolean closing;
    private final AtomicBoolean closed = new AtomicBoolean();

    UcxWorker(UcxContext context, String name, Consumer<UcxEvent> events) {
        this.context = context;
        this.name = name;
        this.events = events;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment params = arena.allocate(ucp_worker_params_t.LAYOUT);
            ucp_worker_params_t.field_mask(params, UcpDefs.UCP_WORKER_PARAM_FIELD_THREAD_MODE | UcpDefs.UCP_WORKER_PARAM_FIELD_NAME);
            ucp_worker_params_t.thread_mode(params, UcpDefs.UCS_THREAD_MODE_MULTI);
            ucp_worker_params_t.name(params, arena.allocateFrom(name));
            MemorySegment out = arena.allocate(ADDRESS);
            Ucp.check(Ucp.workerCreate(context.handle, params, out), "creating UCX worker " + name);
            handle = out.get(ADDRESS, 0);
            try {
                MemorySegment attr = arena.allocate(ucp_worker_attr_t.LAYOUT);
                ucp_worker_attr_t.field_mask(attr, UcpDefs.UCP_WORKER_ATTR_FIELD_THREAD_MODE | UcpDefs.UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER);
                Ucp.check(Ucp.workerQuery(handle, attr), "querying UCX worker " + name);
                if (ucp_worker_attr_t.thread_mode(attr) != UcpDefs.UCS_THREAD_MODE_MULTI) {
                    throw new MemchanException(MemchanException.Kind.UNSUPPORTED, "this UCX gives no multi-threaded worker "
                            + "(built without --enable-mt?): the transport issues operations from several threads");
                }
                maxHeader = ucp_worker_attr_t.max_am_header(attr);
                MemorySegment fd = arena.allocate(JAVA_INT);
                Ucp.check(Ucp.workerGetEfd(handle, fd), "getting the wakeup descriptor of UCX worker " + name);
                wakeupFd = fd.get(JAVA_INT, 0);
            } catch (RuntimeException e) {
                Ucp.workerDestroy(handle);
                throw e;
            }
        }
        slot = claimSlot(this);
        progressThread = Thread.ofPlatform().name("ucx-progress-" + name).daemon().unstarted(this::progressLoop);
        progressThread.start();
    }

    private static int claimSlot(UcxWorker worker) {
        for (int i = 0; i < SLOTS.length(); i++) {
            if (SLOTS.compareAndSet(i, null, worker)) {
                return i;
            }
        }
        throw new MemchanException(MemchanException.Kind.IN_USE, "more than " + SLOTS.length() + " UCX workers in one process");
    }

    /** The worker's name (its progress thread is {@code ucx-progress-NAME}). */
    public String name() {
        return name;
    }

    /** The largest active-message header UCX takes on this worker. */
    public long maxHeader() {
        return maxHeader;
    }

    /** The progress thread, for callers that check where they run. */
    public Thread progressThread() {
        return progressThread;
    }

    // ---- the progress thread -----------------------------------------------------------------------

    private void progressLoop() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pollfd = Posix.pollfd(arena, wakeupFd, Posix.POLLIN);
            long spin = MAX_SPIN_NANOS;
            long idleSince = System.nanoTime();
            boolean spinning = false;
            while (!closing) {
                boolean worked = false;
                while (Ucp.workerProgress(handle) != 0) {
                    worked = true; // drain every event before arming
                }
                if (runTasks() || worked) {
                    spinning = false;
                    continue;
                }
                long now = System.nanoTime();
                if (!spinning) {
                    spinning = true;
                    idleSince = now;
                }
                if (now - idleSince < spin) {
                    Thread.onSpinWait();
                    continue;
                }
                spin /= 2; // it expired: spin less until a wake-up says more would have paid
                spinning = false;
                int armed = Ucp.workerArm(handle);
                if (armed == UcpDefs.UCS_ERR_BUSY) {
                    continue; // events arrived meanwhile
                }
                Ucp.check(armed, "arming the wakeup of UCX worker " + name);
                if (closing || !ownTasks.isEmpty() || !otherTasks.isEmpty()) {
                    continue; // a task posted before arming; its signal may have been consumed
                }
                long asleep = System.nanoTime();
                Posix.poll(pollfd, -1);
                if (System.nanoTime() - asleep < MAX_SPIN_NANOS) { // a spin this long would have caught it
                    spin = MAX_SPIN_NANOS;
                }
            }
        } catch (RuntimeException | ErrnoException e) {
            // Nothing above fails in normal operation; blocking calls still progress the worker themselves.
            deliver(new UcxEvent.HandlerFailed(-1, e));
        }
    }

    /** Runs the queued tasks; true if there were any. */
    private boolean runTasks() {
        boolean ran = false;
        Runnable task;
        while ((task = ownTasks.poll()) != null || (task = otherTasks.poll()) != null) {
            ran = true;
            try {
                task.run();
            } catch (RuntimeException | AssertionError e) {
                deliver(new UcxEvent.HandlerFailed(-1, e));
            }
        }
        return ran;
    }

    private void deliver(UcxEvent event) {
        try {
            events.accept(event);
        } catch (RuntimeException e) {
            System.err.println("memchan: the UCX event listener of worker " + name + " threw on " + event + ": " + e);
        }
    }

    /**
     * Runs {@code task} on the progress thread, outside every UCX callback (blocking operations are allowed
     * there): after the current handler returns when called from one, else as soon as the thread wakes.
     */
    public void execute(Runnable task) {
        if (closing) {
            throw new MemchanException(MemchanException.Kind.CLOSED, "UCX worker " + name + " is closed");
        }
        if (Thread.currentThread() == progressThread) {
            ownTasks.add(task);
        } else {
            otherTasks.add(task);
            Ucp.check(Ucp.workerSignal(handle), "waking the progress thread of UCX worker " + name);
        }
    }

    private void post(UcxEvent event) {
        if (!closing) {
            execute(() -> deliver(event));
        }
    }

    // ---- blocking operations -----------------------------------------------------------------------

    void requireBlockingAllowed(String what) {
        if (closing) {
            throw new MemchanException(MemchanException.Kind.CLOSED, what + ": UCX worker " + name + " is closed");
        }
        requireOutsideHandler(what);
    }

    /** Refuses a call that progresses or changes the worker from inside a handler (UCX's progress). */
    void requireOutsideHandler(String what) {
        if (inHandler && Thread.currentThread() == progressThread) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, what + " inside an active-message handler, "
                    + "which runs inside UCX's progress: hand it to UcxWorker.execute");
        }
    }

    /**
     * Waits for what a non-blocking UCP call returned: nothing for NULL (done in the call), the error of
     * an error pointer, else progresses the worker until the request completes and frees it.
     */
    void await(MemorySegment request, String what, UcxEndpoint endpoint) {
        if (request.address() == 0) {
            return;
        }
        if (Ucp.isError(request)) {
            throw failure(what, (int) request.address(), endpoint);
        }
        int status;
        while ((status = Ucp.requestCheckStatus(request)) == UcpDefs.UCS_INPROGRESS) {
            if (Ucp.workerProgress(handle) == 0) {
                Thread.onSpinWait();
            }
        }
        Ucp.requestFree(request);
        if (status != UcpDefs.UCS_OK) {
            throw failure(what, status, endpoint);
        }
    }

    private static MemchanException failure(String what, int status, UcxEndpoint endpoint) {
        return Ucp.failure(endpoint == null ? what : what + " (peer " + endpoint.peer() + ")", status);
    }

    /** ucp_worker_fence: puts and atomics issued before complete at their targets before those issued after. Does not wait. */
    public void fence() {
        requireBlockingAllowed("fence");
        Ucp.check(Ucp.workerFence(handle), "fence");
    }

    /** Returns when every put and atomic issued on this worker before the call is complete at its target (ucp_worker_flush_nbx). */
    public void flush() {
        requireBlockingAllowed("flush");
        await(Ucp.workerFlushNbx(handle, Scratch.get().plain()), "flush of worker " + name, null);
    }

    /**
     * Progresses the worker once in the calling thread: the number of events UCX processed. For a thread
     * that polls memory a peer writes to (a ping-pong), instead of waiting for the progress thread to wake.
     */
    public int progress() {
        requireBlockingAllowed("progress");
        return Ucp.workerProgress(handle);
    }

    // ---- listeners and endpoints -------------------------------------------------------------------

    /**
     * Listens on {@code address} (a resolved IP address; port 0 picks a free port): bound to that address
     * only. Refusals (an address not on this host, a port in use) throw MemchanException and change nothing.
     */
    public UcxListener listen(InetSocketAddress address) {
        requireBlockingAllowed("listen");
        SocketAddresses.require(address, "listen");
        int serial = serials.incrementAndGet();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sockaddr = SocketAddresses.encode(address, arena);
            MemorySegment params = arena.allocate(ucp_listener_params_t.LAYOUT);
            ucp_listener_params_t.field_mask(params, UcpDefs.UCP_LISTENER_PARAM_FIELD_SOCK_ADDR
                    | UcpDefs.UCP_LISTENER_PARAM_FIELD_CONN_HANDLER);
            ucp_listener_params_t.sockaddr_addr(params, sockaddr);
            ucp_listener_params_t.sockaddr_addrlen(params, (int) sockaddr.byteSize());
            ucp_listener_params_t.conn_handler_cb(params, CONNECTION_UPCALL);
            ucp_listener_params_t.conn_handler_arg(params, MemorySegment.ofAddress(pack(slot, serial)));
            MemorySegment out = arena.allocate(ADDRESS);
            Ucp.check(Ucp.listenerCreate(handle, params, out), "listening on " + address);
            MemorySegment listener = out.get(ADDRESS, 0);
            MemorySegment attr = arena.allocate(ucp_listener_attr_t.LAYOUT);
            ucp_listener_attr_t.field_mask(attr, UcpDefs.UCP_LISTENER_ATTR_FIELD_SOCKADDR);
            int status = Ucp.listenerQuery(listener, attr);
            if (status != UcpDefs.UCS_OK) {
                Ucp.listenerDestroy(listener);
                throw Ucp.failure("querying the listener on " + address, status);
            }
            InetSocketAddress bound = SocketAddresses.decode(attr.asSlice(ucp_listener_attr_t.OFFSET_sockaddr,
                    UcpDefs.sockaddr_storage.SIZE));
            UcxListener l = new UcxListener(this, listener, serial, bound);
            synchronized (this) {
                listeners = append(listeners, l);
            }
            return l;
        }
    }

    /**
     * Connects to the listener at {@code peer} and waits until the connection is up (a flush of the new
     * endpoint completes). No listener there, an unreachable address, or a refusal throws MemchanException
     * naming the address, and leaves no endpoint behind.
     */
    public UcxEndpoint connect(InetSocketAddress peer) {
        requireBlockingAllowed("connect");
        SocketAddresses.require(peer, "connect");
        UcxEndpoint endpoint;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sockaddr = SocketAddresses.encode(peer, arena);
            MemorySegment params = arena.allocate(ucp_ep_params_t.LAYOUT);
            ucp_ep_params_t.field_mask(params, UcpDefs.UCP_EP_PARAM_FIELD_FLAGS | UcpDefs.UCP_EP_PARAM_FIELD_SOCK_ADDR);
            ucp_ep_params_t.flags(params, UcpDefs.UCP_EP_PARAMS_FLAGS_CLIENT_SERVER);
            ucp_ep_params_t.sockaddr_addr(params, sockaddr);
            ucp_ep_params_t.sockaddr_addrlen(params, (int) sockaddr.byteSize());
            endpoint = createEndpoint(params, peer.toString(), false, arena, "connecting to " + peer);
        }
        try {
            endpoint.flush();
        } catch (MemchanException e) {
            endpoint.close(true);
            throw new MemchanException(e.kind(), "no UCX peer answers at " + peer + ": " + e.getMessage(), e);
        }
        endpoint.connected = true;
        return endpoint;
    }

    /**
     * This worker's address ({@code ucp_worker_get_address}): what a peer passes to {@link #connect(byte[], String)}
     * to reach it. It names every interface the context's transports use ({@code UCX_NET_DEVICES}) and their ports.
     */
    public byte[] address() {
        requireBlockingAllowed("address");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment addressOut = arena.allocate(ADDRESS);
            MemorySegment lengthOut = arena.allocate(JAVA_LONG);
            Ucp.check(Ucp.workerGetAddress(handle, addressOut, lengthOut), "getting the address of UCX worker " + name);
            MemorySegment address = addressOut.get(ADDRESS, 0);
            try {
                return Ucp.view(address, lengthOut.get(JAVA_LONG, 0)).toArray(JAVA_BYTE);
            } finally {
                Ucp.workerReleaseAddress(handle, address);
            }
        }
    }

    /**
     * An endpoint to the worker whose {@link #address()} is {@code workerAddress} ({@code peer} names it in
     * messages). Does not wait: UCX wires the connection up with the first message either side sends; an
     * address that is no worker's fails that message or the endpoint ({@link UcxEvent.PeerFailed}). When both
     * workers make one endpoint to each other, UCX pairs them into one connection, so a message's reply
     * endpoint is the receiver's own endpoint to its sender.
     */
    public UcxEndpoint connect(byte[] workerAddress, String peer) {
        requireBlockingAllowed("connect");
        if (workerAddress.length == 0) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "connecting to " + peer + ": an empty worker address");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment params = arena.allocate(ucp_ep_params_t.LAYOUT);
            ucp_ep_params_t.field_mask(params, UcpDefs.UCP_EP_PARAM_FIELD_REMOTE_ADDRESS);
            ucp_ep_params_t.address(params, arena.allocateFrom(JAVA_BYTE, workerAddress));
            UcxEndpoint endpoint = createEndpoint(params, peer, false, arena, "connecting to " + peer + " by its worker address");
            endpoint.connected = true;
            return endpoint;
        }
    }

    /** ucp_ep_create with {@code params} plus peer error handling, registered with this worker. */
    private UcxEndpoint createEndpoint(MemorySegment params, String peer, boolean connected, Arena arena, String what) {
        int serial = serials.incrementAndGet();
        ucp_ep_params_t.field_mask(params, ucp_ep_params_t.field_mask(params) | UcpDefs.UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE
                | UcpDefs.UCP_EP_PARAM_FIELD_ERR_HANDLER);
        ucp_ep_params_t.err_mode(params, UcpDefs.UCP_ERR_HANDLING_MODE_PEER);
        ucp_ep_params_t.err_handler_cb(params, ERROR_UPCALL);
        ucp_ep_params_t.err_handler_arg(params, MemorySegment.ofAddress(pack(slot, serial)));
        MemorySegment out = arena.allocate(ADDRESS);
        synchronized (this) {
            // under the lock: the error upcall of a fast failure finds the endpoint registered
            Ucp.check(Ucp.epCreate(handle, params, out), what);
            UcxEndpoint endpoint = new UcxEndpoint(this, out.get(ADDRESS, 0), serial, peer, connected);
            endpoints = append(endpoints, endpoint);
            return endpoint;
        }
    }

    /** The progress thread's side of a connection request: an endpoint for it, reported as accepted. */
    private void accept(UcxListener listener, MemorySegment request) {
        if (listener.closed() || closing) {
            return; // UCX rejects requests of a destroyed listener itself
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment params = arena.allocate(ucp_ep_params_t.LAYOUT);
            ucp_ep_params_t.field_mask(params, UcpDefs.UCP_EP_PARAM_FIELD_CONN_REQUEST);
            ucp_ep_params_t.conn_request(params, request);
            UcxEndpoint endpoint = createEndpoint(params, "a peer of " + listener.address(), true, arena,
                    "accepting a connection on " + listener.address());
            deliver(new UcxEvent.Accepted(listener, endpoint));
        } catch (MemchanException e) {
            deliver(new UcxEvent.HandlerFailed(-1, e));
        }
    }

    /** ucp_ep_close_nbx, waited for; a peer that goes away meanwhile does not keep the endpoint open. */
    void closeEndpoint(UcxEndpoint endpoint, boolean force) {
        synchronized (this) {
            endpoints = remove(endpoints, endpoint);
        }
        MemorySegment param = Scratch.get().flags(force ? UcpDefs.UCP_EP_CLOSE_FLAG_FORCE : 0);
        try {
            await(Ucp.epCloseNbx(endpoint.handle, param), "closing the endpoint", endpoint);
        } catch (MemchanException e) {
            // the close completed with the peer's failure: the endpoint is released all the same
        }
    }

    void closeListener(UcxListener listener) {
        synchronized (this) {
            listeners = remove(listeners, listener);
        }
        Ucp.listenerDestroy(listener.handle);
    }

    private UcxEndpoint endpointByHandle(long address) {
        for (UcxEndpoint e : endpoints) {
            if (e.handle.address() == address) {
                return e;
            }
        }
        return null;
    }

    private UcxEndpoint endpointBySerial(int serial) {
        for (UcxEndpoint e : endpoints) {
            if (e.serial == serial) {
                return e;
            }
        }
        return null;
    }

    // ---- active messages ---------------------------------------------------------------------------

    static void checkAmId(int id) {
        if (id < 0 || id > MAX_AM_ID) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "active-message id " + id + " outside 0.." + MAX_AM_ID);
        }
    }

    /**
     * Registers the handler of active message {@code id}: the one receiver of that id on this worker.
     * A second registration of an id throws {@code IN_USE}; {@link #removeHandler} first.
     */
    public void setHandler(int id, AmHandler handler) {
        checkAmId(id);
        requireBlockingAllowed("setHandler");
        if (!handlers.compareAndSet(id, null, handler)) {
            throw new MemchanException(MemchanException.Kind.IN_USE, "active-message id " + id + " has a handler on worker " + name);
        }
        try {
            registerAm(id, AM_UPCALL);
        } catch (MemchanException e) {
            handlers.set(id, null);
            throw e;
        }
    }

    /** Removes the handler of {@code id}; messages of that id are dropped by UCX from then on. */
    public void removeHandler(int id) {
        checkAmId(id);
        requireBlockingAllowed("removeHandler");
        registerAm(id, MemorySegment.NULL);
        handlers.set(id, null);
    }

    private void registerAm(int id, MemorySegment callback) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment param = arena.allocate(ucp_am_handler_param_t.LAYOUT);
            ucp_am_handler_param_t.field_mask(param, UcpDefs.UCP_AM_HANDLER_PARAM_FIELD_ID | UcpDefs.UCP_AM_HANDLER_PARAM_FIELD_CB
                    | UcpDefs.UCP_AM_HANDLER_PARAM_FIELD_ARG | UcpDefs.UCP_AM_HANDLER_PARAM_FIELD_FLAGS);
            ucp_am_handler_param_t.id(param, id);
            ucp_am_handler_param_t.flags(param, UcpDefs.UCP_AM_FLAG_WHOLE_MSG);
            ucp_am_handler_param_t.cb(param, callback);
            ucp_am_handler_param_t.arg(param, MemorySegment.ofAddress(pack(slot, id)));
            Ucp.check(Ucp.setAmRecvHandler(handle, param), "setting the handler of active message " + id);
        }
    }

    private void receive(int id, MemorySegment header, long headerLength, MemorySegment data, long length, MemorySegment param) {
        AmHandler handler = handlers.get(id);
        if (handler == null) {
            return;
        }
        MemorySegment p = Ucp.view(param, ucp_am_recv_param.SIZE);
        long attr = ucp_am_recv_param.recv_attr(p);
        if ((attr & UcpDefs.UCP_AM_RECV_ATTR_FLAG_RNDV) != 0) {
            // this layer's senders use eager only; a rendezvous message comes from something else
            post(new UcxEvent.HandlerFailed(id, new MemchanException(MemchanException.Kind.UNSUPPORTED,
                    "a rendezvous active message (" + length + " bytes) was dropped: senders must use eager")));
            return;
        }
        UcxEndpoint from = (attr & UcpDefs.UCP_AM_RECV_ATTR_FIELD_REPLY_EP) != 0
                ? endpointByHandle(ucp_am_recv_param.reply_ep(p).address()) : null;
        if (Thread.currentThread() == progressThread) {
            runHandler(id, handler, from, Ucp.view(header, headerLength), Ucp.view(data, length));
        } else {
            // UCX's buffer is gone when the callback returns: copy before handing over
            MemorySegment h = MemorySegment.ofArray(Ucp.view(header, headerLength).toArray(JAVA_BYTE));
            MemorySegment d = MemorySegment.ofArray(Ucp.view(data, length).toArray(JAVA_BYTE));
            execute(() -> runHandler(id, handler, from, h, d));
        }
    }

    private void runHandler(int id, AmHandler handler, UcxEndpoint from, MemorySegment header, MemorySegment payload) {
        inHandler = true;
        try {
            handler.onMessage(from, header, payload);
        } catch (RuntimeException | AssertionError e) {
            post(new UcxEvent.HandlerFailed(id, e));
        } finally {
            inHandler = false;
        }
    }

    // ---- upcalls (UCX calls these inside ucp_worker_progress, on whichever thread progresses) -------

    private static long pack(int slot, int low) {
        return ((long) slot << 32) | (low & 0xFFFF_FFFFL) | 0x1_0000_0000_0000L; // never NULL
    }

    private static UcxWorker worker(long arg) {
        return SLOTS.get((int) ((arg >>> 32) & 0xFFFF));
    }

    private static byte onMessage(MemorySegment arg, MemorySegment header, long headerLength, MemorySegment data, long length,
                                 MemorySegment param) {
        try {
            UcxWorker w = worker(arg.address());
            if (w != null) {
                w.receive((int) arg.address(), header, headerLength, data, length, param);
            }
        } catch (Throwable t) {
            reportUpcallFailure("an active message", t); // never unwind into UCX
        }
        return (byte) UcpDefs.UCS_OK; // the data is not kept: UCX may release it
    }

    private static void onError(MemorySegment arg, MemorySegment ep, byte status) {
        try {
            UcxWorker w = worker(arg.address());
            if (w != null) {
                w.endpointFailed((int) arg.address(), status);
            }
        } catch (Throwable t) {
            reportUpcallFailure("an endpoint error", t);
        }
    }

    private static void onConnection(MemorySegment request, MemorySegment arg) {
        try {
            UcxWorker w = worker(arg.address());
            if (w != null) {
                w.connectionRequested((int) arg.address(), request);
            }
        } catch (Throwable t) {
            reportUpcallFailure("a connection request", t);
        }
    }

    private static void reportUpcallFailure(String what, Throwable t) {
        System.err.println("memchan: UCX upcall for " + what + " failed: " + t);
    }

    private void endpointFailed(int serial, int status) {
        UcxEndpoint endpoint = endpointBySerial(serial);
        if (endpoint != null && endpoint.markFailed(status) && endpoint.connected && !endpoint.closed()) {
            post(new UcxEvent.PeerFailed(endpoint, status, Ucp.statusString(status)));
        }
    }

    private void connectionRequested(int serial, MemorySegment request) {
        for (UcxListener l : listeners) {
            if (l.serial == serial) {
                execute(() -> accept(l, request));
                return;
            }
        }
    }

    // ---- closing -----------------------------------------------------------------------------------

    @Override
    public void close() {
        if (Thread.currentThread() == progressThread) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "UCX worker " + name + " closed from its own progress thread");
        }
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closing = true;
        Ucp.workerSignal(handle);
        boolean interrupted = false;
        while (progressThread.isAlive()) {
            try {
                progressThread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        for (UcxListener l : listeners) {
            l.close();
        }
        for (UcxEndpoint e : endpoints) {
            e.close(true); // forced: a worker's close does not wait for its peers
        }
        Ucp.workerDestroy(handle);
        SLOTS.set(slot, null);
        context.forget(this);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static <T> T[] append(T[] array, T item) {
        T[] copy = Arrays.copyOf(array, array.length + 1);
        copy[array.length] = item;
        return copy;
    }

    private static <T> T[] remove(T[] array, T item) {
        return Arrays.stream(array).filter(x -> x != item).toArray(n -> Arrays.copyOf(array, n));
    }

    @Override
    public String toString() {
        return "UcxWorker[" + name + (closed.get() ? ", closed" : "") + "]";
    }
}
