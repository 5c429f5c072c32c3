package dev.memchan;

import dev.memchan.conformance.TestBackend;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The claim/commit send path and the batched receive, both ends driven from one thread (two nodes of
 * one soft fabric): in-place writes, wrap-around, a full ring, abort, batch limits, and bad input that
 * is refused with nothing changed.
 */
class MessageChannelClaimTest {
    private static final int CAPACITY = 4096;
    /** A poll limit that takes everything waiting. */
    private static final int ALL = Integer.MAX_VALUE;

    private Fabric a;
    private Fabric b;
    private MessageChannel.Sender tx;
    private MessageChannel.Receiver rx;

    @BeforeEach
    void open() {
        String location = TestBackend.newFabric("claim");
        long key = TestBackend.key();
        a = Fabric.open(location, TestBackend.joinOptions());
        b = Fabric.open(location, TestBackend.joinOptions());
        rx = MessageChannel.receiver(b, key, a.nodeId(), CAPACITY);
        tx = MessageChannel.sender(a, key, b.nodeId(), CAPACITY);
    }

    @AfterEach
    void close() {
        tx.close();
        rx.close();
        b.close();
        a.close();
    }

    @AfterAll
    static void cleanup() {
        TestBackend.cleanup();
    }

    private static byte[] message(int seq, int length) {
        byte[] m = new byte[length];
        for (int j = 0; j < length; j++) {
            m[j] = (byte) (seq * 31 + j);
        }
        return m;
    }

    /** Claims, writes {@code m} in place, commits; returns the claimed offset. */
    private long claimWriteCommit(byte[] m) {
        long at = tx.tryClaim(m.length);
        assertTrue(at >= 0, "room for " + m.length + " bytes");
        MemorySegment.copy(MemorySegment.ofArray(m), 0, tx.buffer(), at, m.length);
        tx.commit();
        return at;
    }

    /** Everything waiting, as byte arrays, polled in batches of {@code limit}. */
    private List<byte[]> drain(int limit) {
        List<byte[]> got = new ArrayList<>();
        while (rx.poll((buf, off, len) -> got.add(buf.asSlice(off, len).toArray(JAVA_BYTE)), limit) > 0) {
            // next batch
        }
        return got;
    }

    @Test
    void claimedPayloadIsInvisibleUntilCommitThenDeliveredInPlace() {
        byte[] m = message(1, 100);
        long at = tx.tryClaim(m.length);
        assertEquals(8, at, "the first frame's payload follows its 8-byte header");
        MemorySegment.copy(MemorySegment.ofArray(m), 0, tx.buffer(), at, m.length);
        assertEquals(0, rx.poll((buf, off, len) -> { }, 10), "nothing before commit");
        tx.commit();
        long[] where = new long[2];
        assertEquals(1, rx.poll((buf, off, len) -> {
            where[0] = off;
            where[1] = len;
            assertArrayEquals(m, buf.asSlice(off, len).toArray(JAVA_BYTE));
        }, 10));
        assertEquals(at, where[0], "the receiver reads the payload where the sender wrote it");
        assertEquals(m.length, where[1]);
        tx.awaitConsumed(Duration.ofSeconds(5));
    }

    @Test
    void claimsWrapAroundThroughManyLapsWithEveryByteIntact() {
        Random r = new Random(7);
        int sent = 0;
        int received = 0;
        boolean wrappedToStart = false;
        long lastOffset = 0;
        for (int lap = 0; lap < 2000; lap++) {
            byte[] m = message(sent, r.nextInt(tx.maxMessage() + 1));
            long at = tx.tryClaim(m.length);
            if (at < 0) { // full: take everything, then the claim must fit
                for (byte[] got : drain(7)) {
                    assertArrayEquals(message(received, got.length), got, "message " + received);
                    received++;
                }
                at = tx.tryClaim(m.length);
                assertTrue(at >= 0, "room after the receiver drained the ring");
            }
            assertTrue(at >= 8 && at + m.length <= CAPACITY, "claim inside the ring: " + at + " + " + m.length);
            wrappedToStart |= at == 8 && lastOffset > 8;
            lastOffset = at;
            MemorySegment.copy(MemorySegment.ofArray(m), 0, tx.buffer(), at, m.length);
            tx.commit();
            sent++;
        }
        for (byte[] got : drain(7)) {
            assertArrayEquals(message(received, got.length), got, "message " + received);
            received++;
        }
        assertEquals(sent, received);
        assertTrue(wrappedToStart, "some claims wrapped to the ring's start");
        tx.awaitConsumed(Duration.ofSeconds(5));
    }

    @Test
    void fullRingRefusesClaimAndOfferWithNothingChangedUntilTheReceiverConsumes() {
        int size = 1000; // frames of 1008 bytes: four fit in 4096, the fifth does not
        int claimed = 0;
        for (long at; (at = tx.tryClaim(size)) >= 0; claimed++) {
            MemorySegment.copy(MemorySegment.ofArray(message(claimed, size)), 0, tx.buffer(), at, size);
            tx.commit();
        }
        assertEquals(4, claimed);
        assertEquals(-1, tx.tryClaim(size), "still full");
        assertFalse(tx.offer(MemorySegment.ofArray(message(9, size)), 0, size));
        List<byte[]> got = drain(ALL);
        assertEquals(4, got.size(), "the refused claim and offer sent nothing");
        for (int i = 0; i < 4; i++) {
            assertArrayEquals(message(i, size), got.get(i));
        }
        byte[] next = message(4, size);
        assertEquals(8, claimWriteCommit(next), "wraps to the start once the receiver consumed");
        List<byte[]> last = drain(ALL);
        assertEquals(1, last.size());
        assertArrayEquals(next, last.get(0));
    }

    @Test
    void abortSendsNothingAndLeavesTheRingAsBefore() {
        claimWriteCommit(message(0, 1500)); // two frames of 1512 bytes: the next 2000-byte claim must wrap
        claimWriteCommit(message(1, 1500));
        long at = tx.tryClaim(2000);
        assertEquals(-1, at, "no room until the receiver consumes");
        assertEquals(2, drain(ALL).size());
        at = tx.tryClaim(2000);
        assertEquals(8, at, "the claim wraps to the start");
        MemorySegment.copy(MemorySegment.ofArray(message(66, 2000)), 0, tx.buffer(), at, 2000);
        tx.abort();
        assertEquals(0, rx.poll((buf, off, len) -> { }, 10), "an aborted claim is never seen, nor its padding");
        byte[] small = message(2, 40);
        assertEquals(3032, claimWriteCommit(small), "after abort the next frame goes where the aborted one would have wrapped from");
        List<byte[]> got = drain(ALL);
        assertEquals(1, got.size());
        assertArrayEquals(small, got.get(0));
    }

    @Test
    void closingTheReceiverGivesBackTheRoomOfItsLastFullBatch() {
        for (int i = 0; i < 4; i++) {
            claimWriteCommit(message(i, 24));
        }
        assertEquals(4, rx.poll((buf, off, len) -> { }, 4), "a full batch: not drained, below an eighth of the ring");
        assertEquals(MemchanException.Kind.TIMEOUT,
                assertThrows(MemchanException.class, () -> tx.awaitConsumed(Duration.ZERO)).kind());
        rx.close();
        tx.awaitConsumed(Duration.ZERO);
    }

    @Test
    void pollHandsAtMostLimitMessagesAndReturnsCreditOncePerBatch() {
        for (int i = 0; i < 10; i++) {
            claimWriteCommit(message(i, 24));
        }
        int[] seen = new int[1];
        MessageChannel.Handler count = (buf, off, len) -> {
            assertArrayEquals(message(seen[0], len), buf.asSlice(off, len).toArray(JAVA_BYTE));
            seen[0]++;
        };
        assertEquals(3, rx.poll(count, 3));
        // A full batch below an eighth of the ring gives no credit back yet.
        assertEquals(MemchanException.Kind.TIMEOUT,
                assertThrows(MemchanException.class, () -> tx.awaitConsumed(Duration.ZERO)).kind());
        assertEquals(3, rx.poll(count, 3));
        assertEquals(3, rx.poll(count, 3));
        assertEquals(1, rx.poll(count, 3), "the last one; the ring is drained, so the credit goes back");
        tx.awaitConsumed(Duration.ZERO);
        assertEquals(0, rx.poll(count, 3));
        assertEquals(10, seen[0]);
    }

    @Test
    void handlerThatThrowsLeavesItsMessageForTheNextPoll() {
        claimWriteCommit(message(0, 16));
        claimWriteCommit(message(1, 16));
        int[] calls = new int[1];
        RuntimeException boom = new IllegalStateException("handler failed");
        assertThrows(IllegalStateException.class, () -> rx.poll((buf, off, len) -> {
            if (calls[0]++ == 1) {
                throw boom;
            }
        }, 10));
        List<byte[]> rest = drain(ALL);
        assertEquals(1, rest.size(), "the message the handler threw on comes again, the one before does not");
        assertArrayEquals(message(1, 16), rest.get(0));
    }

    /** On write-back pages (the soft fabric) offer copies in bulk: every length and source alignment lands exactly. */
    @Test
    void offerFromUnalignedSourcesDeliversEveryLengthExactly() {
        for (int length = 0; length <= 41; length++) {
            for (int srcOffset = 0; srcOffset < 8; srcOffset++) {
                byte[] m = message(length * 8 + srcOffset, length);
                byte[] src = new byte[srcOffset + length];
                System.arraycopy(m, 0, src, srcOffset, length);
                assertTrue(tx.offer(MemorySegment.ofArray(src), srcOffset, length), "room for " + length + " bytes");
                List<byte[]> got = drain(ALL);
                assertEquals(1, got.size());
                assertArrayEquals(m, got.get(0), "length " + length + " from source offset " + srcOffset);
            }
        }
    }

    @Test
    void offerOfABadSourceRangeSendsNothing() {
        MemorySegment src = MemorySegment.ofArray(new byte[20]);
        assertThrows(IndexOutOfBoundsException.class, () -> tx.offer(src, 8, 16));
        assertEquals(0, rx.poll((buf, off, len) -> { }, ALL), "nothing sent");
        byte[] m = message(3, 24);
        assertEquals(8, claimWriteCommit(m), "the refused offer claimed nothing");
        List<byte[]> got = drain(ALL);
        assertEquals(1, got.size());
        assertArrayEquals(m, got.get(0));
    }

    @Test
    void badInputIsRefusedWithNothingChanged() {
        assertInvalid(() -> tx.tryClaim(-1));
        assertInvalid(() -> tx.tryClaim(tx.maxMessage() + 1));
        assertInvalid(tx::commit);
        assertInvalid(tx::abort);
        assertInvalid(() -> rx.poll((buf, off, len) -> { }, 0));
        long at = tx.tryClaim(32);
        assertEquals(8, at, "the refused calls claimed nothing");
        assertInvalid(() -> tx.tryClaim(32));
        assertInvalid(() -> tx.offer(MemorySegment.ofArray(new byte[8]), 0, 8));
        assertInvalid(() -> tx.send(MemorySegment.ofArray(new byte[8]), 0, 8, Duration.ofSeconds(1)));
        byte[] m = message(5, 32);
        MemorySegment.copy(MemorySegment.ofArray(m), 0, tx.buffer(), at, 32);
        tx.commit(); // the open claim survived the refused calls
        assertInvalid(tx::commit);
        List<byte[]> got = drain(ALL);
        assertEquals(1, got.size());
        assertArrayEquals(m, got.get(0));
    }

    private static void assertInvalid(Runnable call) {
        MemchanException e = assertThrows(MemchanException.class, call::run);
        assertEquals(MemchanException.Kind.INVALID_ARGUMENT, e.kind(), e.getMessage());
    }
}
