package dev.memchan.tools.bench;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * The content of benchmark message {@code seq} (0, 1, 2, ...): 8-byte word at byte {@code i} is
 * {@link #word word(seq, i)}, a tail shorter than 8 bytes holds the low bytes of the next word. A
 * receiver that checks every message this way notices a lost, repeated, reordered or torn message.
 * The C reference (memchan_reference.c, {@code pattern_word}) computes the same words.
 */
public final class MessagePattern {
    private static final long MIX = 0x9E37_79B9_7F4A_7C15L;

    private MessagePattern() {
    }

    /** The word at byte {@code i} of message {@code seq}. */
    public static long word(long seq, long i) {
        return (seq + 1) * MIX + i;
    }

    /** Writes message {@code seq} into {@code length} bytes of {@code seg} at {@code offset}. */
    public static void fill(MemorySegment seg, long offset, int length, long seq) {
        int words = length & ~7;
        for (int i = 0; i < words; i += 8) {
            seg.set(JAVA_LONG_UNALIGNED, offset + i, word(seq, i));
        }
        long tail = word(seq, words);
        for (int i = words; i < length; i++, tail >>>= 8) {
            seg.set(JAVA_BYTE, offset + i, (byte) tail);
        }
    }

    /** Whether {@code length} bytes of {@code seg} at {@code offset} hold message {@code seq}. */
    public static boolean matches(MemorySegment seg, long offset, int length, long seq) {
        int words = length & ~7;
        long diff = 0;
        for (int i = 0; i < words; i += 8) {
            diff |= seg.get(JAVA_LONG_UNALIGNED, offset + i) ^ word(seq, i);
        }
        long tail = word(seq, words);
        for (int i = words; i < length; i++, tail >>>= 8) {
            diff |= seg.get(JAVA_BYTE, offset + i) ^ (byte) tail;
        }
        return diff == 0;
    }

    /** The failure a receiver reports for message {@code seq} of {@code length} bytes that does not match. */
    public static IllegalStateException mismatch(String channel, long seq, int length) {
        return new IllegalStateException(channel + ": message " + seq + " (" + length + " bytes) does not hold its pattern: "
                + "lost, repeated, reordered or torn");
    }
}
