/**
 * The UCX transport beneath a network backend: OpenUCX's UCP API called through FFM
 * ({@link dev.memchan.internal.nativeio.Ucp}), over TCP on any Ethernet or loopback, shared memory, or
 * InfiniBand/RoCE, whichever UCX selects ({@code UCX_TLS}, {@code UCX_NET_DEVICES}).
 *
 * <ul>
 *   <li>{@link dev.memchan.internal.ucx.UcxContext}: the UCP context (features RMA, 64-bit atomics,
 *       active messages, wakeup); registers memory.</li>
 *   <li>{@link dev.memchan.internal.ucx.UcxWorker}: a UCP worker and its progress thread, which sleeps on
 *       the worker's wakeup descriptor when there is nothing to do; listeners, endpoints, active-message
 *       handlers, events.</li>
 *   <li>{@link dev.memchan.internal.ucx.UcxListener}: accepts connections on exactly the address given.</li>
 *   <li>{@link dev.memchan.internal.ucx.UcxEndpoint}: a connection to one peer: put, get, fetch-add,
 *       compare-and-swap, swap on 64-bit words, flush, active messages.</li>
 *   <li>{@link dev.memchan.internal.ucx.UcxMemory} and {@link dev.memchan.internal.ucx.UcxRemoteMemory}:
 *       a registered {@code MemorySegment} and its descriptor (address, length, packed remote key), and
 *       the peer's side of it, bounds-checked.</li>
 *   <li>{@link dev.memchan.internal.ucx.UcxEvent}: what the progress thread reports (a connection
 *       accepted, a peer failed, a handler threw).</li>
 * </ul>
 *
 * <h2>Ordering (what UCP guarantees and what this layer adds)</h2>
 * UCP orders nothing by itself: two puts of one endpoint may complete at the target in either order,
 * and so may two active messages, or a put and a message. This layer adds no ordering of its own; it
 * names the tools and says when each operation returns:
 * <ul>
 *   <li>{@code put} returns when the source may be reused (local completion). The data is at the target
 *       only after a {@link dev.memchan.internal.ucx.UcxEndpoint#flush() flush} of the endpoint or
 *       {@link dev.memchan.internal.ucx.UcxWorker#flush() of the worker} returns.</li>
 *   <li>{@link dev.memchan.internal.ucx.UcxWorker#fence() fence}: the puts and atomics the worker issued
 *       before it complete at their targets before those issued after it (no wait).</li>
 *   <li>{@code get}, {@code fetchAdd}, {@code compareAndSwap} and {@code swap} return with the value read
 *       at the target, so each is complete there when it returns; a sequence of them from one thread is
 *       therefore in program order.</li>
 *   <li>{@code send} (an active message) returns when its buffers may be reused. Messages carry no order:
 *       a receiver that needs one numbers them per sender. Handlers of one worker run one at a time.</li>
 * </ul>
 *
 * <h2>Threads</h2>
 * Workers run in {@code UCS_THREAD_MODE_MULTI}: any thread may issue an operation directly, without a
 * hand-over to the progress thread, and a blocking operation progresses the worker in the calling thread
 * until its request completes, so its completion costs no wake-up of another thread. Over TCP UCX
 * emulates puts, gets and atomics with active messages that the target must progress: the progress
 * thread does that for every node, and sleeps in {@code poll} on the worker's wakeup descriptor after
 * {@code ucp_worker_arm} when idle. Active-message handlers and event listeners run on the progress
 * thread only.
 *
 * <h2>Peer failure</h2>
 * Endpoints use UCX's peer error handling: a peer that dies (its process killed, its connection reset)
 * is reported once as {@link dev.memchan.internal.ucx.UcxEvent.PeerFailed}; operations on that endpoint
 * then throw a {@link dev.memchan.MemchanException}. UCX's keepalive (20 s by default) bounds the
 * detection of a peer that stops answering without closing its connection: events are hints for a
 * failure detector, not one.
 */
package dev.memchan.internal.ucx;
