package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * What one side of a join tells the other beyond the handshake itself, opaque to it: the backend fills
 * it. A node's JOIN carries the node's (its requested node ID in {@code id}, its host identity in
 * {@code data}, say); the hub's WELCOME carries the hub's. Both are covered by the handshake's MACs.
 * {@code data} is at most {@value #MAX_DATA} bytes; the record keeps its own copy.
 */
public record JoinFields(long id, byte[] data) {
    /** The most bytes of {@code data}. */
    public static final int MAX_DATA = 1024;

    public JoinFields {
        if (data == null || data.length > MAX_DATA) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "join fields: data of "
                    + (data == null ? "null" : data.length + " bytes") + ", at most " + MAX_DATA + " bytes");
        }
        data = data.clone();
    }

    /** A copy of {@code data}. */
    @Override
    public byte[] data() {
        return data.clone();
    }

    int length() {
        return data.length;
    }

    byte[] dataView() {
        return data;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JoinFields f && f.id == id && Arrays.equals(f.data, data);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(id) * 31 + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "JoinFields[id=" + id + ", data=" + HexFormat.of().formatHex(data) + "]";
    }
}
