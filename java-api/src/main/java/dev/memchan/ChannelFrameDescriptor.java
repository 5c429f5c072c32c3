package dev.memchan;

/**
 * The frame of a {@link MessageChannel} ring, as Agrona's {@code RecordDescriptor} describes its ring buffer's
 * records. Frames are 8-byte aligned and never cross the ring's end:
 * <pre>
 *   0                   31 32                  63
 *  +----------------------+----------------------+
 *  |        length        |         seq          |  u64 header, stored last (release)
 *  +----------------------+----------------------+
 *  |  payload, length bytes, padded to 8 bytes   |
 *  +---------------------------------------------+
 * </pre>
 * {@code seq} counts frames 1, 2, 3, ... and skips 0, so a zeroed ring holds no frame; a frame whose
 * {@code length} is {@link #PAD_LENGTH} is padding to the ring's end (no payload), stored when a message
 * would otherwise cross it.
 */
final class ChannelFrameDescriptor {
    static final int HEADER_LENGTH = 8;
    static final int ALIGNMENT = 8;
    /** The length of a padding frame; it covers the rest of the ring. */
    static final int PAD_LENGTH = 0xFFFF_FFFF;
    static final int FIRST_SEQ = 1;

    private ChannelFrameDescriptor() {
    }

    static long header(int seq, int length) {
        return ((long) seq << 32) | Integer.toUnsignedLong(length);
    }

    static int seq(long header) {
        return (int) (header >>> 32);
    }

    static int length(long header) {
        return (int) header;
    }

    /** The sequence number after {@code seq}: 0 is skipped. */
    static int nextSeq(int seq) {
        int n = seq + 1;
        return n == 0 ? FIRST_SEQ : n;
    }

    /** Header plus payload, rounded up to the alignment. */
    static int frameLength(int payload) {
        return (HEADER_LENGTH + payload + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /** The offset of the payload of the frame at {@code frameIndex}. */
    static long payloadOffset(long frameIndex) {
        return frameIndex + HEADER_LENGTH;
    }
}
