package dev.memchan;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The sender's payload copy, which stores whole 8-byte words only (a board's transmit window drops
 * byte and 16-bit stores): every length, from unaligned sources, lands byte for byte, the frame's
 * padding is zero, and a bad source range stores nothing.
 */
class MessageChannelCopyTest {
    @Test
    void everyLengthFromAnUnalignedSourceLandsExactlyWithZeroPadding() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ring = arena.allocate(256, 8);
            for (int length = 0; length <= 41; length++) {
                for (int srcOffset = 0; srcOffset < 8; srcOffset++) {
                    byte[] bytes = new byte[srcOffset + length];
                    for (int i = 0; i < bytes.length; i++) {
                        bytes[i] = (byte) (31 * i + length + 1);
                    }
                    ring.fill((byte) 0x5A);
                    MessageChannel.Sender.copyWords(MemorySegment.ofArray(bytes), srcOffset, ring, 16, length);
                    byte[] expected = java.util.Arrays.copyOfRange(bytes, srcOffset, srcOffset + length);
                    assertArrayEquals(expected, ring.asSlice(16, length).toArray(JAVA_BYTE), "length " + length);
                    int padded = (length + 7) & ~7;
                    for (int i = length; i < padded; i++) {
                        assertEquals(0, ring.get(JAVA_BYTE, 16 + i), "padding byte " + i + " of length " + length);
                    }
                    assertEquals((byte) 0x5A, ring.get(JAVA_BYTE, 16 + padded), "nothing past the frame");
                    assertEquals((byte) 0x5A, ring.get(JAVA_BYTE, 15), "nothing before the frame");
                }
            }
        }
    }

    @Test
    void aBadSourceRangeStoresNothing() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ring = arena.allocate(64, 8);
            ring.fill((byte) 0x5A);
            MemorySegment src = MemorySegment.ofArray(new byte[20]);
            assertThrows(IndexOutOfBoundsException.class, () -> MessageChannel.Sender.copyWords(src, 8, ring, 0, 16));
            for (int i = 0; i < 64; i++) {
                assertEquals((byte) 0x5A, ring.get(JAVA_BYTE, i));
            }
        }
    }
}
