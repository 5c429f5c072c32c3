package dev.memchan.internal.dev;

import dev.memchan.Fabric;
import dev.memchan.FabricOptions;
import dev.memchan.IncomingMapping;
import dev.memchan.MemchanException;
import dev.memchan.Notifier;
import dev.memchan.OutgoingMapping;
import dev.memchan.Region;
import dev.memchan.Route;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The library on {@code dev:/dev/memchanN} in a real kernel: run by native/test.sh inside a QEMU
 * guest (plain {@code java}, no Maven) with a node ID already set. Prints TAP; exit status 0 when
 * every check passed.
 *
 * <pre>java --enable-native-access=ALL-UNNAMED -cp target/classes:target/test-classes \
 *     dev.memchan.internal.dev.DevGuestSmoke dev:/dev/memchan0</pre>
 */
public final class DevGuestSmoke {
    private static int n;
    private static int failed;

    private DevGuestSmoke() {
    }

    private interface Check {
        String run() throws Exception;
    }

    private static void check(String name, Check c) {
        n++;
        try {
            String detail = c.run();
            System.out.println("ok " + n + " - java dev: " + name + (detail == null ? "" : " (" + detail + ")"));
        } catch (Throwable t) {
            failed++;
            System.out.println("# " + t);
            for (StackTraceElement e : t.getStackTrace()) {
                System.out.println("#   at " + e);
            }
            System.out.println("not ok " + n + " - java dev: " + name);
        }
    }

    private static void require(boolean cond, String what) {
        if (!cond) {
            throw new AssertionError(what);
        }
    }

    public static void main(String[] args) throws Exception {
        String location = args.length > 0 ? args[0] : "dev:/dev/memchan0";
        long key = ThreadLocalRandom.current().nextLong() & 0x0FFF_FFFF_FFFFL;
        long t0 = System.nanoTime();
        try (Fabric f = Fabric.open(location, FabricOptions.defaults().withCreate(false))) {
            check("open " + location, () -> {
                require(f.admin().adapter().kind().equals("dev"), "adapter kind " + f.admin().adapter().kind());
                require(f.nodeId() == 0, "node " + f.nodeId());
                require(f.pageSize() == 4096 && f.pageCount() > 8, "geometry");
                return "node " + f.nodeId() + ", " + f.pageCount() + " pages, "
                        + (System.nanoTime() - t0) / 1_000_000 + " ms";
            });
            check("region: stores through the outgoing mapping read back through the incoming one", () -> {
                try (Region r = f.allocate(key, 3L * f.pageSize(), 0660)) {
                    OutgoingMapping tx = r.attachTransmit(Route.node(f.nodeId()), true);
                    IncomingMapping rx = r.attachReceive(false);
                    long words = r.sizeBytes() / 8;
                    for (long i = 0; i < words; i++) {
                        tx.putLong(i * 8, i * 0x9E3779B97F4A7C15L);
                    }
                    tx.fence();
                    for (long i = 0; i < words; i++) {
                        require(rx.getLong(i * 8) == i * 0x9E3779B97F4A7C15L, "word " + i);
                    }
                    int page = r.firstPage();
                    require(f.admin().adapter().txPct(page) != 0, "TX PCT entry programmed");
                    require(f.admin().adapter().rxPct(page) != 0, "RX PCT entry programmed");
                    boolean refused = false;
                    try {
                        rx.segment().set(ValueLayout.JAVA_LONG, 0, 1L);
                    } catch (UnsupportedOperationException | IllegalArgumentException e) {
                        refused = true;
                    }
                    require(refused, "the incoming mapping is read-only");
                    tx.close();
                    rx.close();
                    require(f.admin().adapter().txPct(page) == 0 && f.admin().adapter().rxPct(page) == 0, "PCT cleared on detach");
                    return words + " words, pages " + page + "+" + r.pageCount();
                }
            });
            check("notifier: a signal wakes the waiter through the driver", () -> {
                try (Notifier w = Notifier.waiter(f, key + 1);
                     Notifier s = Notifier.signaller(f, key + 1, Route.node(f.nodeId()))) {
                    long seen = w.current();
                    long start = System.nanoTime();
                    s.signal();
                    long now = w.await(seen, Duration.ofSeconds(5));
                    require(now != seen, "woken");
                    return (System.nanoTime() - start) / 1000 + " us";
                }
            });
            check("acknowledge barrier and error count", () -> {
                f.admin().adapter().ackBarrier(Duration.ofMillis(100));
                require(f.admin().adapter().errorCount() == 0, "error count");
                return null;
            });
            check("bad input is refused", () -> {
                boolean refused = false;
                try {
                    f.admin().adapter().grantTransmit(f.pageCount(), 1, Route.node(1).pctEntry(false, false));
                } catch (MemchanException e) {
                    refused = e.kind() == MemchanException.Kind.INVALID_ARGUMENT;
                }
                require(refused, "grant past the window");
                return null;
            });
        }
        System.out.println("1.." + n);
        System.exit(failed == 0 ? 0 : 1);
    }
}
