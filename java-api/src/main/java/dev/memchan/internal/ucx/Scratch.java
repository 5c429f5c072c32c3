package dev.memchan.internal.ucx;

import dev.memchan.internal.nativeio.UcpDefs;
import dev.memchan.internal.nativeio.UcpDefs.ucp_request_param_t;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One thread's native buffers for the blocking operations: the request parameters and two 64-bit words
 * (an atomic's operand and result). Allocated once per thread, on its first operation, and reused: an
 * operation allocates nothing else. UCX reads the parameters during the call only; the words stay in use
 * until the operation completes, which the blocking forms wait for before returning.
 */
final class Scratch {
    private static final ThreadLocal<Scratch> CURRENT = ThreadLocal.withInitial(Scratch::new);

    final MemorySegment param;
    /** An atomic's operand (compare-and-swap's expected value), putLong's source. */
    final MemorySegment word;
    /** An atomic's result (compare-and-swap's new value on the way in), getLong's destination. */
    final MemorySegment reply;

    private Scratch() {
        Arena arena = Arena.ofAuto(); // freed with the thread's Scratch
        param = arena.allocate(ucp_request_param_t.LAYOUT);
        word = arena.allocate(JAVA_LONG);
        reply = arena.allocate(JAVA_LONG);
    }

    static Scratch get() {
        return CURRENT.get();
    }

    /** Parameters with no field set: UCX's defaults (bytes, no callback). */
    MemorySegment plain() {
        ucp_request_param_t.op_attr_mask(param, 0);
        return param;
    }

    /** Parameters with operation flags. */
    MemorySegment flags(int flags) {
        ucp_request_param_t.op_attr_mask(param, UcpDefs.UCP_OP_ATTR_FIELD_FLAGS);
        ucp_request_param_t.flags(param, flags);
        return param;
    }

    /** Parameters of a 64-bit atomic whose result goes to {@link #reply}. */
    MemorySegment atomic() {
        ucp_request_param_t.op_attr_mask(param, UcpDefs.UCP_OP_ATTR_FIELD_DATATYPE | UcpDefs.UCP_OP_ATTR_FIELD_REPLY_BUFFER);
        ucp_request_param_t.datatype(param, UcpDefs.UCP_DATATYPE_CONTIG_8);
        ucp_request_param_t.reply_buffer(param, reply);
        return param;
    }
}
