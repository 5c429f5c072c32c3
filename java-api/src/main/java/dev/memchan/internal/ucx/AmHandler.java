package dev.memchan.internal.ucx;

import java.lang.foreign.MemorySegment;

/**
 * The receiver of one active-message id on a worker ({@link UcxWorker#setHandler}). It runs on the
 * worker's progress thread, one message at a time. {@code header} and {@code payload} are valid during
 * the call only (UCX's receive buffer, or the layer's copy of it when the message arrived while another
 * thread was progressing the worker): copy what you keep. They have no alignment: read them with the
 * {@code _UNALIGNED} value layouts. A handler must not block and must not call a
 * blocking operation of the transport (it runs inside UCX's progress, which must not be re-entered);
 * {@link UcxWorker#execute} runs work on the progress thread right after.
 */
@FunctionalInterface
public interface AmHandler {
    /** {@code from} is the endpoint the sender is reachable on, or null when this worker has none to it. */
    void onMessage(UcxEndpoint from, MemorySegment header, MemorySegment payload);
}
