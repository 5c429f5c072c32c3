package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.internal.nativeio.Ucp;
import dev.memchan.internal.nativeio.UcpDefs;
import dev.memchan.internal.nativeio.UcpDefs.ucp_params_t;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import static java.lang.foreign.ValueLayout.ADDRESS;

/**
 * A UCP context with the features the transport uses (RMA, 64-bit atomics, active messages, wakeup).
 * UCX reads its configuration from the {@code UCX_*} environment; {@link #open(Map)} overrides settings
 * by name without the prefix ({@code TLS}, {@code NET_DEVICES}, ...), for this context only.
 *
 * <p>Thread-safe: workers and registrations may be made from any thread (the context is created with
 * {@code mt_workers_shared}). {@link #close()} closes every worker and registration made from it; call
 * it once nothing else uses them.
 */
public final class UcxContext implements AutoCloseable {
    final MemorySegment handle;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<UcxWorker> workers = new CopyOnWriteArrayList<>();
    private final List<UcxMemory> registrations = new CopyOnWriteArrayList<>();

    private UcxContext(MemorySegment handle) {
        this.handle = handle;
    }

    /** A context with UCX's configuration from the environment. */
    public static UcxContext open() {
        return open(Map.of());
    }

    /**
     * A context with UCX's configuration from the environment, {@code settings} applied on top (e.g.
     * {@code TLS=tcp}, {@code NET_DEVICES=lo}). Throws MemchanException naming the package when libucp is
     * not installed, and naming the setting when UCX refuses one.
     */
    public static UcxContext open(Map<String, String> settings) {
        Ucp.require();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment configOut = arena.allocate(ADDRESS);
            Ucp.check(Ucp.configRead(configOut), "reading UCX's configuration (the UCX_* environment)");
            MemorySegment config = configOut.get(ADDRESS, 0);
            try {
                for (Map.Entry<String, String> s : settings.entrySet()) {
                    int status = Ucp.configModify(config, s.getKey(), s.getValue());
                    if (status != UcpDefs.UCS_OK) {
                        throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "UCX setting " + s.getKey() + "="
                                + s.getValue() + " refused: " + Ucp.statusString(status));
                    }
                }
                MemorySegment params = arena.allocate(ucp_params_t.LAYOUT);
                ucp_params_t.field_mask(params, UcpDefs.UCP_PARAM_FIELD_FEATURES | UcpDefs.UCP_PARAM_FIELD_MT_WORKERS_SHARED);
                ucp_params_t.features(params, UcpDefs.UCP_FEATURE_RMA | UcpDefs.UCP_FEATURE_AMO64
                        | UcpDefs.UCP_FEATURE_AM | UcpDefs.UCP_FEATURE_WAKEUP);
                ucp_params_t.mt_workers_shared(params, 1);
                MemorySegment contextOut = arena.allocate(ADDRESS);
                Ucp.check(Ucp.init(params, config, contextOut), "initializing UCX (ucp_init)");
                return new UcxContext(contextOut.get(ADDRESS, 0));
            } finally {
                Ucp.configRelease(config);
            }
        }
    }

    /**
     * A worker with its progress thread (named {@code ucx-progress-NAME}). {@code events} runs on the
     * progress thread for every {@link UcxEvent}; it must not block for long.
     */
    public UcxWorker newWorker(String name, Consumer<UcxEvent> events) {
        requireOpen();
        UcxWorker worker = new UcxWorker(this, name, events);
        workers.add(worker);
        return worker;
    }

    /**
     * Registers {@code segment} (native memory of this process, e.g. a mapping) for remote access through
     * every worker of this context: ucp_mem_map of its address and length, nothing allocated. The
     * registration must be closed before the segment's memory goes away.
     */
    public UcxMemory register(MemorySegment segment) {
        requireOpen();
        UcxMemory memory = new UcxMemory(this, segment);
        registrations.add(memory);
        return memory;
    }

    void forget(UcxWorker worker) {
        workers.remove(worker);
    }

    void forget(UcxMemory memory) {
        registrations.remove(memory);
    }

    private void requireOpen() {
        if (closed.get()) {
            throw new MemchanException(MemchanException.Kind.CLOSED, "the UCX context is closed");
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (UcxWorker w : workers) {
            w.close();
        }
        for (UcxMemory m : registrations) {
            m.close();
        }
        Ucp.cleanup(handle);
    }
}
