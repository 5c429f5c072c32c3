package dev.memchan.layout;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The generated system-pages descriptor: its offsets reproduce the vectors regmap/gen.py evaluates
 * from regmap/memchan.toml (the C functions mc_sys_* reproduce the same file, in
 * SoftFabricCrossCheckTest), and its FLAGS / ROUTE words round-trip and sit on the transmit PCT's bits.
 */
class SystemPagesDescriptorTest {
    static final Path VECTORS = Path.of(System.getProperty("user.dir")).getParent().resolve("regmap/vectors/system-pages.csv");

    @Test
    void offsetsReproduceTheGeneratedVectors() throws IOException {
        int rows = 0;
        for (String line : Files.readAllLines(VECTORS)) {
            if (line.startsWith("#") || line.startsWith("function,")) {
                continue;
            }
            String[] f = line.split(",", -1);
            long ps = Long.parseLong(f[1]);
            long arg = f[2].isEmpty() ? 0 : Long.parseLong(f[2]);
            long got = switch (f[0]) {
                case "bid_in_row" -> SystemPagesDescriptor.bidInRow(arg);
                case "lock_row_size" -> SystemPagesDescriptor.lockRowSize(arg);
                case "cas_lock_word" -> SystemPagesDescriptor.casLockWord(arg);
                case "lock_bid" -> SystemPagesDescriptor.lockBid(ps, arg);
                case "member_slot" -> SystemPagesDescriptor.memberSlot(ps, arg);
                case "directory" -> SystemPagesDescriptor.directory(ps);
                case "mcast_group" -> SystemPagesDescriptor.mcastGroup(ps, arg);
                case "region_entry" -> SystemPagesDescriptor.regionEntry(ps, arg);
                case "region_capacity" -> SystemPagesDescriptor.regionCapacity(ps);
                default -> throw new AssertionError("no Java function for vector " + line);
            };
            assertEquals(Long.parseLong(f[3]), got, line);
            rows++;
        }
        assertTrue(rows >= 40, "only " + rows + " vectors in " + VECTORS);
    }

    @Test
    void flagsRoundTripAndKeepTheirFieldsApart() {
        int maxLocks = SystemPagesDescriptor.regionFlagsLockCount(-1);
        assertEquals(0xFFFF, maxLocks);
        for (int locks : new int[] {0, 1, 2, 255, 0x8000, maxLocks}) {
            for (boolean lockSet : new boolean[] {false, true}) {
                for (boolean carveOut : new boolean[] {false, true}) {
                    for (int home : new int[] {0, 1, 31}) {
                        boolean cas = home != 0;
                        int flags = SystemPagesDescriptor.regionFlags(lockSet, carveOut, cas, home, locks);
                        assertEquals(lockSet, SystemPagesDescriptor.regionFlagsLockset(flags));
                        assertEquals(carveOut, SystemPagesDescriptor.regionFlagsStatic(flags));
                        assertEquals(cas, SystemPagesDescriptor.regionFlagsCas(flags));
                        assertEquals(home, SystemPagesDescriptor.regionFlagsHome(flags));
                        assertEquals(locks, SystemPagesDescriptor.regionFlagsLockCount(flags));
                    }
                }
            }
        }
        // a lock count wider than its field does not spill into LOCKSET / STATIC
        int spilled = SystemPagesDescriptor.regionFlags(false, false, false, 0, maxLocks + 1);
        assertFalse(SystemPagesDescriptor.regionFlagsLockset(spilled));
        assertFalse(SystemPagesDescriptor.regionFlagsStatic(spilled));
        // nor does a home beyond 8 bits spill into LOCK_COUNT
        assertEquals(0, SystemPagesDescriptor.regionFlagsLockCount(SystemPagesDescriptor.regionFlags(false, false, true, 0x1FF, 0)));
    }

    @Test
    void theRouteWordIsTheTransmitPctRoute() {
        for (int kind : new int[] {Regs.DEST_KIND_NODE, Regs.DEST_KIND_BROADCAST, Regs.DEST_KIND_MULTICAST}) {
            for (int dest : new int[] {0, 1, 15, 31}) {
                int route = SystemPagesDescriptor.regionRoute(true, kind, dest);
                assertTrue(SystemPagesDescriptor.regionRouteRouted(route));
                assertEquals(kind, SystemPagesDescriptor.regionRouteDestKind(route));
                assertEquals(dest, SystemPagesDescriptor.regionRouteDest(route));
                assertEquals(TxPct.encode(true, false, false, kind, dest), route, "ROUTE = TX_EN | DEST_KIND | DEST of the PCT");
                assertEquals(kind, TxPct.destKind(route));
                assertEquals(dest, TxPct.dest(route));
                assertFalse(SystemPagesDescriptor.regionRouteRouted(SystemPagesDescriptor.regionRoute(false, kind, dest)));
            }
        }
    }
}
