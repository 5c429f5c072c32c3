package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.ucx.HubWire.Envelope;
import dev.memchan.internal.ucx.HubWire.Message;
import dev.memchan.internal.ucx.HubWire.Type;
import dev.memchan.layout.SoftFabricLayout;
import dev.memchan.layout.TxPct;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static dev.memchan.layout.Regs.DEST_KIND_NODE;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * The hub of a {@code ucx://HOST:PORT/NAME} fabric: its front door ({@link JoinGate}, a plain TCP listener) at exactly
 * HOST:PORT admits nodes, which it then talks to by UCX worker address; it holds the fabric's geometry
 * and node table, and sequences. Every write, notification and remote request of every node gets the next
 * number of each destination host's stream, in the order the hub takes it (a port's messages in that port's
 * order), and goes to two ports of that host, where the first to hold the host's stream up to it applies it; so
 * every host applies one order of everything (rule 2) and a sender's stores in its order (rule 1), and one stopped
 * or dead process stops no host. The hub keeps each host's stream until the host acknowledges it (for a port that
 * becomes a receiver meanwhile), and an image of every page as written, that a new host's stream starts with.
 *
 * <p>Everything runs on the worker's progress thread: handlers copy a message and hand it to {@link
 * UcxWorker#execute}, where the hub's state is touched and replies are sent. The process is
 * {@link UcxHubMain}; a JVM may run a hub itself (tests, benchmarks).
 */
public final class UcxHub implements AutoCloseable {
    /** What a standby that has not taken over answers a node; a node that meets it tries again until its primary is gone. */
    static final String STANDBY_NOT_SERVING = "is a standby that serves no node while its primary lives";
    /** How many ports of a host get its stream. */
    static final int RECEIVERS = 2;
    /**
     * How long a host may hold unacknowledged stream messages without acknowledging any before its first receiver
     * gives its place to the host's next port (a liveness measure: any process of the host may apply the stream).
     */
    static final long RECEIVER_STALL_NANOS = 1_000_000_000L;
    private final ScheduledExecutorService stallCheck = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "memchan-hub-stall-check");
        t.setDaemon(true);
        return t;
    });
    private final long fabricSize;
    private final int pageSize;
    private final int maxNodes;
    private final int pageCount;
    /** How long after a takeover the sessions of the former primary's ports may resume before their node IDs and hosts are freed. */
    static final long RESUME_GRACE_NANOS = 30_000_000_000L;
    /**
     * Test-only system property: a standby that acknowledges the primary's sequenced messages without keeping them
     * (the negative control of the standby tests: its takeover must be seen to break the rules).
     */
    static final String TEST_SKIP_SEQUENCED = "memchan.ucx.test.standbySkipsSequenced";
    /** The hub instance: random for a primary; a standby continues its primary's. */
    private final long hubId;
    /** The primary this hub is the standby of, or null. */
    private final InetSocketAddress primary;
    /** A standby's connection to its primary, or null. */
    private volatile JoinLink primaryLink;
    private volatile boolean shutDown;
    /** Whether the hub serves nodes: a primary from its start, a standby once its primary is gone. */
    private volatile boolean serving;
    private final boolean skipSequenced = Boolean.getBoolean(TEST_SKIP_SEQUENCED);
    /** The attached standby, or null (primary side). */
    private Standby standby;
    /** Records sent to the standby, and how many of them it holds. */
    private long recordsSent;
    private long recordsAcked;
    /** What waits for the standby to hold the records sent before it, in order. */
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    /**
     * The sessions of the ports the primary had (standby side), or of the ports gone with it that may still resume
     * (after a takeover): each holds its node ID on its host.
     */
    private final Map<Long, Session> awaiting = new HashMap<>();
    private final UcxContext context;
    private final UcxWorker worker;
    private final JoinGate gate;
    /** The hub worker's address, which every admitted node connects its endpoint to. */
    private final byte[] workerAddress;
    private final Arena imageArena = Arena.ofShared();
    /** Every page as the writes the hub sequenced left it. */
    private final MemorySegment image;
    private final Map<UcxEndpoint, Port> ports = new HashMap<>();
    private final Map<Long, Host> hosts = new LinkedHashMap<>();
    private final List<BarrierWait> barriers = new ArrayList<>();
    private final Map<Long, RemoteWait> remotes = new HashMap<>();
    private final Set<Port> sequencedDue = new LinkedHashSet<>();
    private long nextRemote = 1;
    /**
     * Per node ID, the highest incarnation any of its processes reported (on any host): a node's claim on a host where
     * it has no process goes past it, so an incarnation names one claim across the fabric, and a declaration of a
     * dead incarnation never matches a node that came back.
     */
    private final long[] highestIncarnation;

    /** One authenticated connection: a process of node {@code node} on {@code host}. */
    private static final class Port {
        final UcxEndpoint endpoint;
        /** The join's connection, open while the port lives: its end is the process's. */
        final JoinGate.Member member;
        final Host host;
        final int node;
        /** The node process's session: the same at the standby it resumes at. */
        final long session;
        /** Its node's incarnation as the process reported it after opening its host's fabric; 0 until then. */
        long incarnation;
        long expected = 1;
        final TreeMap<Long, byte[]> early = new TreeMap<>();

        Port(UcxEndpoint endpoint, JoinGate.Member member, Host host, int node, long session) {
            this.endpoint = endpoint;
            this.member = member;
            this.host = host;
            this.node = node;
            this.session = session;
        }
    }

    /** A port's session as the standby knows it: its node ID, its host, its messages sequenced so far, its node's incarnation. */
    private static final class Session {
        final int node;
        final long hostKey;
        long sequenced;
        long incarnation;

        Session(int node, long hostKey, long sequenced) {
            this.node = node;
            this.hostKey = hostKey;
            this.sequenced = sequenced;
        }
    }

    /** A standby attached to this primary: its connection, and the records queued for it. */
    private static final class Standby {
        final JoinGate.Member member;
        final java.util.concurrent.LinkedBlockingQueue<byte[]> out = new java.util.concurrent.LinkedBlockingQueue<>();

        Standby(JoinGate.Member member) {
            this.member = member;
        }
    }

    /** An action (a send, a WELCOME) that waits until the standby holds the first {@code records} records. */
    private record Held(long records, Runnable action) {
    }

    /**
     * One host: its ports in the order they joined, its stream. The stream goes to the first {@link #RECEIVERS}
     * ports (its receivers): either applies it, so one stopped process stops no host, at twice the traffic, not
     * once per process of the host.
     */
    private static final class Host {
        final long id;
        final List<Port> ports = new ArrayList<>();
        /** Whether its fabric is made; until then {@code maker} makes it and the host's other ports wait. */
        boolean ready;
        Port maker;
        long lastSeq;
        long acked;
        final ArrayDeque<byte[]> log = new ArrayDeque<>();
        /** When the host last acknowledged, or its log last went from empty to not (System.nanoTime). */
        long progressNanos;

        Host(long id) {
            this.id = id;
        }
    }

    private record BarrierWait(Port port, long request, Map<Host, Long> targets) {
    }

    private record RemoteWait(Port port, long request, Host home) {
    }

    /**
     * Starts the hub of fabric {@code fabric} at {@code address} (port 0: a free one, see {@link #address()}),
     * admitting the nodes that hold {@code secret} ({@link JoinGate}), for a fabric of {@code fabricSize} bytes,
     * {@code pageSize}-byte pages and {@code maxNodes} nodes, as a soft fabric of that geometry. UCX's
     * configuration: {@code settings} over the environment's.
     */
    public UcxHub(InetSocketAddress address, String fabric, JoinSecret secret, long fabricSize, int pageSize, int maxNodes,
                  Map<String, String> settings) {
        this(address, fabric, secret, fabricSize, pageSize, maxNodes, settings, new SecureRandom().nextLong() | 1, null);
    }

    /**
     * Starts the standby of the hub at {@code primary}: joins it with {@code secret} (the join handshake, in the
     * standby's role), takes the fabric's geometry and hub instance from it, listens at {@code address} (refusing
     * nodes) and keeps the primary's state as the primary sends it. When the connection to the primary ends, this hub
     * takes over: it serves the nodes that resume their sessions here, and new ones. INVALID_ARGUMENT when
     * {@code address} is the primary's; the primary's refusal (a wrong secret: PERMISSION; a standby attached already,
     * or {@code primary} a standby itself) as the join throws it; DEVICE_ERROR when no hub answers there.
     */
    public static UcxHub standby(InetSocketAddress address, String fabric, JoinSecret secret, InetSocketAddress primary,
                                 Map<String, String> settings) {
        if (address.equals(primary)) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "a standby of the hub at " + primary + " listens at another address, not " + address);
        }
        JoinHandshake.Joined joined;
        try {
            joined = JoinHandshake.join(primary, secret, fabric, new HubWire.StandbyJoin(HubWire.VERSION,
                    (int) ProcessHandle.current().pid()).toFields(), JoinGate.DEFAULT_TIMEOUT);
        } catch (JoinRefusal r) {
            throw new MemchanException(r.kind(), "the hub at " + primary + " refused this standby: " + r.getMessage(), r);
        }
        try {
            HubWire.StandbyWelcome w = HubWire.StandbyWelcome.of(joined.hub());
            UcxHub hub = new UcxHub(address, fabric, secret, w.fabricSize(), w.pageSize(), w.maxNodes(), settings, w.hubId(), primary);
            hub.primaryLink = joined.link();
            Thread.ofPlatform().daemon().name("memchan-hub-standby-of-" + primary.getPort()).start(() -> hub.replicate(joined.link()));
            return hub;
        } catch (RuntimeException e) {
            joined.link().close();
            throw e;
        }
    }

    private UcxHub(InetSocketAddress address, String fabric, JoinSecret secret, long fabricSize, int pageSize, int maxNodes,
                   Map<String, String> settings, long hubId, InetSocketAddress primary) {
        this.hubId = hubId;
        this.primary = primary;
        this.serving = primary == null;
        String problem = SoftFabricLayout.problem(fabricSize, pageSize, maxNodes);
        if (problem != null) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "hub geometry: " + problem);
        }
        this.fabricSize = fabricSize;
        this.pageSize = pageSize;
        this.maxNodes = maxNodes;
        this.pageCount = SoftFabricLayout.forCreation(fabricSize, pageSize, maxNodes).pageCount();
        this.highestIncarnation = new long[maxNodes];
        this.image = imageArena.allocate((long) pageCount * pageSize, 4096);
        this.context = UcxContext.open(settings);
        try {
            this.worker = context.newWorker("hub", this::onEvent);
            this.workerAddress = worker.address();
            worker.setHandler(HubWire.TO_HUB, (from, header, payload) -> {
                byte[] bytes = payload.toArray(JAVA_BYTE);
                worker.execute(() -> fromPort(from, bytes));
            });
            this.gate = new JoinGate(address, secret, fabric, new JoinGate.Admission() {
                @Override
                public JoinFields admit(JoinGate.Member member, JoinFields node) {
                    return admitOnProgressThread(member, node);
                }

                @Override
                public void gone(JoinGate.Member member) {
                    memberGone(member);
                }
            }, JoinGate.DEFAULT_TIMEOUT);
        } catch (RuntimeException e) {
            stallCheck.shutdownNow();
            context.close(); // closes the worker
            imageArena.close();
            throw e;
        }
        long period = RECEIVER_STALL_NANOS / 4;
        stallCheck.scheduleWithFixedDelay(() -> {
            try {
                worker.execute(this::rotateStalledReceivers);
            } catch (MemchanException closed) {
                // the worker is closing: so is the hub
            }
        }, period, period, TimeUnit.NANOSECONDS);
    }

    /** The address the hub listens on: its front door, where nodes join ({@link JoinGate}). */
    public InetSocketAddress address() {
        return gate.address();
    }

    /** The hub instance's random identity (a host's fabric belongs to one). */
    public long hubId() {
        return hubId;
    }

    private void onEvent(UcxEvent event) {
        switch (event) {
            case UcxEvent.Accepted a -> a.endpoint().close(); // the hub's worker listens for nothing: nodes join at the front door
            case UcxEvent.PeerFailed f -> {
                Port p = ports.get(f.endpoint());
                if (p != null) {
                    drop(p);
                    f.endpoint().close();
                }
            }
            case UcxEvent.HandlerFailed h -> System.err.println("memchan hub: " + h.error());
        }
    }

    // ---- a port's messages, in its order ----------------------------------------------------------

    private void fromPort(UcxEndpoint from, byte[] bytes) {
        Port port = from == null ? null : ports.get(from);
        if (port == null) {
            return; // not a port the join handshake admitted, or one that is gone
        }
        long seq;
        try {
            seq = HubWire.decode(bytes).seq();
        } catch (MemchanException e) {
            refuse(port, e.kind(), e.getMessage());
            return;
        }
        if (seq < port.expected) {
            return;
        }
        port.early.put(seq, bytes);
        Map.Entry<Long, byte[]> next;
        while (ports.containsKey(port.endpoint) && (next = port.early.firstEntry()) != null && next.getKey() == port.expected) {
            port.early.pollFirstEntry();
            port.expected++;
            handle(port, HubWire.decode(next.getValue()), next.getValue());
        }
        if (port.early.size() > 100_000) {
            refuse(port, Kind.BAD_FORMAT, "hub protocol: more than 100000 messages ahead of the next expected one");
        }
    }

    private void handle(Port port, Envelope e, byte[] bytes) {
        switch (e.message()) {
            case Message.HostReady _ -> hostReady(port.host);
            case Message.Write w -> {
                write(port, e.seq(), w, bytes);
                sequenced(port);
            }
            case Message.Notify _ -> {
                sequence(port.session, e.seq(), Type.STREAM_NOTIFY, List.copyOf(hosts.values()), bytes);
                sequenced(port);
            }
            case Message.Barrier b -> barrier(port, b.request());
            case Message.Remote r -> remote(port, e.seq(), r);
            case Message.Answer a -> answer(a);
            case Message.Applied a -> applied(port.host, a.hostSeq());
            case Message.Time t -> // at once: a reading of the clock waits for no standby
                    transmit(port, HubWire.encode(0, new Message.TimeReply(t.request(), System.nanoTime())));
            case Message.Bye _ -> {
                if (sequencedDue.contains(port)) { // what it sent before leaving is sequenced: it counts none of it as lost
                    send(port, new Message.Sequenced(port.expected - 1));
                }
                drop(port);
                port.endpoint.close();
            }
            case Message.Incarnation i -> incarnation(port, i.incarnation());
            case Message.DeclareDead d -> declareDead(port, d);
            default -> refuse(port, Kind.BAD_FORMAT, "hub protocol: " + e.type() + " is not a message to the hub");
        }
    }

    // ---- joining and leaving ----------------------------------------------------------------------

    /**
     * The join gate's admission of an authenticated node: a node ID (any free one for -1; the one asked for when
     * free, or shared when its processes are on this host), a port, the host's stream. A refusal leaves all as
     * it was; its message starts with the error's kind in brackets, which the node throws.
     */
    private JoinFields admit(JoinGate.Member member, JoinFields fields) {
        if (fields.id() == HubWire.STANDBY_ROLE) {
            return admitStandby(member, fields);
        }
        if (!serving) {
            throw refusal(Kind.NOT_FOUND, "this hub " + STANDBY_NOT_SERVING + " (the hub at " + primary + ")");
        }
        HubWire.NodeJoin join;
        try {
            join = HubWire.NodeJoin.of(fields);
        } catch (MemchanException e) {
            throw refusal(e.kind(), e.getMessage());
        }
        if (join.resume()) {
            return resume(member, join);
        }
        Host host = hosts.get(join.hostKey());
        int node = join.node();
        if (node >= maxNodes) {
            throw refusal(Kind.INVALID_ARGUMENT, "node ID " + node + " out of range 0.." + (maxNodes - 1) + " of this fabric");
        }
        if (node == -1) {
            for (int n = 0; n < maxNodes && node == -1; n++) {
                if (portsOf(n).isEmpty() && awaitingOn(n) == null) {
                    node = n;
                }
            }
            if (node == -1) {
                throw refusal(Kind.IN_USE, "all " + maxNodes + " node IDs are in use");
            }
        } else {
            for (Port other : portsOf(node)) {
                if (other.host != host) {
                    throw refusal(Kind.IN_USE, "node ID " + node + " is in use on another host; pick another node ID or leave that node first");
                }
            }
            Session held = awaitingOn(node);
            if (held != null && held.hostKey != join.hostKey()) {
                throw refusal(Kind.IN_USE, "node ID " + node + " is held for its process on another host, which may resume it here after "
                        + "this hub took over; pick another node ID");
            }
        }
        UcxEndpoint endpoint;
        try {
            endpoint = worker.connect(join.worker(), "node " + node + " at " + member.peer());
        } catch (MemchanException e) {
            throw refusal(Kind.INVALID_ARGUMENT, "the node's worker address: " + e.getMessage());
        }
        // with processes of its own on this host (else refused above), or one that may resume here, it shares their claim
        long floor = portsOf(node).isEmpty() && awaitingOn(node) == null ? highestIncarnation[node] : 0;
        boolean first = host == null; // after a takeover a host whose processes may resume has no port yet, and is not new
        if (first) {
            host = new Host(join.hostKey());
            hosts.put(host.id, host);
            record(new HubReplication.Host(host.id, 0, 0, false));
        }
        Port port = new Port(endpoint, member, host, node, join.session());
        ports.put(endpoint, port);
        host.ports.add(port);
        record(new HubReplication.Port(port.session, node, host.id, 0));
        if (first) {
            host.ready = false;
            host.maker = port;
            snapshotInto(host);
        } else if (host.ports.size() <= RECEIVERS) {
            for (byte[] m : host.log) { // a new receiver: what the host has not acknowledged, it may be the one to apply
                sendBytes(port, m);
            }
        }
        return new HubWire.HubWelcome(node, fabricSize, pageSize, maxNodes, hubId, first, host.ready, 0, floor, workerAddress).toFields();
    }

    /**
     * A node process whose hub died resumes its session here (this hub was that hub's standby and took over): the
     * same node ID and host, a port that gets the host's unacknowledged stream, and in the WELCOME the last of its
     * former port's messages this hub sequenced (the node sends those after it again, and no others).
     */
    private JoinFields resume(JoinGate.Member member, HubWire.NodeJoin join) {
        Session s = awaiting.get(join.session());
        if (s == null) {
            throw refusal(Kind.NOT_FOUND, "no session " + Long.toHexString(join.session()) + " to resume here: this hub was not the standby "
                    + "of the hub that node joined, or its node was let go");
        }
        Host host = hosts.get(s.hostKey);
        if (s.node != join.node() || s.hostKey != join.hostKey() || host == null) {
            throw refusal(Kind.INVALID_ARGUMENT, "session " + Long.toHexString(join.session()) + " is node " + s.node + " of host "
                    + Long.toHexString(s.hostKey) + ", not node " + join.node() + " of host " + Long.toHexString(join.hostKey()));
        }
        UcxEndpoint endpoint;
        try {
            endpoint = worker.connect(join.worker(), "node " + s.node + " at " + member.peer());
        } catch (MemchanException e) {
            throw refusal(Kind.INVALID_ARGUMENT, "the node's worker address: " + e.getMessage());
        }
        awaiting.remove(join.session());
        Port port = new Port(endpoint, member, host, s.node, join.session());
        port.incarnation = s.incarnation;
        ports.put(endpoint, port);
        host.ports.add(port);
        record(new HubReplication.Port(port.session, port.node, host.id, 0));
        if (port.incarnation != 0) {
            record(new HubReplication.Incarnation(port.session, port.node, port.incarnation));
        }
        if (host.ports.size() <= RECEIVERS) {
            for (byte[] m : host.log) { // from what the host acknowledged to the former hub: it skips what it applied
                sendBytes(port, m);
            }
        }
        hostReady(host); // a resuming process has its host's fabric open
        return new HubWire.HubWelcome(s.node, fabricSize, pageSize, maxNodes, hubId, false, true, s.sequenced, 0, workerAddress).toFields();
    }

    /** A session that may still resume and holds node ID {@code node}, or null. */
    private Session awaitingOn(int node) {
        for (Session s : awaiting.values()) {
            if (s.node == node) {
                return s;
            }
        }
        return null;
    }

    /** {@link #admit} on the progress thread, where the hub's state lives; called on the gate's connection thread. */
    private JoinFields admitOnProgressThread(JoinGate.Member member, JoinFields fields) {
        CompletableFuture<JoinFields> admitted = new CompletableFuture<>();
        worker.execute(() -> {
            try {
                JoinFields welcome = admit(member, fields);
                if (fields.id() == HubWire.STANDBY_ROLE) {
                    admitted.complete(welcome); // the standby's state follows its WELCOME
                } else {
                    output(() -> admitted.complete(welcome)); // once the standby holds the new port
                }
            } catch (RuntimeException e) {
                admitted.completeExceptionally(e);
            }
        });
        try {
            return admitted.get(JoinGate.DEFAULT_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new MemchanException(Kind.DEVICE_ERROR, "admission: " + e.getCause());
        } catch (TimeoutException e) {
            memberGone(member); // the gate refuses the node: its port, if it was made, goes
            throw new MemchanException(Kind.TIMEOUT, "the hub's progress thread did not take the admission in time");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MemchanException(Kind.CLOSED, "the hub is closing");
        }
    }

    /** A member's control connection ended: its process is gone (or left); its port goes, if it is still there. */
    private void memberGone(JoinGate.Member member) {
        try {
            worker.execute(() -> {
                if (standby != null && standby.member == member) { // its WELCOME could not be sent
                    standbyGone(standby, "its connection ended");
                    return;
                }
                for (Port p : ports.values()) {
                    if (p.member == member) {
                        drop(p);
                        // forced: a peer gone with its link (keepalive) never acknowledges a flushing close, which
                        // would hold this thread, and with it every host's stream, until TCP gives up
                        p.endpoint.close(true);
                        return;
                    }
                }
            });
        } catch (MemchanException closed) {
            // the hub is closing: every port goes with it
        }
    }

    private static MemchanException refusal(Kind kind, String why) {
        return new MemchanException(kind, "[" + kind + "] " + why);
    }

    /** The host's fabric is made: the ports that joined meanwhile open it. */
    private void hostReady(Host host) {
        if (host.ready) {
            return;
        }
        host.ready = true;
        host.maker = null;
        record(new HubReplication.HostReady(host.id));
        for (Port p : host.ports) {
            send(p, new Message.HostReady(false));
        }
    }

    private List<Port> portsOf(int node) {
        List<Port> of = new ArrayList<>();
        for (Port p : ports.values()) {
            if (p.node == node) {
                of.add(p);
            }
        }
        return of;
    }

    /** A port is gone: its node ID is free once its node has no other port; its host's stream moves on. */
    private void drop(Port port) {
        ports.remove(port.endpoint);
        record(new HubReplication.PortGone(port.session));
        port.member.close(); // the node learns at once that it is no longer a port of the hub
        sequencedDue.remove(port);
        Host host = port.host;
        boolean receiver = host.ports.indexOf(port) < RECEIVERS;
        host.ports.remove(port);
        if (receiver && host.ports.size() >= RECEIVERS) { // the next port becomes a receiver
            for (byte[] m : host.log) {
                sendBytes(host.ports.get(RECEIVERS - 1), m);
            }
        }
        barriers.removeIf(b -> b.port() == port);
        if (host.maker == port && !host.ports.isEmpty()) { // it died before the host's fabric was made: the next makes it
            host.maker = host.ports.getFirst();
            send(host.maker, new Message.HostReady(true));
        }
        if (host.ports.isEmpty() && awaitingOf(host) == 0) {
            hostGone(host);
        }
    }

    /** A host without ports leaves: its remote requests fail, barriers no longer wait for it. */
    private void hostGone(Host host) {
        hosts.remove(host.id);
        record(new HubReplication.HostGone(host.id));
        remotes.values().removeIf(r -> {
            if (r.home() == host) {
                send(r.port(), new Message.Result(r.request(), 0, Kind.NOT_FOUND.ordinal() + 1, 0, new byte[0],
                        "the home's host left before it answered"));
                return true;
            }
            return false;
        });
        for (BarrierWait b : barriers) {
            b.targets().remove(host);
        }
        checkBarriers();
    }

    /** How many sessions of {@code host} may still resume here. */
    private int awaitingOf(Host host) {
        int n = 0;
        for (Session s : awaiting.values()) {
            if (s.hostKey == host.id) {
                n++;
            }
        }
        return n;
    }

    private void refuse(Port port, Kind kind, String message) {
        System.err.println("memchan hub: refused " + port.endpoint.peer() + ": " + message);
        send(port, new Message.Refused(kind, message));
        drop(port);
        port.endpoint.close();
    }

    // ---- incarnations and declared deaths ---------------------------------------------------------

    /** A port's node incarnation, reported once its process has opened its host's fabric. */
    private void incarnation(Port port, long incarnation) {
        port.incarnation = incarnation;
        highestIncarnation[port.node] = Math.max(highestIncarnation[port.node], incarnation);
        record(new HubReplication.Incarnation(port.session, port.node, incarnation));
    }

    /**
     * A node declares node {@code d.node()}'s incarnation {@code d.incarnation()} dead (its membership judged it by its
     * heartbeat): the hub drops that incarnation's ports at once, as it would at their connections' end, so nothing
     * waits for them (barriers, the host's stream) and nothing they send is taken. A declaration that matches no port
     * (a node that left or came back as another incarnation, a wrong ID, the declarer itself) is refused and changes
     * nothing. The answer goes once the standby holds the drop.
     */
    private void declareDead(Port from, Message.DeclareDead d) {
        String refused = null;
        Kind kind = Kind.INVALID_ARGUMENT;
        List<Port> dead = new ArrayList<>();
        if (d.node() < 0 || d.node() >= maxNodes) {
            refused = "node ID " + d.node() + " out of range 0.." + (maxNodes - 1) + " of this fabric";
        } else if (d.node() == from.node) {
            refused = "node " + d.node() + " declares itself dead";
        } else {
            kind = Kind.NOT_FOUND;
            List<Long> held = new ArrayList<>();
            for (Port p : portsOf(d.node())) {
                held.add(p.incarnation);
                if (p.incarnation == d.incarnation()) {
                    dead.add(p);
                }
            }
            if (dead.isEmpty()) {
                refused = "the hub holds no process of node " + d.node() + " incarnation " + d.incarnation()
                        + (held.isEmpty() ? " (none of that node)" : " (it holds incarnation " + held.getFirst() + ")");
            }
        }
        if (refused != null) {
            send(from, new Message.Result(d.request(), from.host.lastSeq, kind.ordinal() + 1, 0, new byte[0],
                    "declared dead: " + refused + "; nothing dropped"));
            return;
        }
        System.err.println("memchan hub: node " + from.node + " declared node " + d.node() + " incarnation " + d.incarnation()
                + " dead: its " + dead.size() + " process(es) dropped");
        for (Port p : dead) {
            p.member.tell(HubWire.encode(0, new Message.DeclareDead(0, p.node, p.incarnation))); // so a process that lives learns it
            drop(p);
            p.endpoint.close(true); // forced, as at a member's end: a peer cut off answers no flush
        }
        send(from, new Message.Result(d.request(), from.host.lastSeq, 0, dead.size(), new byte[0], ""));
    }

    // ---- the sequencer ----------------------------------------------------------------------------

    private void write(Port port, long portSeq, Message.Write w, byte[] bytes) {
        long windowBytes = image.byteSize();
        for (HubWire.Run r : w.runs()) {
            if (r.offset() + r.bytes().length > windowBytes) {
                refuse(port, Kind.INVALID_ARGUMENT, "a write at " + r.offset() + "+" + r.bytes().length + " outside the window of "
                        + windowBytes + " bytes");
                return;
            }
        }
        for (HubWire.Run r : w.runs()) {
            MemorySegment.copy(r.bytes(), 0, image, JAVA_BYTE, r.offset(), r.bytes().length);
        }
        sequence(port.session, portSeq, Type.STREAM_WRITE, destinations(port, w.entry()), bytes);
    }

    /**
     * {@code bytes} (port {@code session}'s message {@code portSeq}; 0, 0 for the hub's own) into the streams of
     * {@code to}: the standby gets the record first, so nothing of it reaches a host before the standby holds it.
     */
    private void sequence(long session, long portSeq, Type type, List<Host> to, byte[] bytes) {
        if (standby != null) {
            long[] keys = new long[to.size()];
            long[] seqs = new long[to.size()];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = to.get(i).id;
                seqs[i] = to.get(i).lastSeq + 1;
            }
            record(new HubReplication.Sequenced(session, portSeq, type, keys, seqs, bytes));
        }
        for (Host h : to) {
            stream(h, type, bytes);
        }
    }

    /** The hosts a store of transmit entry {@code entry} from {@code port} goes to. */
    private List<Host> destinations(Port port, int entry) {
        if (TxPct.destKind(entry) != DEST_KIND_NODE) {
            return List.copyOf(hosts.values()); // broadcast, or a multicast group (its members are the directory's)
        }
        List<Host> to = new ArrayList<>(2);
        List<Port> dest = portsOf(TxPct.dest(entry));
        if (!dest.isEmpty()) {
            to.add(dest.getFirst().host);
        }
        if (TxPct.localCopy(entry) && !to.contains(port.host)) {
            to.add(port.host);
        }
        return to;
    }

    /**
     * Appends {@code fromNode}'s body to {@code host}'s stream as a message of {@code type}: the next host sequence,
     * logged, sent to the host's receivers (the first of them to have the host's stream up to the one before
     * applies it).
     */
    private void stream(Host host, Type type, byte[] fromNode) {
        byte[] message = HubWire.restamp(fromNode, type, ++host.lastSeq);
        if (host.log.isEmpty()) {
            host.progressNanos = System.nanoTime();
        }
        host.log.add(message);
        for (Port p : host.ports.subList(0, Math.min(RECEIVERS, host.ports.size()))) {
            sendBytes(p, message);
        }
    }

    /** A new host's stream starts with every page the hub has seen written (a broadcast of what is not zero). */
    private void snapshotInto(Host host) {
        int broadcast = TxPct.encode(true, true, false, dev.memchan.layout.Regs.DEST_KIND_BROADCAST, 0);
        List<HubWire.Run> runs = new ArrayList<>();
        long bytes = 0;
        MemorySegment zero = MemorySegment.ofArray(new byte[pageSize]);
        for (int p = 0; p < pageCount; p++) {
            MemorySegment page = image.asSlice((long) p * pageSize, pageSize);
            if (page.mismatch(zero) < 0) {
                continue;
            }
            if (bytes + pageSize > HubWire.MAX_WRITE_BYTES && !runs.isEmpty()) {
                sequence(0, 0, Type.STREAM_WRITE, List.of(host), HubWire.encode(0, new Message.Write(broadcast, List.copyOf(runs))));
                runs.clear();
                bytes = 0;
            }
            runs.add(new HubWire.Run((long) p * pageSize, page.toArray(JAVA_BYTE)));
            bytes += pageSize;
        }
        if (!runs.isEmpty()) {
            sequence(0, 0, Type.STREAM_WRITE, List.of(host), HubWire.encode(0, new Message.Write(broadcast, List.copyOf(runs))));
        }
    }

    private void sequenced(Port port) {
        if (sequencedDue.isEmpty()) {
            worker.execute(this::sendSequenced); // after the messages already queued: one answer for all of them
        }
        sequencedDue.add(port);
    }

    private void sendSequenced() {
        for (Port p : sequencedDue) {
            send(p, new Message.Sequenced(p.expected - 1));
        }
        sequencedDue.clear();
    }

    private void barrier(Port port, long request) {
        Map<Host, Long> targets = new HashMap<>();
        for (Host h : hosts.values()) {
            targets.put(h, h.lastSeq);
        }
        barriers.add(new BarrierWait(port, request, targets));
        checkBarriers();
    }

    private void checkBarriers() {
        barriers.removeIf(b -> {
            for (Map.Entry<Host, Long> t : b.targets().entrySet()) {
                if (t.getKey().acked < t.getValue()) {
                    return false;
                }
            }
            send(b.port(), new Message.BarrierDone(b.request(), b.port().host.lastSeq, ""));
            return true;
        });
    }

    private void applied(Host host, long hostSeq) {
        if (host.acked < hostSeq) {
            host.progressNanos = System.nanoTime();
        }
        long before = host.acked;
        while (host.acked < hostSeq && !host.log.isEmpty()) {
            host.log.poll();
            host.acked++;
        }
        if (host.acked != before) {
            record(new HubReplication.Acked(host.id, host.acked));
        }
        checkBarriers();
    }

    /**
     * A host whose receivers have not acknowledged for {@link #RECEIVER_STALL_NANOS} while it has stream messages
     * unacknowledged (its receivers stopped, or busy) and that has another port: its first receiver moves behind
     * the host's other ports and the port that becomes a receiver gets what is unacknowledged. Each stall moves
     * one, so a live process of the host becomes a receiver after as many stalls as the host has stopped ones.
     */
    private void rotateStalledReceivers() {
        long now = System.nanoTime();
        for (Host host : hosts.values()) {
            if (host.log.isEmpty() || host.ports.size() <= RECEIVERS || now - host.progressNanos < RECEIVER_STALL_NANOS) {
                continue;
            }
            host.ports.add(host.ports.removeFirst());
            host.progressNanos = now;
            Port next = host.ports.get(RECEIVERS - 1);
            for (byte[] m : host.log) {
                sendBytes(next, m);
            }
        }
    }

    private void remote(Port port, long portSeq, Message.Remote r) {
        List<Port> home = r.home() >= 0 && r.home() < maxNodes ? portsOf(r.home()) : List.of();
        if (home.isEmpty()) {
            // as a soft fabric answers for a node without a process: its receive PCT grants nothing
            send(port, new Message.Result(r.request(), port.host.lastSeq, Kind.PERMISSION.ordinal() + 1, 0, new byte[0],
                    "node " + r.home() + " grants neither remote read nor atomics on pages " + r.firstPage() + "+" + r.count()
                            + ": no process of it is joined at the hub"));
            return;
        }
        long id = nextRemote++;
        Host host = home.getFirst().host;
        remotes.put(id, new RemoteWait(port, r.request(), host));
        sequence(port.session, portSeq, Type.STREAM_REMOTE, List.of(host), HubWire.encode(0, new Message.Remote(id, r.home(),
                r.firstPage(), r.count(), r.op(), r.offset(), r.a(), r.b(), r.length())));
    }

    private void answer(Message.Answer a) {
        RemoteWait w = remotes.remove(a.request());
        if (w != null && ports.containsKey(w.port().endpoint)) {
            send(w.port(), new Message.Result(w.request(), w.port().host.lastSeq, a.status(), a.value(), a.bytes(), a.message()));
        }
    }

    // ---- the standby (primary side) ---------------------------------------------------------------

    /**
     * Runs {@code action} (a send, a WELCOME) now when the standby holds every record made so far (or there is no
     * standby), else once it does, after the actions held before it.
     */
    private void output(Runnable action) {
        if (held.isEmpty() && recordsAcked >= recordsSent) {
            action.run();
        } else {
            held.add(new Held(recordsSent, action));
        }
    }

    /** Queues {@code r} for the standby, if one is attached. */
    private void record(HubReplication.Record r) {
        if (standby != null) {
            standby.out.add(HubReplication.encode(r));
            recordsSent++;
        }
    }

    /**
     * A standby joins (one at a time, only at a hub that serves): it gets the state as it is now (the image, the
     * hosts with their unacknowledged streams, the ports' sessions), then every change; from now on what this hub
     * sends waits until the standby holds the records made before it.
     */
    private JoinFields admitStandby(JoinGate.Member member, JoinFields fields) {
        try {
            HubWire.StandbyJoin.of(fields);
        } catch (MemchanException e) {
            throw refusal(e.kind(), e.getMessage());
        }
        if (!serving) {
            throw refusal(Kind.INVALID_ARGUMENT, "this hub is itself the standby of the hub at " + primary
                    + ": a standby joins the hub that serves");
        }
        if (standby != null) {
            throw refusal(Kind.IN_USE, "this hub has a standby already (" + standby.member.peer() + ")");
        }
        Standby s = new Standby(member);
        standby = s;
        recordsSent = 0;
        recordsAcked = 0;
        MemorySegment zero = MemorySegment.ofArray(new byte[HubReplication.IMAGE_CHUNK]);
        for (long at = 0; at < image.byteSize(); at += HubReplication.IMAGE_CHUNK) {
            MemorySegment chunk = image.asSlice(at, Math.min(HubReplication.IMAGE_CHUNK, image.byteSize() - at));
            if (chunk.mismatch(zero.asSlice(0, chunk.byteSize())) >= 0) {
                record(new HubReplication.Image(at, chunk.toArray(JAVA_BYTE)));
            }
        }
        record(new HubReplication.NextRemote(nextRemote));
        for (Host h : hosts.values()) {
            record(new HubReplication.Host(h.id, h.lastSeq, h.acked, h.ready));
            for (byte[] m : h.log) {
                record(new HubReplication.Logged(h.id, m));
            }
        }
        for (Port p : ports.values()) {
            record(new HubReplication.Port(p.session, p.node, p.host.id, p.expected - 1));
            if (p.incarnation != 0) {
                record(new HubReplication.Incarnation(p.session, p.node, p.incarnation));
            }
        }
        for (int n = 0; n < maxNodes; n++) { // of nodes gone too: a node that comes back after a takeover goes past them
            if (highestIncarnation[n] != 0) {
                record(new HubReplication.Incarnation(0, n, highestIncarnation[n]));
            }
        }
        member.carry(link -> serveStandby(s, link));
        System.err.println("memchan hub: standby " + member.peer() + " attached");
        return new HubWire.StandbyWelcome(fabricSize, pageSize, maxNodes, hubId).toFields();
    }

    /** The standby's connection after its WELCOME (the gate's thread): records go out in order, acknowledgements come in. */
    private void serveStandby(Standby s, JoinLink link) {
        Thread writer = Thread.ofVirtual().name("memchan-hub-to-standby").start(() -> {
            try {
                while (true) {
                    link.write(s.out.take());
                }
            } catch (InterruptedException | JoinRefusal ended) {
                link.close();
            }
        });
        String why;
        try {
            while (true) {
                if (!(HubReplication.decode(link.read(Long.MAX_VALUE, HubReplication.MAX_RECORD)) instanceof HubReplication.Ack a)) {
                    why = "it sent a record that is not an acknowledgement";
                    break;
                }
                worker.execute(() -> standbyAcked(s, a.records()));
            }
        } catch (MemchanException ended) {
            why = ended.getMessage();
        }
        writer.interrupt();
        String reason = why;
        try {
            worker.execute(() -> standbyGone(s, reason));
        } catch (MemchanException closed) {
            // the hub is closing
        }
    }

    private void standbyAcked(Standby s, long records) {
        if (standby != s) {
            return;
        }
        recordsAcked = Math.max(recordsAcked, records);
        while (!held.isEmpty() && held.peek().records() <= recordsAcked) {
            held.poll().action().run();
        }
    }

    /** The standby is gone: this hub goes on alone, and what waited for the standby goes out. */
    private void standbyGone(Standby s, String why) {
        if (standby != s) {
            return;
        }
        System.err.println("memchan hub: standby " + s.member.peer() + " gone (" + why + "): this hub serves without one");
        standby = null;
        recordsAcked = recordsSent;
        while (!held.isEmpty()) {
            held.poll().action().run();
        }
    }

    // ---- the standby (standby side) ---------------------------------------------------------------

    /**
     * The standby's connection to its primary (its own thread): each record is taken on the progress thread in
     * order; a batch of records is acknowledged once read (it is in this process, ahead of anything after it). The
     * connection's end is the primary's: this hub takes over.
     */
    private void replicate(JoinLink link) {
        long records = 0;
        String why;
        try {
            while (true) {
                HubReplication.Record r = HubReplication.decode(link.read(Long.MAX_VALUE, HubReplication.MAX_RECORD));
                worker.execute(() -> keep(r));
                records++;
                if (!link.hasUnread()) {
                    link.write(HubReplication.encode(new HubReplication.Ack(records)));
                }
            }
        } catch (JoinRefusal ended) {
            why = ended.getMessage();
        } catch (MemchanException bad) {
            System.err.println("memchan hub: the primary at " + primary + " sent " + bad.getMessage() + ": this standby stops and takes "
                    + "nothing over");
            link.close();
            return;
        }
        link.close();
        if (shutDown) {
            return; // this standby's own close ended the connection
        }
        String reason = why;
        try {
            worker.execute(() -> takeOver(reason));
        } catch (MemchanException closed) {
            // this standby is closing
        }
    }

    /** One record of the primary's, applied to this standby's copy of its state. */
    private void keep(HubReplication.Record r) {
        switch (r) {
            case HubReplication.Image i -> MemorySegment.copy(i.bytes(), 0, image, JAVA_BYTE, i.offset(), i.bytes().length);
            case HubReplication.NextRemote n -> nextRemote = n.next();
            case HubReplication.Host h -> {
                Host host = new Host(h.hostKey());
                host.lastSeq = h.lastSeq();
                host.acked = h.acked();
                host.ready = h.ready();
                hosts.put(host.id, host);
            }
            case HubReplication.HostReady h -> hosts.get(h.hostKey()).ready = true;
            case HubReplication.HostGone h -> hosts.remove(h.hostKey());
            case HubReplication.Logged l -> hosts.get(l.hostKey()).log.add(l.message());
            case HubReplication.Port p -> awaiting.put(p.session(), new Session(p.node(), p.hostKey(), p.sequenced()));
            case HubReplication.PortGone p -> awaiting.remove(p.session());
            case HubReplication.Incarnation i -> {
                Session session = awaiting.get(i.session());
                if (session != null) {
                    session.incarnation = i.incarnation();
                }
                if (i.node() >= 0 && i.node() < maxNodes) {
                    highestIncarnation[i.node()] = Math.max(highestIncarnation[i.node()], i.incarnation());
                }
            }
            case HubReplication.Sequenced q -> {
                if (!skipSequenced) {
                    keepSequenced(q);
                }
            }
            case HubReplication.Acked a -> {
                Host host = hosts.get(a.hostKey());
                while (host.acked < a.acked() && !host.log.isEmpty()) {
                    host.log.poll();
                    host.acked++;
                }
            }
            case HubReplication.Ack _ -> throw new MemchanException(Kind.BAD_FORMAT, "hub replication: an acknowledgement from the primary");
        }
    }

    private void keepSequenced(HubReplication.Sequenced q) {
        Message m = HubWire.decode(q.message()).message();
        if (m instanceof Message.Write w) {
            for (HubWire.Run run : w.runs()) {
                MemorySegment.copy(run.bytes(), 0, image, JAVA_BYTE, run.offset(), run.bytes().length);
            }
        } else if (m instanceof Message.Remote remote) {
            nextRemote = Math.max(nextRemote, remote.request() + 1);
        }
        for (int i = 0; i < q.hostKeys().length; i++) {
            Host host = hosts.get(q.hostKeys()[i]);
            host.log.add(HubWire.restamp(q.message(), q.streamType(), q.hostSeqs()[i]));
            host.lastSeq = q.hostSeqs()[i];
        }
        Session session = awaiting.get(q.session());
        if (session != null) {
            session.sequenced = q.portSeq();
        }
    }

    /**
     * The primary is gone: this hub serves, numbering each host's stream on from where the primary's records left
     * it. The primary's ports may resume their sessions for {@link #RESUME_GRACE_NANOS}; then their node IDs are
     * free and a host none of whose processes came back leaves.
     */
    private void takeOver(String why) {
        serving = true;
        System.err.println("memchan hub: the primary at " + primary + " is gone (" + why + "): this hub takes over with " + hosts.size()
                + " hosts and " + awaiting.size() + " sessions to resume");
        try {
            stallCheck.schedule(() -> {
                try {
                    worker.execute(this::endResumeGrace);
                } catch (MemchanException closing) {
                    // the hub is closing
                }
            }, RESUME_GRACE_NANOS, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException closing) {
            // the hub is closing
        }
    }

    private void endResumeGrace() {
        awaiting.clear();
        for (Host h : List.copyOf(hosts.values())) {
            if (h.ports.isEmpty()) {
                hostGone(h);
            }
        }
    }

    // ---- sending ----------------------------------------------------------------------------------

    private void send(Port port, Message m) {
        sendBytes(port, HubWire.encode(0, m));
    }

    /** Sends {@code bytes} to {@code port} once the standby holds every record made before. */
    private void sendBytes(Port port, byte[] bytes) {
        if (held.isEmpty() && recordsAcked >= recordsSent) {
            transmit(port, bytes); // no lambda on the path without a standby
        } else {
            output(() -> transmit(port, bytes));
        }
    }

    private void transmit(Port port, byte[] bytes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment payload = arena.allocate(bytes.length);
            MemorySegment.copy(bytes, 0, payload, JAVA_BYTE, 0, bytes.length);
            port.endpoint.send(HubWire.TO_NODE, arena.allocate(0), payload);
        } catch (MemchanException e) {
            // a message lost on a connection that lives would be a gap its host never fills: end the connection
            if (ports.containsKey(port.endpoint) && !port.endpoint.failed()) {
                System.err.println("memchan hub: a send to node " + port.node + " failed (" + e.getMessage() + "): its connection ends");
                worker.execute(() -> {
                    if (ports.containsKey(port.endpoint)) {
                        drop(port);
                        port.endpoint.close();
                    }
                });
            }
        }
    }

    /** What the hub serves now: hosts, live processes (ports), distinct node IDs among them. */
    public record Census(int hosts, int processes, int nodes) {
    }

    /**
     * The hub's census, taken on its progress thread (the only one that changes its tables); CLOSED once the hub
     * is closed, TIMEOUT when that thread does not run it within {@code timeout}.
     */
    public Census census(Duration timeout) {
        return onProgressThread(() -> new Census(hosts.size(), ports.size(),
                (int) ports.values().stream().mapToInt(p -> p.node).distinct().count()), timeout, "census");
    }

    /** A process the hub serves: its node ID, its host, its node's incarnation (0 until the process has reported it). */
    public record Member(int node, long host, long incarnation) {
    }

    /** The processes the hub serves, by node ID, taken on its progress thread; CLOSED and TIMEOUT as {@link #census}. */
    public List<Member> members(Duration timeout) {
        return onProgressThread(() -> ports.values().stream().map(p -> new Member(p.node, p.host.id, p.incarnation))
                .sorted(java.util.Comparator.comparingInt(Member::node).thenComparingLong(Member::host)).toList(), timeout, "members");
    }

    private <T> T onProgressThread(java.util.function.Supplier<T> read, Duration timeout, String what) {
        CompletableFuture<T> taken = new CompletableFuture<>();
        worker.execute(() -> taken.complete(read.get()));
        try {
            return taken.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new MemchanException(Kind.TIMEOUT, "the hub's thread did not answer within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MemchanException(Kind.TIMEOUT, "interrupted while waiting for the hub's " + what);
        } catch (ExecutionException e) {
            throw new MemchanException(Kind.DEVICE_ERROR, "the hub's " + what + " failed: " + e.getCause());
        }
    }

    /** The join gate's counts: handshakes, admissions, refusals by reason. */
    public JoinCounters joins() {
        return gate.counters();
    }

    @Override
    public void close() {
        shutDown = true;
        stallCheck.shutdownNow();
        if (standby != null) {
            standby.member.close();
        }
        if (primaryLink != null) {
            primaryLink.close();
        }
        gate.close();
        worker.close();
        context.close();
        imageArena.close();
    }
}
