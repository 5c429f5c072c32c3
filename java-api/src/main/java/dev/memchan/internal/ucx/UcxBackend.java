package dev.memchan.internal.ucx;

import dev.memchan.ClusterTime;
import dev.memchan.FabricOptions;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.HostIdentity;
import dev.memchan.internal.local.NodeLocal;
import dev.memchan.internal.local.NodeShared;
import dev.memchan.internal.nativeio.ErrnoException;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.internal.soft.SoftFabricBackend;
import dev.memchan.internal.soft.SoftFabricFile;
import dev.memchan.internal.soft.SoftNotificationQueue;
import dev.memchan.internal.ucx.HubWire.Envelope;
import dev.memchan.internal.ucx.HubWire.Message;
import dev.memchan.internal.ucx.HubWire.RemoteOp;
import dev.memchan.layout.NotifyQueueDescriptor;
import dev.memchan.layout.TxPct;
import dev.memchan.spi.Backend;
import dev.memchan.spi.NotificationQueue;
import dev.memchan.spi.RemoteWindow;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import static dev.memchan.layout.Regs.CAPS_ATOMICS_MASK;
import static dev.memchan.layout.Regs.CAPS_MULTICAST_MASK;
import static dev.memchan.layout.Regs.CAPS_PAGE_COUNTERS_MASK;
import static dev.memchan.layout.Regs.CAPS_REMOTE_READ_MASK;
import static dev.memchan.layout.Regs.REG_CAPS;
import static dev.memchan.layout.Regs.REG_ERROR_COUNT;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A node of a {@code ucx://HOST:PORT/NAME} fabric: this host's soft fabric (named from NAME and the hub's
 * address) plus the hub. The soft fabric gives the node's claim on this host, node sharing, the PCTs, receive
 * grants (read-only maps of the host's one copy of every page), notifications, page counters and the serving of
 * remote operations at homes on this host. Transmit grants are shadows ({@link ShadowGrant}): pushes go to the hub
 * as WRITE messages (one per push, or several pushes combined while the hub is behind), which it sequences into the stream of each destination host and sends it to every process
 * of that host; whichever holds the stream up to it first applies it into the pages, in order, word-atomically,
 * under the host's apply lock ({@link HostState}).
 * docs/ucx.md, "The backend", says when a store reaches the others and what the hub's death does.
 */
public final class UcxBackend implements Backend, NodeShared {
    private static final VarHandle LONG = JAVA_LONG.varHandle();
    private static final VarHandle BYTE = JAVA_BYTE.varHandle();
    /** A word of a message's bytes as it lies in memory (native order), read in place. */
    private static final VarHandle BYTES_AS_LONG = java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class,
            java.nio.ByteOrder.nativeOrder());
    /** Time round trips to the hub for the clock's offset; the fastest one counts. */
    private static final int TIME_PROBES = 5;
    /**
     * How far two hosts' monotonic clocks may run apart, as a divisor of the time since the last
     * synchronization: 1/10,000 (100 ppm, two crystals of +-50 ppm). The estimate's bound grows by it.
     */
    private static final long DRIFT_DIVISOR = 10_000;
    /** A reading this long after the last synchronization synchronizes again (its bound has grown by 2 ms). */
    private static final long RESYNC_NANOS = Duration.ofSeconds(10).toNanos();
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(30);
    /**
     * CAPS of a node here: a network adapter, not a soft fabric (no SOFT: a local copy comes back through the
     * hub, after the store), with multicast groups, remote read, atomics and page counters served at the home's
     * host. No GLOBAL_CLOCK (the cluster time is the hub's clock, {@link #clusterTime()}, not adapter registers),
     * no HUB_MODE (no NODES_UP register: the hub's admission gives node IDs), no link bits (UCX retransmits).
     */
    static final int CAPS = CAPS_MULTICAST_MASK | CAPS_REMOTE_READ_MASK | CAPS_ATOMICS_MASK | CAPS_PAGE_COUNTERS_MASK;
    /**
     * WRITE messages of this port the hub may not have sequenced yet before pushes wait in a batch: while the hub is
     * behind, the pushes made meanwhile go to it as one message of several runs when it confirms one (write-combining).
     */
    static final int SEND_AHEAD = 4;
    /** Batches waiting for the hub before a push waits for room, and before a message that orders them waits to send them. */
    static final int MAX_QUEUED = 4;
    /** Writes and notifications of this port the hub may not have sequenced yet before the next one waits. */
    static final int MAX_UNSEQUENCED = 256;
    /**
     * System property: the name of the host this process belongs to, when one machine is to be several hosts of
     * the fabric (a test): each name is a host of its own at the hub, with its own fabric file and stream.
     * 1-16 characters of [A-Za-z0-9].
     */
    public static final String HOST_PROPERTY = "memchan.ucx.host";
    /** System property: the fabric's secret file ({@link JoinSecret}), which the join handshake proves this node holds. */
    public static final String SECRET_PROPERTY = "memchan.ucx.secret";
    /** Environment variable: the secret file, where {@link #SECRET_PROPERTY} is not set (child processes inherit it). */
    public static final String SECRET_ENVIRONMENT = "MEMCHAN_UCX_SECRET";

    private final UcxLocation at;
    private final String location;
    private final UcxContext context;
    private final UcxWorker worker;
    /** The hubs of the location, in the order this node uses them: the hub, then its standby when named. */
    private final List<InetSocketAddress> hubs;
    /** Which of {@link #hubs} this node is joined at. */
    private volatile int hubIndex;
    private volatile UcxEndpoint hub;
    /** The join's connection, open for the node's life: its end is the hub's death (or its letting this node go). */
    private volatile JoinLink control;
    /** This backend's session at the hubs: a standby that took over knows it, and what of it the hub sequenced. */
    private final long session = sessionNumber();
    private final int node;
    private final long hubId;
    private volatile SoftFabricBackend soft;
    private HostState hostState;
    private Arena dataArena;
    /** The host's pages, writable: written only by the host's stream, under the host's apply lock. */
    private MemorySegment data;
    private volatile boolean ready;
    private volatile MemchanException hubFailure;
    private volatile boolean closed;

    private final Object sendLock = new Object();
    private long portSeq;
    /**
     * WRITE and NOTIFY messages the hub has not confirmed as sequenced, by port sequence: sent once more to the standby
     * when it did not get them from the hub, else lost and counted as errors when the hub dies.
     */
    private final TreeMap<Long, byte[]> unconfirmed = new TreeMap<>();
    /** WRITE messages not sent yet, in push order; pushes append to the last. Under the send lock, as are the spares. */
    private final ArrayDeque<WriteBatch> queued = new ArrayDeque<>();
    private final ArrayDeque<WriteBatch> spareBatches = new ArrayDeque<>();
    /** WRITE messages this port made of its pushes (one sent again to a standby counts once). */
    private long writeMessages;
    private final Arena batchArena = Arena.ofShared();
    /** The buffer other messages are sent from (under the send lock; a send returns once it may be reused). */
    private MemorySegment sendBuffer = MemorySegment.NULL;
    private final ShadowGrant.Sender pushes = new ShadowGrant.Sender() {
        @Override
        public void append(int entry, long at, MemorySegment snapshot, long from, long length) {
            appendWrite(entry, at, snapshot, from, length);
        }

        @Override
        public void pushed() {
            UcxBackend.this.pushed();
        }
    };
    /** Whether this node is moving to the standby (under the send lock): sends wait, the progress thread's are dropped. */
    private boolean switching;
    /** Whether the hub let this node go because the cluster declared its incarnation dead. */
    private volatile boolean fencedOff;
    /** Errors counted before the host's fabric (and this node's error count register in it) was open. */
    private final AtomicLong errorsBeforeOpen = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    /** The hub's word that this host's fabric is made (or that this process makes it), for a process that joined meanwhile. */
    private final CompletableFuture<Message> hostReady = new CompletableFuture<>();
    private final List<ShadowGrant> shadows = new ArrayList<>();
    private final List<UcxRemoteWindow> windows = new ArrayList<>();

    /** Progress-thread state: the host stream's messages not applied yet, and the windows remote requests are served with. */
    private final TreeMap<Long, byte[]> streamAhead = new TreeMap<>();
    private final Map<List<Integer>, RemoteWindow> served = new HashMap<>();
    private final HubWire.RunVisitor storeRun = this::store;
    private boolean appliedDue;

    /** The last synchronization with the hub's clock; replaced whole, so a reader sees one consistent estimate. */
    private volatile ClockEstimate clock;
    private final ReentrantLock clockSync = new ReentrantLock();

    /**
     * At local time {@code syncedAt} the hub's clock lay in {@code syncedAt + hubMinusLocal ..} that plus
     * {@code roundTrip}: the hub read it somewhere inside the round trip that ended at {@code syncedAt}.
     */
    private record ClockEstimate(long hubMinusLocal, long roundTrip, long syncedAt) {}

    /** A request waiting for the hub's answer: sent again to a standby that takes over, or failed when that is unsafe. */
    private record Pending(Message request, CompletableFuture<Message> answer) {}

    private static long sessionNumber() {
        long n = 0;
        while (n == 0) {
            n = new java.security.SecureRandom().nextLong();
        }
        return n;
    }

    /**
     * UCX's settings for a node of, or the hub at, {@code address}: TCP unless the environment names transports
     * ({@code UCX_TLS}); unless the environment names devices ({@code UCX_NET_DEVICES}), only the device this host
     * reaches {@code address} through (the hub's own device at the hub), so that UCX's data port listens on that
     * interface alone and the worker address names no other.
     */
    public static Map<String, String> transportSettings(InetSocketAddress address) {
        Map<String, String> settings = new HashMap<>();
        if (System.getenv("UCX_TLS") == null) {
            settings.put("TLS", "tcp");
        }
        if (System.getenv("UCX_NET_DEVICES") == null) {
            String device = deviceTowards(address);
            if (device != null) {
                settings.put("NET_DEVICES", device);
            }
        }
        return settings;
    }

    /** The network device the route to {@code address} leaves by (a connected UDP socket's source; nothing is sent), or null. */
    static String deviceTowards(InetSocketAddress address) {
        if (address.getAddress().isLoopbackAddress()) {
            return "lo";
        }
        try (java.net.DatagramSocket probe = new java.net.DatagramSocket()) {
            probe.connect(address);
            java.net.NetworkInterface device = java.net.NetworkInterface.getByInetAddress(probe.getLocalAddress());
            return device == null ? null : device.getName();
        } catch (java.io.IOException | RuntimeException e) {
            return null; // no route known here: UCX picks its devices itself
        }
    }

    private UcxBackend(UcxLocation at, FabricOptions options) {
        this.at = at;
        this.location = at.toString();
        this.hubs = at.hubAddresses();
        this.context = UcxContext.open(transportSettings(hubs.getFirst()));
        UcxWorker w = null;
        try {
            JoinSecret secret = JoinSecret.load(secretFile());
            w = context.newWorker("ucx-" + at.name(), this::onEvent);
            UcxWorker mine = w;
            w.setHandler(HubWire.TO_NODE, (from, header, payload) -> {
                byte[] bytes = payload.toArray(JAVA_BYTE);
                mine.execute(() -> fromHub(bytes));
            });
            long deadline = System.nanoTime() + REPLY_TIMEOUT.toNanos();
            JoinHandshake.Joined joined = null;
            for (int i = 0; joined == null; i++) {
                try {
                    joined = joinAt(i, options.nodeId(), false, secret, w.address(), deadline);
                    hubIndex = i;
                } catch (MemchanException failed) {
                    if (failed.getCause() instanceof JoinRefusal || i + 1 == hubs.size()) {
                        throw failed;
                    }
                    // the hub does not answer: its standby serves if it took over
                }
            }
            control = joined.link();
            HubWire.HubWelcome welcome = HubWire.HubWelcome.of(joined.hub());
            this.worker = w;
            this.hub = w.connect(welcome.worker(), "the hub at " + hubName());
            this.node = welcome.node();
            this.hubId = welcome.hubId();
            watch(control);
            openHost(welcome, options);
        } catch (RuntimeException failed) {
            if (control != null) {
                control.close();
            }
            if (w != null) {
                w.close();
            }
            closeQuietly(); // the soft fabric's close releases the windows remote requests were served with
            context.close();
            throw failed;
        }
    }

    /** HOST:PORT of the hub this node is joined at. */
    private String hubName() {
        return hubName(hubIndex);
    }

    /** HOST:PORT of hub {@code index} of {@link #hubs}, as the location names it. */
    private String hubName(int index) {
        return index == 0 ? UcxLocation.hostPort(at.host(), at.port()) : UcxLocation.hostPort(at.standbyHost(), at.standbyPort());
    }

    /**
     * Joins hub {@code index} of {@link #hubs} as node {@code nodeId}, resuming this backend's session when
     * {@code resume}: the standby (index 1, tried when the hub is gone) is asked again until {@code deadline} while
     * it has not taken over yet. A refusal is the hub's ({@link #refusal}, caused by the {@link JoinRefusal}); no hub
     * answering is DEVICE_ERROR naming it.
     */
    private JoinHandshake.Joined joinAt(int index, int nodeId, boolean resume, JoinSecret secret, byte[] workerAddress, long deadline) {
        JoinFields fields = new HubWire.NodeJoin(nodeId, HubWire.VERSION, hostKey(), Posix.getpid(), session, resume, workerAddress).toFields();
        while (true) {
            try {
                return JoinHandshake.join(hubs.get(index), secret, at.name(), fields, REPLY_TIMEOUT);
            } catch (JoinRefusal refused) {
                if (index == 0 || !refused.getMessage().contains(UcxHub.STANDBY_NOT_SERVING) || System.nanoTime() - deadline >= 0) {
                    throw refusal(refused, index);
                }
            } catch (MemchanException failed) {
                throw new MemchanException(Kind.DEVICE_ERROR, "hub at " + hubName(index) + " unreachable: " + failed.getMessage(), failed);
            }
            try {
                Thread.sleep(20); // the standby learns of its primary's end through its own connection to it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MemchanException(Kind.TIMEOUT, location + ": interrupted while the standby at " + hubName(index) + " takes over");
            }
        }
    }

    /**
     * The fabric's secret file: the system property {@link #SECRET_PROPERTY}, else the environment variable
     * {@link #SECRET_ENVIRONMENT}; INVALID_ARGUMENT when neither names one.
     */
    private Path secretFile() {
        String file = System.getProperty(SECRET_PROPERTY, System.getenv(SECRET_ENVIRONMENT));
        if (file == null || file.isEmpty()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, location + ": no secret file for the join: set the system property "
                    + SECRET_PROPERTY + " or the environment variable " + SECRET_ENVIRONMENT + " to the fabric's secret file (mode 0600)");
        }
        return Path.of(file);
    }

    /**
     * The hub's refusal as this node throws it: an admission's refusal names its kind in brackets first (a node ID
     * in use, out of range), the handshake's refusals are the handshake's.
     */
    private MemchanException refusal(JoinRefusal refused, int index) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\[([A-Z_]+)] (.*)", java.util.regex.Pattern.DOTALL)
                .matcher(refused.getMessage());
        if (refused.reason() == JoinRefusal.Reason.NOT_ADMITTED && m.find()) {
            for (Kind kind : Kind.values()) {
                if (kind.name().equals(m.group(1))) {
                    return new MemchanException(kind, location + ": the hub at " + hubName(index) + " refused the join: " + m.group(2), refused);
                }
            }
        }
        return new MemchanException(refused.kind(), location + ": " + refused.getMessage(), refused);
    }

    /** The {@link #HOST_PROPERTY}, checked, or null. */
    private static String hostName() {
        String name = System.getProperty(HOST_PROPERTY);
        if (name != null && !name.matches("[A-Za-z0-9]{1,16}")) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, HOST_PROPERTY + " '" + name + "' is not 1-16 characters of [A-Za-z0-9]");
        }
        return name;
    }

    /** This process's host as the hub knows it: the kernel's identity, and the {@link #HOST_PROPERTY} when set. */
    static long hostKey() {
        String name = hostName();
        return name == null ? HostIdentity.hostId() : HostIdentity.hostId() * 31 + name.hashCode();
    }

    /** Joins {@code location} as {@code options} say (node ID, timing); the hub gives the node ID and the geometry. */
    public static UcxBackend join(UcxLocation location, FabricOptions options) {
        return new UcxBackend(location, options);
    }

    /**
     * The host's fabric and state: made by the host's first process, opened by the others once it is made (the hub
     * says when, or asks this process to make it when the first is gone); then the clock.
     */
    private void openHost(HubWire.HubWelcome welcome, FabricOptions options) {
        String fabricName = at.hostFabricName(hostKey());
        Path path = SoftFabricFile.pathOf(fabricName);
        boolean make = welcome.first();
        if (!make && !welcome.ready()) {
            make = ((Message.HostReady) await(hostReady, "waiting for this host's first process to make the host's fabric")).make();
        }
        if (make) {
            long[] incarnations = new long[0];
            if (Files.exists(path)) { // another hub instance's, or this host's before it left: nobody has it open
                incarnations = SoftFabricFile.incarnations(path);
                SoftFabricFile.remove(path);
            }
            SoftFabricFile.create(path, welcome.fabricSize(), welcome.pageSize(), welcome.maxNodes(), options.group());
            SoftFabricFile.continueIncarnations(path, incarnations); // a node that comes back is a new incarnation
            hostState = HostState.create(fabricName, welcome.hubId());
        } else {
            hostState = HostState.open(fabricName, welcome.hubId());
        }
        if (welcome.incarnationFloor() > 0) { // the node's first process here: its claim goes past its incarnations elsewhere
            SoftFabricFile.raiseIncarnation(path, welcome.node(), welcome.incarnationFloor());
        }
        soft = SoftFabricBackend.join("shm:" + fabricName, path, welcome.node(), options.heartbeatPeriod(), options.failureTimeout());
        SoftFabricFile.Opened file = SoftFabricFile.open(path);
        dataArena = Arena.ofShared();
        try {
            data = Posix.mmap(file.fd(), file.layout().dataPage(0), (long) file.layout().pageCount() * file.layout().pageSize(), true, dataArena);
        } catch (ErrnoException e) {
            throw new MemchanException(Kind.DEVICE_ERROR, location + ": cannot map the host's pages: " + e.getMessage(), e);
        } finally {
            Posix.close(file.fd());
        }
        ready = true;
        worker.execute(this::applyStream);
        send(new Message.Incarnation(soft.incarnation())); // what a survivor names when it declares this node dead
        if (make) {
            send(new Message.HostReady(false));
        }
        syncClock();
    }

    // ---- messages from the hub (progress thread) ------------------------------------------------

    private void onEvent(UcxEvent event) {
        switch (event) {
            case UcxEvent.PeerFailed f when f.endpoint() == hub -> hubPeerFailed(f.endpoint(), f.reason());
            case UcxEvent.PeerFailed f -> f.endpoint().close();
            case UcxEvent.HandlerFailed h -> System.err.println("memchan " + location + ": " + h.error());
            case UcxEvent.Accepted a -> a.endpoint().close(); // a node listens for nothing
        }
    }

    /** The hub's UCX connection failed: its control connection is ended, whose watcher moves on to the standby if one is ahead. */
    private void hubPeerFailed(UcxEndpoint failed, String reason) {
        synchronized (sendLock) {
            if (failed != hub) {
                return; // a former hub's: this node has moved on
            }
            if (standbyAhead()) {
                control.close();
                return;
            }
        }
        hubFailed(reason);
    }

    /** Whether a standby is named that this node has not moved to yet, and this node is open (it may resume there). */
    private boolean standbyAhead() {
        return hubIndex + 1 < hubs.size() && ready && !closed;
    }

    /**
     * A message from the hub. A host's stream is taken from any hub (a standby's is its primary's, message by message),
     * and so are answers (request numbers are this backend's, and a former hub's barrier watermark is in the same
     * numbering). What the former hub sent is taken before the move to the standby renumbers this port
     * ({@link #moveToStandby}).
     */
    private void fromHub(byte[] bytes) {
        Envelope e = null;
        long streamSeq = 0;
        try { // only what the bytes are: an error of this node's own (its worker closing) is no message lost
            if (bytes.length > 0 && bytes[0] == HubWire.Type.STREAM_WRITE.ordinal()) { // the bulk of the stream: checked, applied in place
                streamSeq = HubWire.checked(bytes);
            } else {
                e = HubWire.decode(bytes);
            }
        } catch (MemchanException bad) {
            countErrors(1, "from the hub: " + bad.getMessage());
            return;
        }
        if (e == null) {
            if (streamSeq > 0) {
                streamAhead.put(streamSeq, bytes);
                applyStream();
            }
            return;
        }
        switch (e.message()) {
            case Message.Notify _, Message.Remote _ -> {
                if (e.seq() > 0) {
                    streamAhead.put(e.seq(), bytes);
                    applyStream();
                }
            }
            case Message.HostReady h -> hostReady.complete(h);
            case Message.Refused r -> {
                countErrors(1, "the hub ends this node's connection: " + r.message());
            }
            case Message.Sequenced s -> {
                synchronized (sendLock) {
                    unconfirmed.headMap(s.portSeq(), true).clear();
                    try {
                        sendQueued(false);
                    } catch (MemchanException failed) {
                        // the PeerFailed event of the hub's endpoint counts what is lost
                    }
                    sendLock.notifyAll();
                }
            }
            case Message.BarrierDone b -> complete(b.request(), b);
            case Message.Result r -> complete(r.request(), r);
            case Message.TimeReply t -> complete(t.request(), t);
            default -> {
                countErrors(1, "the hub sent " + e.type() + ", which is not a message to a node");
            }
        }
    }

    private void complete(long request, Message m) {
        Pending p = pending.remove(request);
        if (p != null) {
            p.answer().complete(m);
        }
    }

    /**
     * Applies the host's stream in host-sequence order from what this host applied so far, under the host's apply
     * lock: what is at or below it another process of the host applied; a gap waits for the hub (or for another
     * process of the host to apply it). Answers to remote requests are sent after the lock is released.
     */
    private void applyStream() {
        if (!ready || streamAhead.isEmpty()) {
            return;
        }
        List<Message.Answer> answers = new ArrayList<>();
        boolean any = false;
        hostState.lock();
        try {
            long applied = hostState.applied();
            Map.Entry<Long, byte[]> next;
            while ((next = streamAhead.firstEntry()) != null && next.getKey() <= applied + 1) {
                streamAhead.pollFirstEntry();
                if (next.getKey() <= applied) {
                    any = true; // applied by another process of the host, which may be stopped before acknowledging it
                    continue;
                }
                Message.Answer answer = apply(next.getValue());
                if (answer != null) {
                    answers.add(answer);
                }
                applied = next.getKey();
                hostState.setApplied(applied);
                any = true;
            }
        } finally {
            hostState.unlock();
        }
        for (Message.Answer a : answers) {
            trySend(a);
        }
        if (any && !appliedDue) {
            try {
                worker.execute(this::sendApplied); // after the messages already queued: one acknowledgement for them
                appliedDue = true;
            } catch (MemchanException closing) {
                // this process is closing: the host's other processes acknowledge, and the hub sends the next receiver what is not
            }
        }
    }

    private void sendApplied() {
        appliedDue = false;
        if (hubFailure == null) {
            trySend(new Message.Applied(hostState.applied()));
        }
    }

    /** Applies one message of the host's stream (checked when it came); a remote request's answer, to be sent, or null. */
    private Message.Answer apply(byte[] bytes) {
        if (bytes[0] == HubWire.Type.STREAM_WRITE.ordinal()) {
            HubWire.forEachRun(bytes, storeRun);
            return null;
        }
        switch (HubWire.decode(bytes).message()) {
            case Message.Notify n -> {
                if (n.page() < 0 || n.page() >= soft.pageCount()) {
                    return null;
                }
                if (n.dest() == Message.Notify.NO_DEST) {
                    soft.raiseNotify(n.page());
                } else if (n.dest() >= 0 && n.dest() < soft.maxNodes() && n.sender() >= 0 && n.sender() < soft.maxNodes()
                        && n.payload() >= 0 && n.payload() <= NotifyQueueDescriptor.MAX_PAYLOAD) {
                    // every host hears it; the receiver's host alone has the page in the receiver's receive PCT
                    soft.deliverNotification(n.dest(), n.page(), n.sender(), n.payload());
                } else {
                    countErrors(1, "a notification of page " + n.page() + " to node " + n.dest() + " from node " + n.sender()
                            + " with payload " + n.payload() + " outside the fabric's bounds");
                }
                return null;
            }
            case Message.Remote r -> {
                return serve(r);
            }
            default -> throw new IllegalStateException("a stream holds writes, notifications and remote requests");
        }
    }

    /**
     * Stores {@code length} bytes of {@code message} from {@code at} at window offset {@code offset} of the pages: each
     * aligned 8-byte word in one store, in ascending order.
     */
    private void store(long offset, byte[] message, int at, int length) {
        if (offset < 0 || offset + length > data.byteSize()) {
            countErrors(1, "a stream's run of " + length + " bytes at " + offset + " outside the " + data.byteSize() + "-byte window");
            return;
        }
        int i = 0;
        while (i < length && ((offset + i) & 7) != 0) {
            BYTE.setRelease(data, offset + i, message[at + i]);
            i++;
        }
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            LONG.setRelease(data, offset + i, (long) BYTES_AS_LONG.get(message, at + i));
        }
        for (; i < length; i++) {
            BYTE.setRelease(data, offset + i, message[at + i]);
        }
    }

    /** A remote request at a home on this host, served by the host's soft fabric as a local requester would be. */
    private Message.Answer serve(Message.Remote r) {
        try {
            RemoteWindow w = served.get(List.of(r.home(), r.firstPage(), r.count()));
            if (w == null) {
                w = soft.openRemote(r.home(), r.firstPage(), r.count());
                served.put(List.of(r.home(), r.firstPage(), r.count()), w);
            }
            return switch (r.op()) {
                case CHECK -> new Message.Answer(r.request(), 0, 0, new byte[0], "");
                case READ_LONG -> new Message.Answer(r.request(), 0, w.getLongAcquire(r.offset()), new byte[0], "");
                case FETCH_ADD -> new Message.Answer(r.request(), 0, w.getAndAdd(r.offset(), r.a()), new byte[0], "");
                case CAS -> new Message.Answer(r.request(), 0, w.compareAndExchange(r.offset(), r.a(), r.b()), new byte[0], "");
                case SWAP -> new Message.Answer(r.request(), 0, w.getAndSet(r.offset(), r.a()), new byte[0], "");
                case COPY -> {
                    if (r.length() < 0 || r.length() > HubWire.MAX_WRITE_BYTES) {
                        throw new MemchanException(Kind.INVALID_ARGUMENT, "a remote copy of " + r.length() + " bytes in one request");
                    }
                    byte[] out = new byte[r.length()];
                    w.copyTo(r.offset(), MemorySegment.ofArray(out), 0, r.length());
                    yield new Message.Answer(r.request(), 0, 0, out, "");
                }
            };
        } catch (MemchanException e) {
            return new Message.Answer(r.request(), e.kind().ordinal() + 1, 0, new byte[0], e.getMessage());
        }
    }

    /**
     * Waits for the end of the control connection (the hub sends nothing more on it) and moves on to the standby, or,
     * without one, reports it as the hub's failure.
     */
    private void watchControl(JoinLink link) {
        String why;
        try {
            why = letGo(link.read(Long.MAX_VALUE));
        } catch (JoinRefusal r) {
            why = "its control connection ended: " + r.getMessage();
        }
        if (link != control) {
            return; // a former hub's connection: this node has moved on
        }
        if (standbyAhead() && !fencedOff) { // a standby holds no session of a fenced node
            moveToStandby(why);
            return;
        }
        String reason = why;
        try {
            worker.execute(() -> hubFailed(reason));
        } catch (MemchanException closing) {
            // this node is closed: its own close ended the connection
        }
    }

    /**
     * Why the hub let this node go, from what it said on the control connection: a survivor declared this node's
     * incarnation dead (the hub dropped it: {@link #fencedOff}), or a message that has no place there.
     */
    private String letGo(byte[] said) {
        try {
            if (HubWire.decode(said).message() instanceof Message.DeclareDead d && d.node() == node && d.incarnation() == incarnation()) {
                fencedOff = true;
                return "the cluster declared node " + node + " (incarnation " + d.incarnation() + ") dead and the hub let it go";
            }
        } catch (MemchanException notAMessage) {
            // what follows says so
        }
        return "it sent a message on the control connection after its WELCOME";
    }

    @Override
    public boolean fencedOff() {
        return fencedOff;
    }

    /** Returns once the progress thread has run what was handed to it before (the former hub's last messages). */
    private void drainProgressThread() {
        CompletableFuture<Message> drained = new CompletableFuture<>();
        worker.execute(() -> drained.complete(null));
        await(drained, "taking the former hub's last messages");
    }

    private void watch(JoinLink link) {
        Thread.ofVirtual().name("memchan-hub-control-" + at.name()).start(() -> watchControl(link));
    }

    /**
     * The hub is gone and a standby is named: this node resumes its session there (the standby has taken over, or
     * does once its own connection to the hub ends). The standby says up to which of this port's messages it holds
     * as sequenced: those reach every host once through it; the writes and notifications after them are sent to it
     * once more, in their order, before anything new. Barriers and clock readings in flight are asked again; a remote
     * request in flight fails with DEVICE_ERROR and is counted as an error (whether its home applied it is unknown).
     * The host's stream goes on from what it applied. If the standby does not take this node, the hub's death is
     * reported as without one.
     */
    private void moveToStandby(String why) {
        UcxEndpoint former;
        String formerName = hubName();
        synchronized (sendLock) {
            if (switching || hubFailure != null || closed) {
                return;
            }
            switching = true;
            former = hub;
        }
        System.err.println("memchan " + location + ": the hub at " + formerName + " is gone (" + why + "): resuming at its standby");
        try {
            int next = hubIndex + 1;
            JoinHandshake.Joined joined = joinAt(next, node, true, JoinSecret.load(secretFile()), worker.address(),
                    System.nanoTime() + REPLY_TIMEOUT.toNanos());
            HubWire.HubWelcome welcome = HubWire.HubWelcome.of(joined.hub());
            if (welcome.hubId() != hubId || welcome.node() != node) {
                joined.link().close();
                throw new MemchanException(Kind.DEVICE_ERROR, "the standby at " + hubName(next) + " continues hub instance "
                        + Long.toHexString(welcome.hubId()) + " as node " + welcome.node() + ", not this node's");
            }
            UcxEndpoint resumed = worker.connect(welcome.worker(), "the hub at " + hubName(next));
            drainProgressThread(); // the former hub's last SEQUENCED counts in the numbering about to end
            List<Pending> inFlight;
            synchronized (sendLock) {
                inFlight = List.copyOf(pending.values()); // requests made from now on go to the standby only
                hubIndex = next;
                control = joined.link();
                hub = resumed;
                portSeq = 0;
                int held = unconfirmed.headMap(welcome.resumedUpTo(), true).size();
                unconfirmed.headMap(welcome.resumedUpTo(), true).clear();
                List<byte[]> again = List.copyOf(unconfirmed.values());
                unconfirmed.clear();
                System.err.println("memchan " + location + ": resumed at the standby at " + hubName(next) + ": of this node's "
                        + (held + again.size()) + " unconfirmed writes and notifications it held " + held + ", " + again.size()
                        + " are sent again");
                switching = false;
                for (byte[] m : again) {
                    byte[] renumbered = HubWire.renumbered(m, ++portSeq);
                    unconfirmed.put(portSeq, renumbered);
                    transmit(renumbered);
                }
                sendQueued(false);
                sendLock.notifyAll();
            }
            former.close();
            for (Pending p : inFlight) {
                if (p.request() instanceof Message.Remote r) {
                    countErrors(1, "remote request " + r.request() + " in flight when the hub at " + formerName + " died");
                    p.answer().completeExceptionally(new MemchanException(Kind.DEVICE_ERROR, "request " + r.request() + " was in flight "
                            + "when the hub at " + formerName + " died: whether node " + r.home() + " applied it is unknown"));
                } else {
                    send(p.request());
                }
            }
            trySend(new Message.Applied(hostState.applied()));
            watch(control);
            syncClock();
        } catch (MemchanException failed) {
            synchronized (sendLock) {
                switching = false;
                sendLock.notifyAll();
            }
            try {
                worker.execute(() -> hubFailed("its standby did not take this node: " + failed.getMessage()));
            } catch (MemchanException closing) {
                // this node is closed meanwhile
            }
        }
    }

    private void hubFailed(String reason) {
        MemchanException failure = new MemchanException(Kind.DEVICE_ERROR, "hub at " + hubName() + " unreachable (" + reason + ")");
        synchronized (sendLock) {
            if (hubFailure != null) {
                return;
            }
            hubFailure = failure;
            countErrors(unconfirmed.size() + queued.size(), "writes and notifications the hub had not confirmed, or not sent ("
                    + reason + ")");
            unconfirmed.clear();
            spareBatches.addAll(queued);
            queued.clear();
            sendLock.notifyAll();
        }
        if (hostState != null && !closed) { // stream messages behind a gap (a closing process's are its host's, which another applies)
            long applied = hostState.applied();
            countErrors(streamAhead.tailMap(applied, false).size(), "stream messages behind a gap after " + applied + " (" + reason + ")");
        }
        streamAhead.clear();
        hostReady.completeExceptionally(failure);
        for (Pending p : pending.values()) {
            p.answer().completeExceptionally(failure);
        }
        pending.clear();
    }

    // ---- messages to the hub ----------------------------------------------------------------------

    /**
     * Sends {@code m} as this port's next message; DEVICE_ERROR once the hub is gone. The writes not sent yet go
     * first, so that {@code m} comes after them in this port's order; an acknowledgement or an answer of the progress
     * thread orders nothing and leaves them to be combined.
     */
    private void send(Message m) {
        synchronized (sendLock) {
            requireHub();
            awaitWindow(false);
            if (!(m instanceof Message.Applied || m instanceof Message.Answer)) {
                sendQueued(true);
            }
            byte[] bytes = HubWire.encode(++portSeq, m);
            if (m instanceof Message.Notify) {
                unconfirmed.put(portSeq, bytes);
            }
            transmit(bytes);
        }
    }

    /**
     * Under the send lock: a message of this port (numbered). A send that fails while a standby is ahead is not an
     * error: the move to the standby sends what was not confirmed again, and the requests in flight.
     */
    private void transmit(byte[] bytes) {
        if (sendBuffer.byteSize() < bytes.length) {
            sendBuffer = Arena.ofAuto().allocate(bytes.length, Long.BYTES);
        }
        MemorySegment.copy(bytes, 0, sendBuffer, JAVA_BYTE, 0, bytes.length);
        transmit(sendBuffer, bytes.length);
    }

    private void transmit(MemorySegment message, int length) {
        try {
            hub.send(HubWire.TO_HUB, message, length);
        } catch (MemchanException e) {
            if (!standbyAhead()) {
                throw new MemchanException(Kind.DEVICE_ERROR, "hub at " + hubName() + " unreachable: " + e.getMessage(), e);
            }
        }
    }

    /**
     * Under the send lock: sends the queued WRITE messages in order, while fewer than {@link #SEND_AHEAD} of this port's
     * messages are unconfirmed, or ({@code all}) every one, waiting for the hub at {@link #MAX_UNSEQUENCED}; none while
     * this node moves to the standby (they follow what it sends again). Each is kept, as bytes, until the hub confirms
     * it, for the standby.
     */
    private void sendQueued(boolean all) {
        while (!queued.isEmpty() && !switching && (all || unconfirmed.size() < SEND_AHEAD)) {
            if (unconfirmed.size() >= MAX_UNSEQUENCED) {
                awaitWindow(true);
                continue;
            }
            WriteBatch batch = queued.pollFirst();
            writeMessages++;
            long seq = ++portSeq;
            batch.seal(seq);
            unconfirmed.put(seq, batch.segment().asSlice(0, batch.size()).toArray(JAVA_BYTE));
            try {
                transmit(batch.segment(), batch.size());
            } finally {
                spareBatches.addLast(batch);
            }
        }
    }

    /**
     * A grant's run as stores of transmit entry {@code entry}, appended to the last queued WRITE message of that entry
     * while it has room, else to a new one (waiting while {@link #MAX_QUEUED} are queued); after the sender's own check
     * of its transmit PCT (a page whose entry is no longer the grant's sends nothing, as an adapter drops it).
     */
    private void appendWrite(int entry, long at, MemorySegment snapshot, long from, long length) {
        int pageSize = soft.pageSize();
        if (length <= 0 || soft.txPct((int) (at / pageSize)) != entry || soft.txPct((int) ((at + length - 1) / pageSize)) != entry
                || !TxPct.enabled(entry)) {
            return;
        }
        synchronized (sendLock) {
            requireHub();
            long done = 0;
            while (done < length) {
                WriteBatch open = queued.peekLast();
                int part = open == null || open.entry() != entry ? 0 : open.room(at + done, length - done);
                if (part == 0) {
                    open = newBatch(entry);
                    part = open.room(at + done, length - done);
                }
                open.append(at + done, snapshot, from + done, part);
                done += part;
            }
        }
    }

    /** Under the send lock: an empty WRITE message of {@code entry} at the end of the queue, once there is room for it. */
    private WriteBatch newBatch(int entry) {
        long deadline = System.nanoTime() + REPLY_TIMEOUT.toNanos();
        while (queued.size() >= MAX_QUEUED) {
            sendQueued(false);
            if (queued.size() >= MAX_QUEUED) {
                waitForHub(deadline);
            }
        }
        WriteBatch batch = spareBatches.isEmpty() ? new WriteBatch(batchArena) : spareBatches.pollLast();
        batch.start(entry);
        queued.addLast(batch);
        return batch;
    }

    /** Under the send lock: one wait for the hub's next confirmation (or the end of a move to the standby); TIMEOUT after {@code deadline}. */
    private void waitForHub(long deadline) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new MemchanException(Kind.TIMEOUT, location + ": the hub at " + hubName() + " has not sequenced the writes of this node"
                    + " before " + MAX_QUEUED + " more messages of them in " + REPLY_TIMEOUT.toSeconds() + " s");
        }
        waitOnSendLock(left);
        requireHub();
    }

    /** Under the send lock: waits up to {@code left} ns for a notify; an interrupt is a TIMEOUT. */
    private void waitOnSendLock(long left) {
        try {
            sendLock.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MemchanException(Kind.TIMEOUT, location + ": interrupted while the hub sequences this node's writes");
        }
    }

    /** The WRITE messages this port made of its pushes (pushes made while the hub is behind share one); for tests. */
    long writeMessages() {
        synchronized (sendLock) {
            return writeMessages;
        }
    }

    /** A push's runs are appended: the queued writes go out as far as the hub keeps pace. */
    private void pushed() {
        synchronized (sendLock) {
            requireHub();
            sendQueued(false);
        }
    }

    /**
     * Under the send lock: waits while this node moves to the standby, and for a WRITE ({@code write}) while the hub
     * has not sequenced {@link #MAX_UNSEQUENCED} messages of this port.
     */
    private void awaitWindow(boolean write) {
        long deadline = System.nanoTime() + REPLY_TIMEOUT.toNanos();
        while ((switching || write && unconfirmed.size() >= MAX_UNSEQUENCED) && hubFailure == null) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new MemchanException(Kind.TIMEOUT, location + ": the hub at " + hubName() + (switching ? " did not take this node over"
                        : " has not sequenced " + unconfirmed.size() + " writes of this node") + " in " + REPLY_TIMEOUT.toSeconds() + " s");
            }
            waitOnSendLock(left);
        }
        requireHub();
    }

    /**
     * {@link #send} from the progress thread, where a failed hub is reported by its event rather than thrown, and
     * nothing waits for a move to the standby (the acknowledgement is sent again after it; an answer to the former
     * hub's request is lost with it, and its requester counts it).
     */
    private void trySend(Message m) {
        try {
            synchronized (sendLock) {
                if (switching) {
                    return;
                }
                send(m);
            }
        } catch (MemchanException e) {
            // the PeerFailed event of the hub's endpoint counts what is lost
        }
    }

    private void requireHub() {
        MemchanException failed = hubFailure;
        if (failed != null) {
            throw new MemchanException(failed.kind(), location + ": " + failed.getMessage(), failed);
        }
    }

    private Message await(CompletableFuture<Message> f, String what) {
        return await(f, what, System.nanoTime() + REPLY_TIMEOUT.toNanos());
    }

    private Message await(CompletableFuture<Message> f, String what, long deadline) {
        try {
            return f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            requireHub();
            throw new MemchanException(Kind.TIMEOUT, location + ": " + what + ": no answer from the hub at " + hubName()
                    + " in time");
        } catch (ExecutionException e) {
            requireHub();
            throw new MemchanException(Kind.DEVICE_ERROR, location + ": " + what + ": " + e.getCause().getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MemchanException(Kind.TIMEOUT, location + ": " + what + ": interrupted");
        }
    }

    /** Sends a request made with a fresh id, and waits for its answer. */
    private Message request(java.util.function.LongFunction<Message> make, String what, long deadline) {
        long id = requests.incrementAndGet();
        CompletableFuture<Message> f = new CompletableFuture<>();
        Message m = make.apply(id);
        pending.put(id, new Pending(m, f));
        try {
            send(m);
            return await(f, what, deadline);
        } finally {
            pending.remove(id);
        }
    }

    /** One remote operation through the hub; its answer is valid once this host applied what came before it. */
    long remote(int home, int firstPage, int count, RemoteOp op, long offset, long a, long b, int length, MemorySegment into) {
        ensureOpen();
        long deadline = System.nanoTime() + REPLY_TIMEOUT.toNanos();
        String what = op + " at node " + home + " page " + firstPage + "+" + count + " offset " + offset;
        Message.Result r = (Message.Result) request(id -> new Message.Remote(id, home, firstPage, count, op, offset, a, b, length), what, deadline);
        hostState.awaitApplied(r.watermark(), deadline, location + ": " + what, this::failure);
        if (r.status() != 0) {
            throw refused(r);
        }
        if (into != null) {
            MemorySegment.copy(MemorySegment.ofArray(r.bytes()), 0, into, 0, r.bytes().length);
        }
        return r.value();
    }

    /** A refusal the hub (or a home) answered: its kind and message. */
    private static MemchanException refused(Message.Result r) {
        Kind[] kinds = Kind.values();
        return new MemchanException(r.status() - 1 < kinds.length ? kinds[r.status() - 1] : Kind.DEVICE_ERROR, r.message());
    }

    private MemchanException failure() {
        MemchanException failed = hubFailure;
        return failed == null ? null : new MemchanException(failed.kind(), location + ": " + failed.getMessage(), failed);
    }

    /**
     * Cristian's method, kept one-sided: of a few round trips the fastest counts; the hub read its clock
     * somewhere inside it, so at the reply's arrival the hub's time lies in {@code hubNanos .. hubNanos +
     * roundTrip}. Estimating the lower end keeps a node never ahead of the hub, as {@link ClusterTime} states.
     */
    private void syncClock() {
        ClockEstimate best = null;
        for (int i = 0; i < TIME_PROBES; i++) {
            long before = System.nanoTime();
            Message.TimeReply t = (Message.TimeReply) request(Message.Time::new, "reading the hub's clock",
                    System.nanoTime() + REPLY_TIMEOUT.toNanos());
            long after = System.nanoTime();
            if (best == null || after - before < best.roundTrip()) {
                best = new ClockEstimate(t.hubNanos() - after, after - before, after);
            }
        }
        clock = best;
    }

    // ---- the Backend ------------------------------------------------------------------------------

    @Override
    public String kind() {
        return "ucx";
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public List<String> locationsOfNodeHere(int n) {
        return soft.locationsOfNodeHere(n);
    }

    @Override
    public int nodeId() {
        return node;
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
        return switch (offset) {
            case REG_ERROR_COUNT -> (int) errorCount();
            case REG_CAPS -> CAPS;
            default -> soft.readRegister(offset);
        };
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
    public void writeTxPct(int page, int entry) {
        soft.writeTxPct(page, entry);
    }

    @Override
    public void writeRxPct(int page, long entry) {
        soft.writeRxPct(page, entry);
    }

    @Override
    public Grant grantTransmit(int firstPage, int count, int txEntry) {
        ensureOpen();
        Grant pct = soft.grantTransmit(firstPage, count, txEntry);
        try {
            ShadowGrant[] made = new ShadowGrant[1];
            made[0] = new ShadowGrant(pct, txEntry, (long) firstPage * soft.pageSize(), pct.segment(), pushes, () -> {
                synchronized (shadows) {
                    shadows.remove(made[0]);
                }
            });
            synchronized (shadows) {
                shadows.add(made[0]);
            }
            return made[0];
        } catch (RuntimeException e) {
            pct.close();
            throw e;
        }
    }

    @Override
    public Grant grantReceive(int firstPage, int count, long rxEntry) {
        ensureOpen();
        return soft.grantReceive(firstPage, count, rxEntry);
    }

    @Override
    public void pushAllGrants() {
        List<ShadowGrant> all;
        synchronized (shadows) {
            all = List.copyOf(shadows);
        }
        for (ShadowGrant g : all) {
            if (!g.isClosed()) {
                g.pushChanges();
            }
        }
    }

    @Override
    public boolean transmitWriteCombining() {
        return false;
    }

    /** A live hub answers a barrier once every host applied; its death (control socket's end) fails it at once. */
    @Override
    public Duration ackBarrierBound() {
        return REPLY_TIMEOUT;
    }

    @Override
    public void ackBarrier(Duration timeout) {
        ensureOpen();
        long deadline = System.nanoTime() + timeout.toNanos();
        pushAllGrants();
        Message.BarrierDone done = (Message.BarrierDone) request(Message.Barrier::new,
                "acknowledge barrier (every host applying this node's stores)", deadline);
        hostState.awaitApplied(done.watermark(), deadline, location + ": acknowledge barrier", this::failure);
    }

    @Override
    public void raiseNotify(int page) {
        ensureOpen();
        if (page < 0 || page >= soft.pageCount()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "page " + page + " is outside the window 0.." + (soft.pageCount() - 1));
        }
        pushAllGrants();
        send(new Message.Notify(page));
    }

    @Override
    public void requireNotificationData() {
        // the hub carries them in each host's stream; the receiving host's soft fabric holds the queue
    }

    /**
     * A notification with data as the receive interrupt's message, in this port's order after the stores before
     * it: the receiver's host enqueues it when it applies the message. The receiver's PCT is on its host, so a
     * page it does not receive is not refused here: no host enqueues it.
     */
    @Override
    public void postNotification(int dest, int page, long payload) {
        ensureOpen();
        SoftNotificationQueue.checkNotification(dest, soft.maxNodes(), page, soft.pageCount(), payload);
        pushAllGrants();
        send(new Message.Notify(page, dest, node, payload));
    }

    @Override
    public NotificationQueue openNotificationQueue(int page) {
        ensureOpen();
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
    public RemoteWindow openRemote(int home, int firstPage, int count) {
        ensureOpen();
        if (home < 0 || home >= soft.maxNodes()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "home node " + home + " out of range 0.." + (soft.maxNodes() - 1));
        }
        if (count < 1 || firstPage < 0 || (long) firstPage + count > soft.pageCount()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "pages " + firstPage + ".." + ((long) firstPage + count - 1)
                    + " are outside the window 0.." + (soft.pageCount() - 1));
        }
        remote(home, firstPage, count, RemoteOp.CHECK, 0, 0, 0, 0, null);
        UcxRemoteWindow w = new UcxRemoteWindow(this, home, firstPage, count, (long) count * soft.pageSize());
        synchronized (windows) {
            windows.add(w);
        }
        return w;
    }

    void forget(UcxRemoteWindow w) {
        synchronized (windows) {
            windows.remove(w);
        }
    }

    @Override
    public long pageCounter(int page, int counter) {
        return soft.pageCounter(page, counter);
    }

    @Override
    public void setPageCountThreshold(int threshold) {
        soft.setPageCountThreshold(threshold);
    }

    @Override
    public int takeHotPage() {
        return soft.takeHotPage();
    }

    /**
     * The hub's monotonic clock as this node estimates it: the last synchronization's lower end, less the
     * drift the clocks may have had since, with the round trip plus twice that drift as the bound. A reading
     * 10 s after the last synchronization synchronizes again (one thread does; the others use the estimate).
     */
    @Override
    public ClusterTime clusterTime() {
        requireHub();
        ClockEstimate c = clock;
        if (System.nanoTime() - c.syncedAt() > RESYNC_NANOS && clockSync.tryLock()) {
            try {
                if (clock == c) {
                    syncClock();
                }
            } finally {
                clockSync.unlock();
            }
            c = clock;
        }
        long now = System.nanoTime();
        long drift = (now - c.syncedAt()) / DRIFT_DIVISOR + 1;
        return new ClusterTime(now + c.hubMinusLocal() - drift, c.roundTrip() + 2 * drift, -c.hubMinusLocal(),
                ClusterTime.Unit.NANOSECONDS);
    }

    /** How far this host has applied its stream from the hub (the tests count what reached the host). */
    long appliedHostSeq() {
        return hostState.applied();
    }

    /**
     * This node's error count: its register in the host's fabric (shared by the node's processes, shown by mcctl
     * status), plus what this process counted before that fabric was open.
     */
    @Override
    public long errorCount() {
        SoftFabricBackend opened = soft;
        return errorsBeforeOpen.get() + (opened == null ? 0 : opened.errorCount());
    }

    /**
     * Counts {@code n} errors (lost writes, stream messages behind a gap, requests whose outcome is unknown) and says
     * what they were on stderr: the count register says how many, the log which.
     */
    private void countErrors(int n, String what) {
        SoftFabricBackend opened = soft;
        if (n == 0) {
            return;
        }
        System.err.println("memchan " + location + " node " + node + ": " + n + " error(s) counted: " + what);
        if (opened == null) {
            errorsBeforeOpen.addAndGet(n);
        } else {
            opened.addErrors(n);
        }
    }

    /**
     * Tells the hub that node {@code n}'s incarnation {@code deadIncarnation} is dead: the hub drops its processes at
     * once, so barriers no longer wait for them and nothing they send is taken. NOT_FOUND when the hub holds no process
     * of that incarnation (it left, or came back as another), which then changes nothing.
     */
    @Override
    public void fenceDeadNode(int n, long deadIncarnation) {
        ensureOpen();
        Message.Result r = (Message.Result) request(id -> new Message.DeclareDead(id, n, deadIncarnation),
                "declaring node " + n + " incarnation " + deadIncarnation + " dead", System.nanoTime() + REPLY_TIMEOUT.toNanos());
        if (r.status() != 0) {
            throw refused(r);
        }
    }

    @Override
    public void releaseDeadNode(int n, long deadIncarnation) {
        soft.releaseDeadNode(n, deadIncarnation);
    }

    @Override
    public long incarnation() {
        return soft.incarnation();
    }

    @Override
    public NodeLocal nodeLocal() {
        return soft.nodeLocal();
    }

    @Override
    public int localSlot() {
        return soft.localSlot();
    }

    @Override
    public void releaseProcess(int slot, int pid) {
        soft.releaseProcess(slot, pid);
    }

    private void ensureOpen() {
        if (closed) {
            throw new MemchanException(Kind.CLOSED, location + " node " + node + " is closed");
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (hubFailure == null) {
            try {
                pushAllGrants();
            } catch (MemchanException e) {
                // the hub went away while closing: what was not sent is counted by its event
            }
        }
        closed = true;
        trySend(new Message.Bye());
        worker.close(); // first: the progress thread applies and serves into the host's fabric
        control.close();
        closeQuietly();
        context.close();
    }

    /** Releases what the join made so far (grants, windows, the host's fabric, which closes the served windows, and state). */
    private void closeQuietly() {
        for (ShadowGrant g : List.copyOf(shadows)) {
            g.close();
        }
        for (UcxRemoteWindow w : List.copyOf(windows)) {
            w.close();
        }
        if (soft != null) {
            soft.close();
        }
        if (dataArena != null) {
            dataArena.close();
        }
        batchArena.close();
        if (hostState != null) {
            hostState.close();
        }
    }
}
