package dev.memchan.internal.ucx;

/** What a worker's progress thread reports to the worker's event listener, on the progress thread. */
public sealed interface UcxEvent {

    /** {@code listener} accepted a connection: {@code endpoint} is the new connection to that peer. */
    record Accepted(UcxListener listener, UcxEndpoint endpoint) implements UcxEvent {
    }

    /**
     * The peer of {@code endpoint} failed or went away (UCX's error handler: its process died, the
     * connection was reset, or keepalive gave up). Reported once per endpoint; operations on it throw
     * from then on; close it to release it.
     */
    record PeerFailed(UcxEndpoint endpoint, int status, String reason) implements UcxEvent {
    }

    /** A handler (of active message {@code id}, or -1 for the worker's own work) threw; the worker goes on. */
    record HandlerFailed(int id, Throwable error) implements UcxEvent {
    }
}
