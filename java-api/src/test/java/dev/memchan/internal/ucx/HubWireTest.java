package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.internal.ucx.HubWire.Message;
import dev.memchan.internal.ucx.HubWire.Run;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The hub protocol's byte form, a shadow grant's diff, and a location's parsing: no UCX needed. */
class HubWireTest {

    @Test
    void everyMessageRoundTrips() {
        List<Message> all = List.of(
                new Message.HostReady(true),
                new Message.Write(0x0301, List.of(new Run(8, new byte[]{1, 2, 3}), new Run(4096, new byte[0]))),
                new Message.Notify(17),
                new Message.Notify(17, 3, 5, 0xABCD_EF01_2345L),
                new Message.Barrier(99),
                new Message.Remote(5, 3, 10, 2, HubWire.RemoteOp.CAS, 24, -1, 7, 0),
                new Message.Answer(6, 4, -5, new byte[]{9}, "refused: é"),
                new Message.Applied(123),
                new Message.Time(7),
                new Message.Bye(),
                new Message.Refused(MemchanException.Kind.IN_USE, "node ID 3 is in use"),
                new Message.Sequenced(44),
                new Message.BarrierDone(8, 1000, ""),
                new Message.Result(9, 12, 0, 42, new byte[]{1, 2}, ""),
                new Message.TimeReply(10, 123_456_789L),
                new Message.Incarnation(0x1_0000_0003L),
                new Message.DeclareDead(11, 5, 3));
        long seq = 1;
        for (Message m : all) {
            HubWire.Envelope e = HubWire.decode(HubWire.encode(seq, m));
            assertEquals(seq, e.seq());
            assertEquals(describe(m), describe(e.message()), m.getClass().getSimpleName());
            seq++;
        }
    }

    /** Records with arrays compare by identity: their arrays' contents are spelled out. */
    private static String describe(Message m) {
        return switch (m) {
            case Message.Write w -> "Write " + w.entry() + w.runs().stream().map(r -> r.offset() + Arrays.toString(r.bytes())).toList();
            case Message.Answer a -> "Answer " + a.request() + " " + a.status() + " " + a.value() + Arrays.toString(a.bytes()) + a.message();
            case Message.Result r -> "Result " + r.request() + " " + r.watermark() + " " + r.status() + " " + r.value()
                    + Arrays.toString(r.bytes()) + r.message();
            default -> m.toString();
        };
    }

    @Test
    void theJoinsFieldsRoundTripAndOthersAreRefused() {
        HubWire.NodeJoin join = new HubWire.NodeJoin(-1, HubWire.VERSION, 0x1234_5678_9abcL, 4242, -99, true, new byte[]{1, 2, 3});
        assertEquals(join, HubWire.NodeJoin.of(join.toFields()));
        HubWire.HubWelcome welcome = new HubWire.HubWelcome(2, 1 << 24, 4096, 16, -77, true, false, 1234, 9, new byte[]{4, 5});
        assertEquals(welcome, HubWire.HubWelcome.of(welcome.toFields()));
        HubWire.StandbyJoin standby = new HubWire.StandbyJoin(HubWire.VERSION, 77);
        assertEquals(standby, HubWire.StandbyJoin.of(standby.toFields()));
        HubWire.StandbyWelcome toStandby = new HubWire.StandbyWelcome(1 << 24, 4096, 16, -77);
        assertEquals(toStandby, HubWire.StandbyWelcome.of(toStandby.toFields()));
        assertEquals(MemchanException.Kind.BAD_FORMAT, assertThrows(MemchanException.class,
                () -> HubWire.NodeJoin.of(standby.toFields())).kind(), "a standby is no node");
        assertEquals(MemchanException.Kind.BAD_FORMAT, assertThrows(MemchanException.class,
                () -> HubWire.StandbyJoin.of(join.toFields())).kind(), "a node is no standby");
        assertEquals(MemchanException.Kind.BAD_FORMAT, assertThrows(MemchanException.class,
                () -> HubWire.StandbyWelcome.of(welcome.toFields())).kind(), "a node's welcome is no standby's");
        assertEquals(MemchanException.Kind.BAD_FORMAT, assertThrows(MemchanException.class,
                () -> HubWire.HubWelcome.of(join.toFields())).kind(), "a node's fields are no welcome");
        assertEquals(MemchanException.Kind.BAD_FORMAT, assertThrows(MemchanException.class,
                () -> HubWire.NodeJoin.of(welcome.toFields())).kind(), "a welcome is no node's fields");
    }

    @Test
    void replicationRecordsRoundTripAndGarbageIsRefused() {
        List<HubReplication.Record> records = List.of(new HubReplication.Image(4096, new byte[]{1, 2}), new HubReplication.Host(7, 9, 3, true),
                new HubReplication.HostReady(7), new HubReplication.HostGone(7), new HubReplication.Port(-5, 3, 7, 40),
                new HubReplication.PortGone(-5), new HubReplication.Sequenced(-5, 41, HubWire.Type.STREAM_WRITE, new long[]{7, 8},
                        new long[]{10, 2}, new byte[]{9}), new HubReplication.Acked(7, 9), new HubReplication.NextRemote(12),
                new HubReplication.Incarnation(-5, 3, 2), new HubReplication.Ack(100));
        for (HubReplication.Record r : records) {
            byte[] bytes = HubReplication.encode(r);
            assertArrayEquals(bytes, HubReplication.encode(HubReplication.decode(bytes)), r.toString());
            assertEquals(r.getClass(), HubReplication.decode(bytes).getClass());
            for (int cut = 0; cut < bytes.length; cut++) {
                byte[] truncated = Arrays.copyOf(bytes, cut);
                assertEquals(MemchanException.Kind.BAD_FORMAT, assertThrows(MemchanException.class, () -> HubReplication.decode(truncated)).kind());
            }
        }
        HubReplication.Logged logged = (HubReplication.Logged) HubReplication.decode(HubReplication.encode(new HubReplication.Logged(7,
                new byte[]{3, 4})));
        assertArrayEquals(new byte[]{3, 4}, logged.message());
        for (byte[] bad : List.of(new byte[]{(byte) 200}, new byte[]{(byte) 10, 1, 0, 0, 0, 0, 0, 0, 0, 5},
                HubReplication.encode(new HubReplication.Sequenced(1, 1, HubWire.Type.WRITE, new long[0], new long[0], new byte[0])))) {
            assertEquals(MemchanException.Kind.BAD_FORMAT, assertThrows(MemchanException.class, () -> HubReplication.decode(bad)).kind());
        }
    }

    @Test
    void aStreamCopyKeepsTheBodyWithItsOwnTypeAndSequence() {
        byte[] write = HubWire.encode(5, new Message.Write(1, List.of(new Run(16, new byte[]{7, 7}))));
        HubWire.Envelope e = HubWire.decode(HubWire.restamp(write, HubWire.Type.STREAM_WRITE, 900));
        assertEquals(HubWire.Type.STREAM_WRITE, e.type());
        assertEquals(900, e.seq());
        assertArrayEquals(new byte[]{7, 7}, ((Message.Write) e.message()).runs().getFirst().bytes());
        assertEquals(5, HubWire.decode(write).seq(), "the original is unchanged");
    }

    @Test
    void aBatchIsTheWriteMessageOfItsRunsAndIsCheckedInPlaceAsDecodeChecksIt() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment source = arena.allocate(64);
            for (int i = 0; i < 64; i++) {
                source.set(JAVA_BYTE, i, (byte) i);
            }
            WriteBatch batch = new WriteBatch(arena);
            batch.start(0x0301);
            batch.append(4096, source, 0, 8);
            batch.append(4104, source, 8, 4);     // continues the run: the same run, longer
            batch.append(16, source, 32, 3);
            batch.seal(77);
            byte[] bytes = batch.segment().asSlice(0, batch.size()).toArray(JAVA_BYTE);
            Message.Write expected = new Message.Write(0x0301, List.of(new Run(4096, Arrays.copyOf(toArray(source), 12)),
                    new Run(16, new byte[]{32, 33, 34})));
            assertArrayEquals(HubWire.encode(77, expected), bytes, "the byte form encode gives");
            assertEquals(77, HubWire.checked(bytes));
            assertEquals(0x0301, HubWire.writeEntry(bytes));
            List<String> seen = new ArrayList<>();
            HubWire.forEachRun(bytes, (offset, message, at, length) -> seen.add(offset + Arrays.toString(Arrays.copyOfRange(message, at, at + length))));
            assertEquals(List.of("4096" + Arrays.toString(Arrays.copyOf(toArray(source), 12)), "16[32, 33, 34]"), seen);
            batch.start(5);
            assertTrue(batch.isEmpty(), "reused: a new message");
            for (int length = 0; length < bytes.length; length++) {
                byte[] cut = Arrays.copyOf(bytes, length);
                assertEquals(MemchanException.Kind.BAD_FORMAT, assertThrows(MemchanException.class, () -> HubWire.checked(cut)).kind());
            }
            byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
            assertTrue(assertThrows(MemchanException.class, () -> HubWire.checked(longer)).getMessage().contains("too many"));
        }
    }

    @Test
    void aBatchCombinesRunsUpToItsBoundAndTakesALargeRunWholeOnlyWhenEmpty() {
        try (Arena arena = Arena.ofConfined()) {
            WriteBatch batch = new WriteBatch(arena);
            batch.start(1);
            assertEquals(HubWire.MAX_WRITE_BYTES, batch.room(0, 1 << 20), "an empty message takes as much as fits");
            batch.append(0, arena.allocate(8), 0, 8);
            assertEquals(100, batch.room(8, 100));
            assertEquals(0, batch.room(64, WriteBatch.COMBINED), "beyond the combined bound: a message of its own");
        }
    }

    private static byte[] toArray(MemorySegment s) {
        return s.toArray(JAVA_BYTE);
    }

    @Test
    void garbageTruncationAndUnknownTypesAreRefused() {
        byte[] hello = HubWire.encode(1, new Message.Remote(1, 2, 3, 4, HubWire.RemoteOp.SWAP, 8, 9, 10, 0));
        for (int length = 0; length < hello.length; length++) {
            byte[] cut = Arrays.copyOf(hello, length);
            MemchanException e = assertThrows(MemchanException.class, () -> HubWire.decode(cut));
            assertEquals(MemchanException.Kind.BAD_FORMAT, e.kind());
        }
        byte[] longer = Arrays.copyOf(hello, hello.length + 1);
        assertTrue(assertThrows(MemchanException.class, () -> HubWire.decode(longer)).getMessage().contains("too many"));
        byte[] unknown = hello.clone();
        unknown[0] = (byte) 200;
        assertTrue(assertThrows(MemchanException.class, () -> HubWire.decode(unknown)).getMessage().contains("unknown message type 200"));
        byte[] hugeRuns = HubWire.encode(1, new Message.Write(1, List.of()));
        hugeRuns[hugeRuns.length - 1] = 0x7f; // a run count far beyond the bytes there are
        assertEquals(MemchanException.Kind.BAD_FORMAT, assertThrows(MemchanException.class, () -> HubWire.decode(hugeRuns)).kind());
        Random random = new Random(26);
        for (int i = 0; i < 2000; i++) {
            byte[] noise = new byte[random.nextInt(64)];
            random.nextBytes(noise);
            try {
                HubWire.decode(noise);
            } catch (MemchanException e) {
                assertEquals(MemchanException.Kind.BAD_FORMAT, e.kind());
            }
        }
    }

    @Test
    void changedRunsAreTheDifferingWordsJoinedAcrossSmallGapsAndFillTheTwin() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment shadow = arena.allocate(4096, 8);
            MemorySegment twin = arena.allocate(4096, 8);
            assertTrue(changedRuns(shadow, twin).isEmpty(), "nothing stored: nothing sent");
            shadow.set(JAVA_BYTE, 3, (byte) 1);              // word 0
            shadow.set(JAVA_LONG, 40, 5L);                    // 32 bytes later: joined
            shadow.set(JAVA_LONG, 1000, 6L);                  // far away: a run of its own
            shadow.set(JAVA_BYTE, 4095, (byte) 9);            // the last word
            List<Run> runs = changedRuns(shadow, twin);
            assertEquals(List.of(0L, 1000L, 4088L), runs.stream().map(Run::offset).toList());
            assertEquals(List.of(48, 8, 8), runs.stream().map(r -> r.bytes().length).toList());
            assertEquals(1, runs.get(0).bytes()[3], "a run's bytes are the snapshot in the twin");
            assertEquals(9, runs.get(2).bytes()[7]);
            assertEquals(-1, shadow.mismatch(twin), "the twin holds what was sent");
            assertTrue(changedRuns(shadow, twin).isEmpty(), "sent once");
            shadow.set(JAVA_LONG, 1000, 6L);                  // the same value again: not a change
            assertTrue(changedRuns(shadow, twin).isEmpty());
        }
    }

    /** {@link ShadowGrant#changedRuns}' runs, each with the twin's bytes when it was given. */
    private static List<Run> changedRuns(MemorySegment shadow, MemorySegment twin) {
        List<Run> runs = new ArrayList<>();
        boolean any = ShadowGrant.changedRuns(shadow, twin, (start, end) -> runs.add(new Run(start, twin.asSlice(start, end - start)
                .toArray(JAVA_BYTE))));
        assertEquals(!runs.isEmpty(), any);
        return runs;
    }

    @Test
    void locationsParseOnceAndBadOnesAreRefused() {
        UcxLocation l = UcxLocation.parse("ucx://127.0.0.1:7000/demo");
        assertEquals(new UcxLocation("127.0.0.1", 7000, "demo"), l);
        assertEquals("ucx://127.0.0.1:7000/demo", l.toString());
        assertEquals("::1", UcxLocation.parse("ucx://[::1]:7000/x").host());
        assertTrue(l.hostFabricName(1).matches("ucx-demo-[0-9a-f]{8}-[0-9a-f]{8}"), l.hostFabricName(1));
        assertNotEquals(l.hostFabricName(1), l.hostFabricName(2), "one file per host");
        assertNotEquals(l.hostFabricName(1), UcxLocation.parse("ucx://127.0.0.1:7001/demo").hostFabricName(1), "one file per hub");
        UcxLocation two = UcxLocation.parse("ucx://127.0.0.1:7000,[::1]:7001/demo");
        assertEquals(new UcxLocation("127.0.0.1", 7000, "demo", "::1", 7001), two);
        assertEquals("ucx://127.0.0.1:7000,[::1]:7001/demo", two.toString());
        assertEquals(l.hostFabricName(1), two.hostFabricName(1), "the first hub names the host files: the standby's nodes keep them");
        assertEquals(2, two.hubAddresses().size());
        for (String bad : List.of("ucx:demo", "ucx://host/demo", "ucx://host:0/demo", "ucx://host:70000/demo", "ucx://host:1/",
                "ucx://host:1/a/b", "ucx://:1/x", "shm:x", "ucx://a:1,/x", "ucx://a:1,b/x", "ucx://a:1,b:0/x", "ucx://a:1,b:2,c:3/x",
                "ucx://a:1;b:2/x", "ucx://h:7000,h:7000/x", "ucx://H:7000,h:7000/x")) {
            MemchanException e = assertThrows(MemchanException.class, () -> UcxLocation.parse(bad), bad);
            assertEquals(MemchanException.Kind.INVALID_ARGUMENT, e.kind());
            assertTrue(e.getMessage().contains(bad), e.getMessage());
        }
        assertTrue(assertThrows(MemchanException.class, () -> UcxLocation.parse("ucx://a:1,b:2,c:3/x")).getMessage().contains("at most two hubs"));
        assertTrue(assertThrows(MemchanException.class, () -> UcxLocation.parse("ucx://h:7000,h:7000/x")).getMessage().contains("named twice"));
        MemchanException sameAddress = assertThrows(MemchanException.class,
                () -> UcxLocation.parse("ucx://localhost:7000,127.0.0.1:7000/x").hubAddresses());
        assertTrue(sameAddress.getMessage().contains("twice"), sameAddress.getMessage());
    }
}
