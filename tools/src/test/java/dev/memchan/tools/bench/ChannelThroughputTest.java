package dev.memchan.tools.bench;

import dev.memchan.Fabric;
import dev.memchan.FabricOptions;
import dev.memchan.MemchanException;
import dev.memchan.MessageChannel;
import dev.memchan.admin.FabricAdmin;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bandwidth receiver of {@code mcctl bench serve}: a sender that stops mid-run (its process died) ends the
 * run with a time-out once the silence bound passes, instead of leaving the server waiting for ever; with no
 * bound it keeps waiting (the negative control: still running after twice the bound).
 */
class ChannelThroughputTest {
    private static final int CAPACITY = 64 * 1024;
    private static final int SIZE = 256;

    @Test
    void receiverGivesUpOnASilentSenderOnlyWithABound() throws Exception {
        String name = "memchan-chanbw-" + ProcessHandle.current().pid();
        FabricAdmin.create("shm:" + name, FabricOptions.defaults().withGeometry(4 << 20, 4096, 4));
        try (Fabric rx = Fabric.open("shm:" + name, FabricOptions.defaults());
             Fabric tx = Fabric.open("shm:" + name, FabricOptions.defaults())) {
            CompletableFuture<Long> bounded = CompletableFuture.supplyAsync(
                    () -> ChannelThroughput.receive(rx, 0x5100, tx.nodeId(), CAPACITY, 100, Duration.ofSeconds(1)));
            try (MessageChannel.Sender _ = sendThenFallSilent(tx, 0x5100, rx.nodeId(), 10)) {
                MemchanException e = (MemchanException) assertThrows(Exception.class, () -> bounded.get(60, TimeUnit.SECONDS))
                        .getCause();
                assertEquals(MemchanException.Kind.TIMEOUT, e.kind(), e.toString());
                assertTrue(e.getMessage().contains("the sender on node " + tx.nodeId()
                        + " was silent for 1 s (10 of 100 messages received)"), e.getMessage());
            }

            CompletableFuture<Long> unbounded = CompletableFuture.supplyAsync(
                    () -> ChannelThroughput.receive(rx, 0x5200, tx.nodeId(), CAPACITY, 20, Duration.ZERO));
            try (MessageChannel.Sender s = sendThenFallSilent(tx, 0x5200, rx.nodeId(), 10)) {
                Thread.sleep(2_000);
                assertFalse(unbounded.isDone(), "a receiver without a bound stopped waiting: " + unbounded);
                send(s, 10, 10); // the rest: the unbounded run completes
                assertEquals(20L * SIZE, unbounded.get(60, TimeUnit.SECONDS));
            }
        } finally {
            FabricAdmin.remove("shm:" + name);
        }
    }

    /** Sends messages 0..count-1 of the pattern and returns the open sender (the caller closes it). */
    private static MessageChannel.Sender sendThenFallSilent(Fabric tx, long key, int receiver, int count) {
        MessageChannel.Sender s = MessageChannel.sender(tx, key, receiver, CAPACITY);
        send(s, 0, count);
        return s;
    }

    private static void send(MessageChannel.Sender s, int first, int count) {
        MemorySegment ring = s.buffer();
        for (int i = first; i < first + count; i++) {
            long at = s.tryClaim(SIZE);
            assertTrue(at >= 0, "room for message " + i);
            MessagePattern.fill(ring, at, SIZE, i);
            s.commit();
        }
    }
}
