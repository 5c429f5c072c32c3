package dev.memchan.tools.bench.jmh;

import dev.memchan.Fabric;
import dev.memchan.FabricOptions;
import dev.memchan.MessageChannel;
import dev.memchan.admin.FabricAdmin;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

/**
 * The code path of one message through a channel, both ends in the benchmark's thread: send one message
 * of {@code size} bytes, then take it at the receiver. One core, so no cache line moves between cores: what
 * is left is each ring's own work per message (bounds and state checks, credit, header, copy), memchan's
 * {@code offer} / {@code poll} beside Agrona's {@code write} / {@code read} on the same kind of memory (a
 * MAP_SHARED /dev/shm mapping).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ChannelPath {
    private static final int CAPACITY = 1 << 16;
    private static final int MSG_TYPE = 1;

    @Param({"32", "64", "256", "1024", "4096"})
    public int size;

    private String fabricName;
    private Fabric senderNode;
    private Fabric receiverNode;
    private MessageChannel.Sender sender;
    private MessageChannel.Receiver receiver;
    private Path agronaFile;
    private Arena arena;
    private OneToOneRingBuffer agrona;
    private MemorySegment message;
    private UnsafeBuffer agronaMessage;
    private final MessageChannel.Handler memchanSink = (buffer, offset, length) -> { };
    private final MessageHandler agronaSink = (type, buffer, index, length) -> { };

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        fabricName = "jmh-channel-" + ProcessHandle.current().pid();
        FabricAdmin.create("shm:" + fabricName, FabricOptions.defaults().withGeometry(4L << 20, 4096, 2));
        senderNode = Fabric.open("shm:" + fabricName, FabricOptions.defaults().withCreate(false).withNodeId(0));
        receiverNode = Fabric.open("shm:" + fabricName, FabricOptions.defaults().withCreate(false).withNodeId(1));
        receiver = MessageChannel.receiver(receiverNode, 0x4348_414eL, 0, CAPACITY);
        sender = MessageChannel.sender(senderNode, 0x4348_414eL, 1, CAPACITY);
        arena = Arena.ofShared();
        agronaFile = Files.createTempFile(Path.of("/dev/shm"), "memchan-jmh-agrona-", "");
        try (FileChannel ch = FileChannel.open(agronaFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MemorySegment ring = ch.map(FileChannel.MapMode.READ_WRITE, 0, CAPACITY + RingBufferDescriptor.TRAILER_LENGTH, arena);
            agrona = new OneToOneRingBuffer(new UnsafeBuffer(ring.address(), Math.toIntExact(ring.byteSize())));
        }
        message = arena.allocate(size, Long.BYTES);
        message.fill((byte) 0x5A);
        agronaMessage = new UnsafeBuffer(message.address(), size);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        sender.close();
        receiver.close();
        arena.close();
        Files.deleteIfExists(agronaFile);
        senderNode.close();
        receiverNode.close();
        FabricAdmin.remove("shm:" + fabricName);
    }

    @Benchmark
    public int memchanOfferPoll() {
        if (!sender.offer(message, 0, size)) {
            throw new IllegalStateException("memchan ring full with one message in flight");
        }
        return take(receiver.poll(memchanSink, 1));
    }

    @Benchmark
    public int agronaWriteRead() {
        if (!agrona.write(MSG_TYPE, agronaMessage, 0, size)) {
            throw new IllegalStateException("Agrona ring full with one message in flight");
        }
        int taken = agrona.read(agronaSink, 1);
        return taken != 0 ? taken : take(agrona.read(agronaSink, 1)); // a read that met Agrona's padding frame at the ring's end takes nothing
    }

    private static int take(int messages) {
        if (messages != 1) {
            throw new IllegalStateException("took " + messages + " messages, not the one sent");
        }
        return messages;
    }
}
