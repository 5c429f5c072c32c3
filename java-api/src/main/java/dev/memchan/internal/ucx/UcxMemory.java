package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.internal.nativeio.Ucp;
import dev.memchan.internal.nativeio.UcpDefs;
import dev.memchan.internal.nativeio.UcpDefs.ucp_mem_map_params_t;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

import static java.lang.foreign.ValueLayout.ADDRESS;

/**
 * A registered segment of this process's memory (ucp_mem_map of an existing address, nothing
 * allocated) and its {@link #descriptor()}: what a peer needs to reach it, to be sent to the peer by
 * any means (an active message, a file) and opened there with {@link UcxEndpoint#remote(byte[])}.
 *
 * <p>Immutable and thread-safe; {@link #close()} unregisters (once, from any thread) and must come
 * before the segment's memory is unmapped or freed.
 */
public final class UcxMemory implements AutoCloseable {
    /** The descriptor's first four bytes, "UCXM". */
    static final int MAGIC = 0x5543584D;
    /** Magic, address, length, key length. */
    static final int HEADER = 4 + 8 + 8 + 4;

    private final UcxContext context;
    private final MemorySegment segment;
    private final MemorySegment memh;
    private final byte[] descriptor;
    private final AtomicBoolean closed = new AtomicBoolean();

    UcxMemory(UcxContext context, MemorySegment segment) {
        if (!segment.isNative() || segment.byteSize() == 0 || segment.isReadOnly()) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT,
                    "only a writable, non-empty native segment can be registered with UCX (got " + segment + ")");
        }
        this.context = context;
        this.segment = segment;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment params = arena.allocate(ucp_mem_map_params_t.LAYOUT);
            ucp_mem_map_params_t.field_mask(params, UcpDefs.UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UcpDefs.UCP_MEM_MAP_PARAM_FIELD_LENGTH);
            ucp_mem_map_params_t.address(params, segment);
            ucp_mem_map_params_t.length(params, segment.byteSize());
            MemorySegment memhOut = arena.allocate(ADDRESS);
            String what = "registering " + segment.byteSize() + " bytes at 0x" + Long.toHexString(segment.address()) + " with UCX";
            Ucp.check(Ucp.memMap(context.handle, params, memhOut), what);
            this.memh = memhOut.get(ADDRESS, 0);
            byte[] key;
            try {
                key = Ucp.rkeyPack(context.handle, memh, "packing the remote key of a registration");
            } catch (MemchanException e) {
                Ucp.memUnmap(context.handle, memh);
                throw e;
            }
            this.descriptor = ByteBuffer.allocate(HEADER + key.length).putInt(MAGIC).putLong(segment.address())
                    .putLong(segment.byteSize()).putInt(key.length).put(key).array();
        }
    }

    /** The registered memory. */
    public MemorySegment segment() {
        return segment;
    }

    /** Address, length and packed remote key, for a peer's {@link UcxEndpoint#remote(byte[])}. */
    public byte[] descriptor() {
        return descriptor.clone();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            context.forget(this);
            Ucp.check(Ucp.memUnmap(context.handle, memh), "unregistering memory from UCX");
        }
    }
}
