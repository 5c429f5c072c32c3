package dev.memchan.admin;

import java.util.function.BiPredicate;

/**
 * The directory's static carve-outs, changed inside a {@link ClusterAdmin#transaction}: pages an
 * operator routed by hand (mcctl pct / apply), which the allocator must never hand to a region.
 */
public interface StaticCarveOuts {
    /**
     * Node {@code node} holds PCT entries on pages {@code first .. first + count - 1}: they join the
     * carve-outs covering them, and every run not yet covered becomes a new one. INVALID_ARGUMENT outside
     * the window or node range, IN_USE when a page belongs to a region or the directory is full; a refusal
     * changes nothing.
     */
    void reserve(int node, int first, int count);

    /**
     * For the nodes of {@code visibleNodes} (a mask: an adapter sees only its own PCT), drops a node from
     * every carve-out where {@code holds.test(node, page)} is false on all its pages; a carve-out no node
     * holds any more is freed.
     */
    void release(int visibleNodes, BiPredicate<Integer, Integer> holds);
}
