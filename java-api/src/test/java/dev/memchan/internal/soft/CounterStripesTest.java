package dev.memchan.internal.soft;

import dev.memchan.internal.HostIdentity;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.layout.SoftFabricLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.memchan.layout.Regs.*;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** The page counters' stripes, bases and stripe claims on a real fabric file (layout 3). */
class CounterStripesTest {
    private static final int HOME = 1;
    private static final int PAGE = SYS_PAGES + 2;

    private Path path;
    private Arena arena;
    private int fd;
    private SoftFabricLayout layout;
    private MemorySegment control;

    @BeforeEach
    void create() throws Exception {
        path = Path.of("/dev/shm", "memchan-t" + ProcessHandle.current().pid() + "-stripes");
        Files.deleteIfExists(path);
        SoftFabricFile.create(path, 4 << 20, 4096, 8, -1);
        SoftFabricFile.Opened o = SoftFabricFile.open(path);
        fd = o.fd();
        layout = o.layout();
        arena = Arena.ofShared();
        control = Posix.mmap(fd, 0, layout.dataOffset(), true, arena);
    }

    @AfterEach
    void remove() throws Exception {
        arena.close();
        Posix.close(fd);
        Files.deleteIfExists(path);
    }

    private long count(int counter) {
        return Integer.toUnsignedLong(CounterStripes.read(control, layout, HOME, PAGE, counter));
    }

    private int ownersTaken() {
        int taken = 0;
        for (int s = 0; s < SF_COUNTER_STRIPES; s++) {
            taken += control.get(JAVA_LONG, SoftFabricLayout.stripeOwner(s)) != 0 ? 1 : 0;
        }
        return taken;
    }

    /** More threads than stripes: the last ones count with the atomic add in the home's word; the sum is exact. */
    @Test
    void threadsBeyondTheStripesStillCountExactlyAndCloseGivesTheStripesBack() throws Exception {
        CounterStripes stripes = new CounterStripes(control, layout, 0);
        int threads = SF_COUNTER_STRIPES + 4;
        int each = 100_000;
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            all.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < each; i++) {
                    stripes.count(HOME, PAGE, SF_PAGE_COUNTER_ATOMICS);
                }
            }));
        }
        for (Thread t : all) {
            t.join();
        }
        assertEquals((long) threads * each, count(SF_PAGE_COUNTER_ATOMICS));
        assertEquals(0, count(SF_PAGE_COUNTER_READS));
        assertEquals(SF_COUNTER_STRIPES, ownersTaken());
        assertNotEquals(0, control.get(JAVA_INT, layout.pageCounters(HOME, PAGE) + SF_PAGE_COUNTER_ATOMICS),
                "the threads without a stripe counted in the home's word");
        stripes.close();
        assertEquals(0, ownersTaken(), "close gives every stripe back");
        assertEquals((long) threads * each, count(SF_PAGE_COUNTER_ATOMICS), "the counts stay with the stripes");
    }

    /** Clearing stores the stripes' sums in the bases: the home counts from zero, the stripes keep theirs. */
    @Test
    void clearingStartsTheHomeFromZeroWithoutWritingTheStripes() {
        CounterStripes stripes = new CounterStripes(control, layout, 0);
        for (int i = 0; i < 7; i++) {
            stripes.count(HOME, PAGE, SF_PAGE_COUNTER_READS);
        }
        long stripe = layout.stripeEntry(0, PAGE) + SF_PAGE_COUNTER_READS;
        assertEquals(7, control.get(JAVA_INT, stripe));
        CounterStripes.clear(control, layout, HOME, PAGE);
        assertEquals(0, count(SF_PAGE_COUNTER_READS));
        assertEquals(7, control.get(JAVA_INT, stripe), "a home never writes a stripe");
        stripes.count(HOME, PAGE, SF_PAGE_COUNTER_READS);
        assertEquals(1, count(SF_PAGE_COUNTER_READS));
        stripes.close();
    }

    /** A stripe whose writer died (same host, pid gone) is taken over, its counts kept and counted on. */
    @Test
    void aDeadWritersStripeIsTakenOverWithItsCounts() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        int deadPid = (int) gone.pid();
        int deadNode = 2;
        control.set(JAVA_LONG, layout.nodeBlock(deadNode) + SF_NODE_HOST_ID, HostIdentity.hostId());
        control.set(JAVA_LONG, SoftFabricLayout.stripeOwner(0), CounterStripes.ownerWord(deadPid, deadNode, 1));
        control.set(JAVA_INT, layout.stripeEntry(0, PAGE) + SF_PAGE_COUNTER_ATOMICS, 41);
        // another host's writer is never judged: its stripe stays taken
        control.set(JAVA_LONG, layout.nodeBlock(3) + SF_NODE_HOST_ID, HostIdentity.hostId() ^ 1);
        control.set(JAVA_LONG, SoftFabricLayout.stripeOwner(1), CounterStripes.ownerWord(deadPid, 3, 1));
        CounterStripes stripes = new CounterStripes(control, layout, 0);
        stripes.count(HOME, PAGE, SF_PAGE_COUNTER_ATOMICS);
        long owner = control.get(JAVA_LONG, SoftFabricLayout.stripeOwner(0));
        assertEquals(Posix.getpid(), (int) (owner & SF_STRIPE_OWNER_PID_MASK), "stripe 0 taken over");
        assertEquals(42, control.get(JAVA_INT, layout.stripeEntry(0, PAGE) + SF_PAGE_COUNTER_ATOMICS));
        assertEquals(CounterStripes.ownerWord(deadPid, 3, 1), control.get(JAVA_LONG, SoftFabricLayout.stripeOwner(1)));
        assertEquals(42, count(SF_PAGE_COUNTER_ATOMICS));
        stripes.close();
    }
}
