package dev.memchan.internal.local;

/**
 * A backend whose node may be shared by several processes of this host through its node-local table
 * (the soft fabric: the PCT reference counts live in the table). The cluster service uses the same
 * table and slot instead of opening its own.
 */
public interface NodeShared {
    NodeLocal nodeLocal();

    /** This process's slot in {@link #nodeLocal()}. */
    int localSlot();

    /**
     * Under the table mutex: the process of slot {@code slot} (pid {@code pid}) is gone; releases the
     * pages it mapped (PCT entries no other process of the node needs are cleared) and, when the node's
     * claim names it, hands the claim to this process.
     */
    void releaseProcess(int slot, int pid);
}
