package dev.memchan.tools.bench;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The benchmark receivers' check fails for a changed byte, another message's content or a shifted message. */
class MessagePatternTest {
    private static final int[] LENGTHS = {0, 1, 7, 8, 13, 32, 64, 100, 4096};

    @Test
    void segmentPatternMatchesOnlyItsOwnMessage() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(4200, 8);
            for (int length : LENGTHS) {
                MessagePattern.fill(seg, 8, length, 41);
                assertTrue(MessagePattern.matches(seg, 8, length, 41), length + " bytes");
                if (length == 0) {
                    continue;
                }
                assertFalse(MessagePattern.matches(seg, 8, length, 42), "another message, " + length + " bytes");
                assertFalse(MessagePattern.matches(seg, 16, length, 41), "shifted, " + length + " bytes");
                for (int at : new int[]{0, length / 2, length - 1}) {
                    byte b = seg.get(JAVA_BYTE, 8 + at);
                    seg.set(JAVA_BYTE, 8 + at, (byte) (b ^ 0x10));
                    assertFalse(MessagePattern.matches(seg, 8, length, 41), "byte " + at + " of " + length + " changed");
                    seg.set(JAVA_BYTE, 8 + at, b);
                }
            }
        }
    }

    @Test
    void agronaBufferHoldsTheSameBytesAsTheSegment() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(4200, 8);
            UnsafeBuffer buffer = new UnsafeBuffer(seg.address(), (int) seg.byteSize());
            for (int length : LENGTHS) {
                AgronaThroughput.fill(buffer, 8, length, 7);
                assertTrue(MessagePattern.matches(seg, 8, length, 7), length + " bytes written through Agrona");
                assertTrue(AgronaThroughput.matches(buffer, 8, length, 7));
                if (length > 0) {
                    buffer.putByte(8 + length - 1, (byte) (buffer.getByte(8 + length - 1) ^ 1));
                    assertFalse(AgronaThroughput.matches(buffer, 8, length, 7), "last byte of " + length + " changed");
                }
            }
        }
    }
}
