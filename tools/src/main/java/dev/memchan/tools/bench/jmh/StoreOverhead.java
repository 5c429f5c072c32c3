package dev.memchan.tools.bench.jmh;

import dev.memchan.Fabric;
import dev.memchan.FabricOptions;
import dev.memchan.OutgoingMapping;
import dev.memchan.Region;
import dev.memchan.Route;
import dev.memchan.admin.FabricAdmin;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The store overhead of seed 001's "write-and-run" (about 150 ns per store on Memory Channel): what a
 * store into a transmit mapping ({@link OutgoingMapping}) costs beside the same store into a plain
 * MemorySegment of the same memory type, a MAP_SHARED mapping of a /dev/shm file in a shared arena (the
 * soft fabric's pages are such a mapping). Each pair differs only in the target: {@code *Mapping} goes
 * through memchan, {@code *Segment} is the plain segment. The offset walks a 4 KiB page, 64 bytes a step.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class StoreOverhead {
    private static final VarHandle LONG = JAVA_LONG.varHandle();
    private static final int PAGE = 4096;

    private String fabricName;
    private Fabric fabric;
    private Region region;
    private OutgoingMapping mapping;
    private Path plainFile;
    private Arena plainArena;
    private MemorySegment plain;
    private Arena sourceArena;
    private MemorySegment source;
    private long offset;
    private long value;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        fabricName = "jmh-store-" + ProcessHandle.current().pid();
        FabricAdmin.create("shm:" + fabricName, FabricOptions.defaults().withGeometry(1L << 20, PAGE, 2));
        fabric = Fabric.open("shm:" + fabricName, FabricOptions.defaults().withCreate(false).withNodeId(0));
        region = fabric.allocate(0x5354_4f52_4500L, PAGE, 0600);
        mapping = region.attachTransmit(Route.broadcast(), false);
        plainFile = Files.createTempFile(Path.of("/dev/shm"), "memchan-jmh-plain-", "");
        plainArena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(plainFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            // The same kind of segment as the soft fabric's (Posix.mmap): a native segment over a MAP_SHARED
            // mapping, reinterpreted into a shared arena (FileChannel.map itself returns another segment class).
            plain = MemorySegment.ofAddress(ch.map(FileChannel.MapMode.READ_WRITE, 0, PAGE, plainArena).address())
                    .reinterpret(PAGE, plainArena, null);
        }
        sourceArena = Arena.ofShared();
        source = sourceArena.allocate(64, 64);
        for (long i = 0; i < 64; i += 8) {
            source.set(JAVA_LONG, i, i * 0x0101_0101L);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        sourceArena.close();
        plainArena.close();
        Files.deleteIfExists(plainFile);
        mapping.close();
        region.close();
        fabric.close();
        FabricAdmin.remove("shm:" + fabricName);
    }

    private long next() {
        long o = offset;
        offset = (o + 64) & (PAGE - 1);
        return o;
    }

    @Benchmark
    public void putLongMapping() {
        mapping.putLong(next(), ++value);
    }

    @Benchmark
    public void putLongSegment() {
        plain.set(JAVA_LONG, next(), ++value);
    }

    /** The channel's header store: store fence for the memory type, then a release store. */
    @Benchmark
    public void putLongReleaseMapping() {
        mapping.putLongRelease(next(), ++value);
    }

    @Benchmark
    public void putLongReleaseSegment() {
        VarHandle.releaseFence();
        LONG.setRelease(plain, next(), ++value);
    }

    @Benchmark
    public void copy64Mapping() {
        MemorySegment.copy(source, 0, mapping.segment(), next(), 64);
    }

    @Benchmark
    public void copy64Segment() {
        MemorySegment.copy(source, 0, plain, next(), 64);
    }
}
