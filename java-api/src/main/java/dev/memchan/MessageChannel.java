package dev.memchan;

import dev.memchan.MemchanException.Kind;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Objects;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * A point-to-point channel of variable-length messages, written payload first and then a
 * header/sequence word, as in seed 000's "8-byte message plus 8-byte flag".
 *
 * <p>Two regions: the ring (key K, sender → receiver) and the credit word (key K | 1&lt;&lt;62,
 * receiver → sender), so the sender never reads remote memory and never overruns the receiver.
 *
 * <p>The ring is {@code capacity} bytes (a power of two) of frames ({@link ChannelFrameDescriptor}). A frame's
 * header is stored after its payload, with a store fence (write-combining safe); the receiver reads it with
 * acquire and only then the payload. The credit region holds one u64 at +0: the bytes the receiver has
 * consumed.
 */
public final class MessageChannel {
    static final long CREDIT_KEY_BIT = 1L << 62;

    private MessageChannel() {
    }

    /** Receives a message in place: {@code buffer} holds it at {@code offset}, {@code length} bytes, until the callback returns. */
    @FunctionalInterface
    public interface Handler {
        void onMessage(MemorySegment buffer, long offset, int length);
    }

    private static int checkCapacity(Fabric fabric, int capacity) {
        if (capacity < fabric.pageSize() || Integer.bitCount(capacity) != 1) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "channel capacity must be a power of two of at least one page ("
                    + fabric.pageSize() + " bytes), not " + capacity);
        }
        return capacity;
    }

    /** The sending end, to node {@code receiver}; {@code capacity} bytes of ring. */
    public static Sender sender(Fabric fabric, long key, int receiver, int capacity) {
        return open(fabric, key, capacity, (ring, credit) -> {
            Sender s = new Sender(fabric, ring, credit, ring.attachTransmit(Route.node(receiver), false),
                    credit.attachReceive(false), capacity);
            // On a board, packets for pages the receiver has not enabled yet are dropped: wait for it.
            long deadline = System.nanoTime() + 30_000_000_000L;
            while ((ring.receivers() & (1 << receiver)) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new MemchanException(Kind.TIMEOUT, String.format("channel 0x%x: node %d did not attach "
                            + "its receiving end within 30 s", key, receiver));
                }
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            return s;
        });
    }

    /** The receiving end, from node {@code sender}. */
    public static Receiver receiver(Fabric fabric, long key, int sender, int capacity) {
        return open(fabric, key, capacity, (ring, credit) -> new Receiver(fabric, ring, credit, ring.attachReceive(false),
                credit.attachTransmit(Route.node(sender), false), capacity));
    }

    /** Allocates (or joins) the ring and credit regions and attaches one end; on failure releases both. */
    private static <E extends End> E open(Fabric fabric, long key, int capacity, java.util.function.BiFunction<Region, Region, E> end) {
        checkCapacity(fabric, capacity);
        Region ring = fabric.allocate(key, capacity, 0660);
        Region credit = null;
        try {
            credit = fabric.allocate(key | CREDIT_KEY_BIT, fabric.pageSize(), 0660);
            return fabric.track(end.apply(ring, credit));
        } catch (RuntimeException e) {
            ring.close();
            if (credit != null) {
                credit.close();
            }
            throw e;
        }
    }

    /** What both ends hold: the two regions and the ring's geometry and position. */
    abstract static class End implements AutoCloseable {
        final Fabric fabric;
        final Region ringRegion;
        final Region creditRegion;
        final int capacity;
        final int mask;
        long position;
        int seq = ChannelFrameDescriptor.FIRST_SEQ;

        End(Fabric fabric, Region ringRegion, Region creditRegion, int capacity) {
            this.fabric = fabric;
            this.ringRegion = ringRegion;
            this.creditRegion = creditRegion;
            this.capacity = capacity;
            this.mask = capacity - 1;
        }

        @Override
        public void close() {
            ringRegion.close();
            creditRegion.close();
            fabric.untrack(this);
        }
    }

    /**
     * Sending end. Single-threaded; no allocation per message.
     *
     * <p>Two ways to send: {@link #offer} copies a message from a segment; {@link #tryClaim} /
     * {@link #commit} let the caller write the payload in place in the ring (no copy), as Agrona's
     * {@code tryClaim}/{@code commit}. Either way the payload is stored first and the frame's header
     * last, after a store fence ({@link OutgoingMapping#putLongRelease}): a write-combining transmit
     * window cannot deliver the header before the payload.
     */
    public static final class Sender extends End {
        private static final long NO_CLAIM = -1;

        private final OutgoingMapping ring;
        private final MemorySegment ringSegment;
        /** The ring's grant is write-combining (a board): {@link #offer} stores whole words only. */
        private final boolean wordStores;
        private final IncomingMapping credit;
        private long limit;
        /** Ring offset of the open claim's frame, or NO_CLAIM. */
        private long claimIndex = NO_CLAIM;
        /** Ring offset of the padding frame the open claim needs first (it wraps), or NO_CLAIM. */
        private long claimPadIndex = NO_CLAIM;
        private int claimLength;

        Sender(Fabric fabric, Region ringRegion, Region creditRegion, OutgoingMapping ring, IncomingMapping credit, int capacity) {
            super(fabric, ringRegion, creditRegion, capacity);
            this.ring = ring;
            this.ringSegment = ring.segment();
            this.wordStores = ring.writeCombining();
            this.credit = credit;
            this.limit = capacity;
        }

        /** Largest message: half the ring. */
        public int maxMessage() {
            return capacity / 2 - ChannelFrameDescriptor.HEADER_LENGTH;
        }

        /**
         * The ring's transmit pages, for writing a claimed payload in place: stores only, and only to
         * {@code [offset, offset + length)} of the open claim.
         */
        public MemorySegment buffer() {
            return ringSegment;
        }

        /**
         * Claims room for a message of {@code length} bytes: returns the offset in {@link #buffer()} where
         * its payload goes (8-byte aligned), or -1 if the ring has no room now (nothing changed). Write the
         * payload there with whole 4- or 8-byte aligned stores (a board's transmit window drops byte and
         * 16-bit stores; the frame is padded to 8 bytes, so the last word may overhang the payload), then
         * {@link #commit()} (or {@link #abort()}). One claim at a time; {@link #offer}
         * and {@link #send} are refused while a claim is open.
         */
        public long tryClaim(int length) {
            checkNoClaim();
            checkLength(length);
            int frame = ChannelFrameDescriptor.frameLength(length);
            int index = (int) (position & mask);
            int toEnd = capacity - index;
            if (!hasRoom(toEnd < frame ? toEnd + frame : frame)) {
                return -1;
            }
            claimLength = length;
            if (toEnd < frame) {
                claimPadIndex = index;
                claimIndex = 0;
            } else {
                claimPadIndex = NO_CLAIM;
                claimIndex = index;
            }
            return ChannelFrameDescriptor.payloadOffset(claimIndex);
        }

        /**
         * Publishes the open claim: store fence, then the frame's header (after the padding frame's
         * header if the claim wrapped). The receiver sees the payload as it was written before this call.
         * Where the ring's grant is a shadow, the payload is pushed, then the header: two pushes, no diff of the ring.
         */
        public void commit() {
            if (claimIndex == NO_CLAIM) {
                throw new MemchanException(Kind.INVALID_ARGUMENT, "commit without an open claim: call tryClaim first");
            }
            if (claimPadIndex != NO_CLAIM) {
                publish(claimPadIndex, ChannelFrameDescriptor.PAD_LENGTH);
                position += capacity - claimPadIndex;
            }
            ring.push(ChannelFrameDescriptor.payloadOffset(claimIndex),
                    ChannelFrameDescriptor.frameLength(claimLength) - ChannelFrameDescriptor.HEADER_LENGTH);
            publish(claimIndex, claimLength);
            claimIndex = NO_CLAIM;
        }

        /**
         * Gives up the open claim: no header is stored, so the receiver sees nothing of it (payload bytes
         * already written stay in ring space no frame covers), and the next claim starts where this one did.
         */
        public void abort() {
            if (claimIndex == NO_CLAIM) {
                throw new MemchanException(Kind.INVALID_ARGUMENT, "abort without an open claim: call tryClaim first");
            }
            claimIndex = NO_CLAIM;
        }

        /**
         * Sends {@code length} bytes of {@code src} from {@code offset} if the ring has room; false otherwise.
         * A claim, a copy into it and its commit; if the copy fails (a bad {@code src} range), nothing is sent.
         * The copy is a bulk {@link MemorySegment#copy} where the ring's grant is write-back memory (soft fabric,
         * ivshmem), and {@link #copyWords} where it is write-combining (a board).
         */
        public boolean offer(MemorySegment src, long offset, int length) {
            long at = tryClaim(length);
            if (at < 0) {
                return false;
            }
            try {
                if (wordStores) {
                    copyWords(src, offset, ringSegment, at, length);
                } else {
                    MemorySegment.copy(src, offset, ringSegment, at, length); // checks src's range before it stores
                }
            } catch (RuntimeException e) {
                abort();
                throw e;
            }
            commit();
            return true;
        }

        /**
         * Copies {@code length} bytes into the ring at {@code at} (8-byte aligned: a frame's payload) with
         * whole 8-byte stores only, the last one padded with zeros inside the frame. A board's transmit
         * window takes whole 32-bit lanes: a byte or 16-bit store (what a bulk copy does at an unaligned
         * head or tail) is dropped by the adapter, which on the co-simulated board cut messages short.
         */
        static void copyWords(MemorySegment src, long offset, MemorySegment ring, long at, int length) {
            // bounds first (no slice: this is the send path): a bad range is refused before any store
            Objects.checkFromIndexSize(offset, length, src.byteSize());
            int whole = length & ~7;
            for (int i = 0; i < whole; i += 8) {
                ring.set(JAVA_LONG, at + i, src.get(JAVA_LONG_UNALIGNED, offset + i));
            }
            if (whole < length) {
                long tail = 0;
                for (int i = length - 1; i >= whole; i--) {
                    tail = tail << 8 | (src.get(JAVA_BYTE, offset + i) & 0xFF);
                }
                ring.set(JAVA_LONG, at + whole, tail);
            }
        }

        private void checkLength(int length) {
            if (length < 0 || length > maxMessage()) {
                throw new MemchanException(Kind.INVALID_ARGUMENT, "message of " + length + " bytes: must be 0.." + maxMessage());
            }
        }

        private void checkNoClaim() {
            if (claimIndex != NO_CLAIM) {
                throw new MemchanException(Kind.INVALID_ARGUMENT, "a claim is open: commit or abort it first");
            }
        }

        /** Whether {@code need} more bytes fit; reads the receiver's credit only when the cached limit says no. */
        private boolean hasRoom(long need) {
            if (position + need <= limit) {
                return true;
            }
            limit = credit.getLongAcquire(0) + capacity;
            return position + need <= limit;
        }

        /**
         * The header of the frame at {@code index} (payload already stored and pushed), after a store fence; advances
         * seq and, for a message, position.
         */
        private void publish(long index, int length) {
            ring.putLongReleaseAfterPushes(index, ChannelFrameDescriptor.header(seq, length));
            seq = ChannelFrameDescriptor.nextSeq(seq);
            if (length != ChannelFrameDescriptor.PAD_LENGTH) {
                position += ChannelFrameDescriptor.frameLength(length);
            }
        }

        /** Sends, waiting for room; throws TIMEOUT after {@code timeout}. */
        public void send(MemorySegment src, long offset, int length, Duration timeout) {
            if (offer(src, offset, length)) {
                return;
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            int idle = 0;
            while (!offer(src, offset, length)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new MemchanException(Kind.TIMEOUT, "receiver did not make room within " + timeout.toMillis() + " ms");
                }
                idle = idle(idle);
            }
        }

        /** Waits until the receiver has consumed everything sent so far; throws TIMEOUT. */
        public void awaitConsumed(Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            int idle = 0;
            while (credit.getLongAcquire(0) != position) {
                if (System.nanoTime() - deadline > 0) {
                    throw new MemchanException(Kind.TIMEOUT, "receiver consumed " + credit.getLongAcquire(0) + " of "
                            + position + " bytes within " + timeout.toMillis() + " ms");
                }
                idle = idle(idle);
            }
        }

    }

    static int idle(int idle) {
        if (idle < 1000) {
            Thread.onSpinWait();
        } else {
            Thread.yield(); // two cores: let the other side run
        }
        return idle + 1;
    }

    /** Receiving end. Single-threaded; no allocation per message. */
    public static final class Receiver extends End {
        /** {@link #nextMessage}: none waiting (a message's length is 0..maxMessage). */
        private static final int NO_MESSAGE = -1;
        private final IncomingMapping ring;
        private final MemorySegment ringSegment;
        private final OutgoingMapping credit;
        private final long creditBatch;
        private long published;

        Receiver(Fabric fabric, Region ringRegion, Region creditRegion, IncomingMapping ring, OutgoingMapping credit, int capacity) {
            super(fabric, ringRegion, creditRegion, capacity);
            this.ring = ring;
            this.ringSegment = ring.segment();
            this.credit = credit;
            this.creditBatch = capacity / 8;
        }

        /**
         * The batched receive: hands up to {@code limit} waiting messages to {@code handler}, in order and in
         * place (no copy), and returns how many. The consumed room goes back to the sender at most once per
         * call: when the ring is drained, or when an eighth of the ring has been consumed since the last
         * time. If the handler throws, the messages before the one it threw on are consumed; that one is not,
         * and the next call delivers it again.
         */
        public int poll(Handler handler, int limit) {
            if (limit < 1) {
                throw new MemchanException(Kind.INVALID_ARGUMENT, "poll limit " + limit + ": must be at least 1");
            }
            int delivered = 0;
            while (delivered < limit) {
                int length = nextMessage();
                if (length == NO_MESSAGE) {
                    break;
                }
                handler.onMessage(ringSegment, ChannelFrameDescriptor.payloadOffset(position & mask), length);
                consume(length); // after the handler: a message it threw on is delivered again
                delivered++;
            }
            returnCredit(delivered < limit);
            return delivered;
        }

        /**
         * Copies the next message into {@code dst}, waiting up to {@code timeout}; returns its length,
         * or -1 on timeout. A message longer than {@code dst} is an error (and is not consumed).
         */
        public int receive(MemorySegment dst, Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            int idle = 0;
            int length;
            while ((length = nextMessage()) == NO_MESSAGE) {
                returnCredit(true); // drained: give all credit back before waiting
                if (System.nanoTime() - deadline > 0) {
                    return -1;
                }
                idle = idle(idle);
            }
            if (length > dst.byteSize()) {
                throw new MemchanException(Kind.INVALID_ARGUMENT, "message of " + length + " bytes does not fit in "
                        + dst.byteSize() + " bytes");
            }
            MemorySegment.copy(ringSegment, ChannelFrameDescriptor.payloadOffset(position & mask), dst, 0, length);
            consume(length);
            returnCredit(nextMessage() == NO_MESSAGE);
            return length;
        }

        /**
         * The receive step of {@link #poll} and {@link #receive}: the length of the message at {@code position}
         * (its header read with acquire, so its payload is visible), after passing a padding frame in front of
         * it; {@link #NO_MESSAGE} when none is waiting. The message stays unconsumed until {@link #consume}.
         */
        private int nextMessage() {
            while (true) {
                int index = (int) (position & mask);
                long header = ring.getLongAcquire(index);
                if (ChannelFrameDescriptor.seq(header) != seq) {
                    return NO_MESSAGE;
                }
                int length = ChannelFrameDescriptor.length(header);
                if (length != ChannelFrameDescriptor.PAD_LENGTH) {
                    return length;
                }
                seq = ChannelFrameDescriptor.nextSeq(seq);
                position += capacity - index;
            }
        }

        /**
         * Gives the room of every message consumed so far back to the sender, then closes: a receiver whose last
         * {@link #poll} took a full batch below an eighth of the ring has not given that room back yet, and its
         * sender's {@link Sender#awaitConsumed} would wait for it forever.
         */
        @Override
        public void close() {
            returnCredit(true);
            super.close();
        }

        /** Consumes the message {@link #nextMessage} returned. */
        private void consume(int length) {
            seq = ChannelFrameDescriptor.nextSeq(seq);
            position += ChannelFrameDescriptor.frameLength(length);
        }

        /**
         * Gives the consumed room back to the sender when the ring is {@code drained} or an eighth of it has been
         * consumed since the last time: not per message, since each credit store is a packet on a board and a
         * fence here.
         */
        private void returnCredit(boolean drained) {
            if (position != published && (drained || position - published >= creditBatch)) {
                credit.putLongReleaseAfterPushes(0, position); // the credit word is all this end stores
                published = position;
            }
        }
    }
}
