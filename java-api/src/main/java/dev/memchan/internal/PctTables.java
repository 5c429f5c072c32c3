package dev.memchan.internal;

import dev.memchan.admin.DirectoryEntry;

import java.util.List;

/**
 * The PCTs an {@link dev.memchan.admin.AdapterView} writes, as {@link PctRules} sees them: what differs
 * between backends (which nodes' adapters are writable here, what an adapter accepts, how an entry is
 * written), and nothing of the rules themselves.
 */
public interface PctTables {
    String location();

    int maxNodes();

    int pageCount();

    /** Why node {@code node}'s PCT (a node in range) cannot be written here, or null. */
    String nodeProblem(int node);

    /** Why node {@code node}'s adapter refuses transmit entry {@code entry} (its CAPS, its kind), or null. */
    String txProblem(int node, int entry);

    /** Whether node {@code node}'s adapter is read by this view ({@link #txPct} answers for it). */
    boolean visible(int node);

    int txPct(int node, int page);

    long rxPct(int node, int page);

    /** The directory's entries: pages of allocated regions are the directory's, not an operator's. */
    List<DirectoryEntry> regions();

    /** Writes one entry, validated by {@link PctRules} before; the adapter may still refuse it. */
    void writeTx(int node, int page, int entry);

    void writeRx(int node, int page, long entry);
}
