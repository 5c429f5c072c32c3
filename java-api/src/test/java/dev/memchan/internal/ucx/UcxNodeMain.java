package dev.memchan.internal.ucx;

import dev.memchan.ClusterTime;
import dev.memchan.FabricOptions;
import dev.memchan.MemchanException;
import dev.memchan.spi.Backend;
import dev.memchan.spi.BackendProvider;
import dev.memchan.spi.Location;
import dev.memchan.spi.RemoteWindow;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A node of {@link UcxBackendTest}: one {@code ucx:} backend joined through the SPI, driven by one command per
 * stdin line, one answer per stdout line ({@code error KIND message} when a command threw). Its host at the hub
 * is the system property {@link UcxBackend#HOST_PROPERTY} the test gives it.
 *
 * <pre>
 *   join LOCATION NODE             -> node N            (NODE -1: any)
 *   tx FIRST COUNT ENTRY           -> ok                (a transmit grant; one per process)
 *   rx FIRST COUNT ENTRY           -> ok                (a receive grant; one per process)
 *   store OFFSET FROM TO           -> ok                (FROM..TO stored into the word at OFFSET of the transmit grant, each pushed)
 *   load OFFSET                    -> value V           (the receive grant's word)
 *   watch A B LAST                 -> pairs a:b,...     (word A read, then word B; each pair once, until both read LAST)
 *   barrier                        -> ok
 *   fetchadd HOME PAGE OFFSET N    -> olds V,V,...      (N remote fetch-adds of 1)
 *   notify PAGE                    -> ok
 *   notifycount                    -> count C
 *   awaitnotify OBSERVED           -> count C           (once NOTIFY_COUNT is no longer OBSERVED)
 *   errors                         -> errors E
 *   applied                        -> applied S         (this host's stream applied up to S)
 *   incarnation                    -> incarnation I     (this node's claim)
 *   declare NODE INCARNATION       -> ok                (that incarnation declared dead at the hub)
 *   clock N                        -> outside K         (of N cluster-time readings, those whose bound misses the hub's time)
 *   exit
 * </pre>
 */
public final class UcxNodeMain {
    /** How long a wait of this program may take before it answers an error: generous, no assertion is about speed. */
    private static final long WAIT_NANOS = Duration.ofSeconds(120).toNanos();
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private UcxNodeMain() {
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Backend backend = null;
        Backend.Grant tx = null;
        Backend.Grant rx = null;
        out.println("ready");
        String line;
        while ((line = in.readLine()) != null) {
            String[] a = line.trim().split(" ");
            try {
                switch (a[0]) {
                    case "join" -> {
                        FabricOptions options = Integer.parseInt(a[2]) < 0 ? FabricOptions.defaults()
                                : FabricOptions.defaults().withNodeId(Integer.parseInt(a[2]));
                        Location location = Location.parse(a[1]);
                        backend = BackendProvider.of(location).open(location, options);
                        out.println("node " + backend.nodeId());
                    }
                    case "tx" -> {
                        tx = backend.grantTransmit(Integer.parseInt(a[1]), Integer.parseInt(a[2]), Integer.parseInt(a[3]));
                        out.println("ok");
                    }
                    case "rx" -> {
                        rx = backend.grantReceive(Integer.parseInt(a[1]), Integer.parseInt(a[2]), Long.parseLong(a[3]));
                        out.println("ok");
                    }
                    case "store" -> {
                        long offset = Long.parseLong(a[1]);
                        for (long v = Long.parseLong(a[2]); v <= Long.parseLong(a[3]); v++) {
                            tx.segment().set(JAVA_LONG, offset, v);
                            tx.push(offset, Long.BYTES);
                        }
                        out.println("ok");
                    }
                    case "load" -> out.println("value " + (long) LONG.getAcquire(rx.segment(), Long.parseLong(a[1])));
                    case "watch" -> out.println("pairs " + watch(rx, Long.parseLong(a[1]), Long.parseLong(a[2]), Long.parseLong(a[3])));
                    case "barrier" -> {
                        backend.ackBarrier(Duration.ofSeconds(60));
                        out.println("ok");
                    }
                    case "fetchadd" -> {
                        StringJoiner olds = new StringJoiner(",");
                        try (RemoteWindow w = backend.openRemote(Integer.parseInt(a[1]), Integer.parseInt(a[2]), 1)) {
                            for (int i = 0; i < Integer.parseInt(a[4]); i++) {
                                olds.add(Long.toString(w.getAndAdd(Long.parseLong(a[3]), 1)));
                            }
                        }
                        out.println("olds " + olds);
                    }
                    case "notify" -> {
                        backend.raiseNotify(Integer.parseInt(a[1]));
                        out.println("ok");
                    }
                    case "notifycount" -> out.println("count " + backend.notifyCount());
                    case "awaitnotify" -> {
                        int observed = Integer.parseInt(a[1]);
                        long deadline = System.nanoTime() + WAIT_NANOS;
                        while (backend.notifyCount() == observed && System.nanoTime() < deadline) {
                            backend.awaitNotify(observed, deadline - System.nanoTime());
                        }
                        out.println("count " + backend.notifyCount());
                    }
                    case "errors" -> out.println("errors " + backend.errorCount());
                    case "writes" -> out.println("writes " + ((UcxBackend) backend).writeMessages());
                    case "applied" -> out.println("applied " + ((UcxBackend) backend).appliedHostSeq());
                    case "incarnation" -> out.println("incarnation " + backend.incarnation());
                    case "declare" -> {
                        backend.fenceDeadNode(Integer.parseInt(a[1]), Long.parseLong(a[2]));
                        out.println("ok");
                    }
                    case "clock" -> out.println("outside " + readingsOutsideTheirBounds(backend, Integer.parseInt(a[1])));
                    case "exit" -> {
                        if (backend != null) {
                            backend.close();
                        }
                        return;
                    }
                    default -> out.println("error unknown command " + a[0]);
                }
            } catch (MemchanException e) {
                out.println("error " + e.kind() + " " + e.getMessage());
            }
        }
    }

    /**
     * Reads the cluster time {@code n} times and counts the readings whose interval {@code time .. time + bound}
     * misses the hub's time at the read. The hub runs on this host, so its clock is this process's
     * {@code System.nanoTime()}, and its time at the read lies between the nanoTime before and after it.
     */
    private static int readingsOutsideTheirBounds(Backend backend, int n) {
        int outside = 0;
        for (int i = 0; i < n; i++) {
            long before = System.nanoTime();
            ClusterTime r = backend.clusterTime();
            long after = System.nanoTime();
            if (r.time() > after || r.time() + r.bound() < before) {
                outside++;
            }
        }
        return outside;
    }

    /** Reads word {@code first}, then word {@code second}, until both are {@code last}; the distinct pairs seen, in order. */
    private static String watch(Backend.Grant rx, long first, long second, long last) {
        List<String> pairs = new ArrayList<>();
        long px = -1;
        long py = -1;
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (px != last || py != last) {
            long vx = (long) LONG.getAcquire(rx.segment(), first);
            long vy = (long) LONG.getAcquire(rx.segment(), second);
            if (vx != px || vy != py) {
                pairs.add(vx + ":" + vy);
                px = vx;
                py = vy;
            }
            if (System.nanoTime() > deadline) {
                throw new MemchanException(MemchanException.Kind.TIMEOUT, "watch: the words stayed at " + px + ":" + py + ", not " + last);
            }
            Thread.onSpinWait();
        }
        return String.join(",", pairs);
    }
}
