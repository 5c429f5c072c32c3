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
    private final long hubId = new SecureRandom().nextLong() | 1;
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

    /** One authenticated connection: a process of node {@code node} on {@code host}. */
    private static final class Port {
        final UcxEndpoint endpoint;
        /** The join's connection, open while the port lives: its end is the process's. */
        final JoinGate.Member member;
        final Host host;
        final int node;
        long expected = 1;
        final TreeMap<Long, byte[]> early = new TreeMap<>();

        Port(UcxEndpoint endpoint, JoinGate.Member member, Host host, int node) {
            this.endpoint = endpoint;
            this.member = member;
            this.host = host;
            this.node = node;
        }
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
        String problem = SoftFabricLayout.problem(fabricSize, pageSize, maxNodes);
        if (problem != null) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "hub geometry: " + problem);
        }
        this.fabricSize = fabricSize;
        this.pageSize = pageSize;
        this.maxNodes = maxNodes;
        this.pageCount = SoftFabricLayout.forCreation(fabricSize, pageSize, maxNodes).pageCount();
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
                write(port, w, bytes);
                sequenced(port);
            }
            case Message.Notify _ -> {
                for (Host h : hosts.values()) {
                    stream(h, Type.STREAM_NOTIFY, bytes);
                }
                sequenced(port);
            }
            case Message.Barrier b -> barrier(port, b.request());
            case Message.Remote r -> remote(port, r);
            case Message.Answer a -> answer(a);
            case Message.Applied a -> applied(port.host, a.hostSeq());
            case Message.Time t -> send(port, new Message.TimeReply(t.request(), System.nanoTime()));
            case Message.Bye _ -> {
                drop(port);
                port.endpoint.close();
            }
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
        HubWire.NodeJoin join;
        try {
            join = HubWire.NodeJoin.of(fields);
        } catch (MemchanException e) {
            throw refusal(e.kind(), e.getMessage());
        }
        Host host = hosts.get(join.hostKey());
        int node = join.node();
        if (node >= maxNodes) {
            throw refusal(Kind.INVALID_ARGUMENT, "node ID " + node + " out of range 0.." + (maxNodes - 1) + " of this fabric");
        }
        if (node == -1) {
            for (int n = 0; n < maxNodes && node == -1; n++) {
                if (portsOf(n).isEmpty()) {
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
        }
        UcxEndpoint endpoint;
        try {
            endpoint = worker.connect(join.worker(), "node " + node + " at " + member.peer());
        } catch (MemchanException e) {
            throw refusal(Kind.INVALID_ARGUMENT, "the node's worker address: " + e.getMessage());
        }
        if (host == null) {
            host = new Host(join.hostKey());
            hosts.put(host.id, host);
        }
        Port port = new Port(endpoint, member, host, node);
        ports.put(endpoint, port);
        boolean first = host.ports.isEmpty();
        host.ports.add(port);
        if (first) {
            host.ready = false;
            host.maker = port;
            snapshotInto(host);
        } else if (host.ports.size() <= RECEIVERS) {
            for (byte[] m : host.log) { // a new receiver: what the host has not acknowledged, it may be the one to apply
                sendBytes(port, m);
            }
        }
        return new HubWire.HubWelcome(node, fabricSize, pageSize, maxNodes, hubId, first, host.ready, workerAddress).toFields();
    }

    /** {@link #admit} on the progress thread, where the hub's state lives; called on the gate's connection thread. */
    private JoinFields admitOnProgressThread(JoinGate.Member member, JoinFields fields) {
        CompletableFuture<JoinFields> admitted = new CompletableFuture<>();
        worker.execute(() -> {
            try {
                admitted.complete(admit(member, fields));
            } catch (RuntimeException e) {
                admitted.completeExceptionally(e);
            }
        });
        try {
            return admitted.get(JoinGate.DEFAULT_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new MemchanException(Kind.DEVICE_ERROR, "admission: " + e.getCause());
        } catch (TimeoutException e) {
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
                for (Port p : ports.values()) {
                    if (p.member == member) {
                        drop(p);
                        p.endpoint.close();
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
        if (host.ports.isEmpty()) {
            hosts.remove(host.id);
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
    }

    private void refuse(Port port, Kind kind, String message) {
        System.err.println("memchan hub: refused " + port.endpoint.peer() + ": " + message);
        send(port, new Message.Refused(kind, message));
        drop(port);
        port.endpoint.close();
    }

    // ---- the sequencer ----------------------------------------------------------------------------

    private void write(Port port, Message.Write w, byte[] bytes) {
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
        for (Host h : destinations(port, w.entry())) {
            stream(h, Type.STREAM_WRITE, bytes);
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
                stream(host, Type.STREAM_WRITE, HubWire.encode(0, new Message.Write(broadcast, List.copyOf(runs))));
                runs.clear();
                bytes = 0;
            }
            runs.add(new HubWire.Run((long) p * pageSize, page.toArray(JAVA_BYTE)));
            bytes += pageSize;
        }
        if (!runs.isEmpty()) {
            stream(host, Type.STREAM_WRITE, HubWire.encode(0, new Message.Write(broadcast, List.copyOf(runs))));
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
        while (host.acked < hostSeq && !host.log.isEmpty()) {
            host.log.poll();
            host.acked++;
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

    private void remote(Port port, Message.Remote r) {
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
        stream(host, Type.STREAM_REMOTE, HubWire.encode(0, new Message.Remote(id, r.home(), r.firstPage(), r.count(), r.op(),
                r.offset(), r.a(), r.b(), r.length())));
    }

    private void answer(Message.Answer a) {
        RemoteWait w = remotes.remove(a.request());
        if (w != null && ports.containsKey(w.port().endpoint)) {
            send(w.port(), new Message.Result(w.request(), w.port().host.lastSeq, a.status(), a.value(), a.bytes(), a.message()));
        }
    }

    // ---- sending ----------------------------------------------------------------------------------

    private void send(Port port, Message m) {
        sendBytes(port, HubWire.encode(0, m));
    }

    private void sendBytes(Port port, byte[] bytes) {
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
        CompletableFuture<Census> taken = new CompletableFuture<>();
        worker.execute(() -> taken.complete(new Census(hosts.size(), ports.size(),
                (int) ports.values().stream().mapToInt(p -> p.node).distinct().count())));
        try {
            return taken.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new MemchanException(Kind.TIMEOUT, "the hub's thread did not answer within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MemchanException(Kind.TIMEOUT, "interrupted while waiting for the hub's census");
        } catch (ExecutionException e) {
            throw new MemchanException(Kind.DEVICE_ERROR, "the hub's census failed: " + e.getCause());
        }
    }

    /** The join gate's counts: handshakes, admissions, refusals by reason. */
    public JoinCounters joins() {
        return gate.counters();
    }

    @Override
    public void close() {
        stallCheck.shutdownNow();
        gate.close();
        worker.close();
        context.close();
        imageArena.close();
    }
}
