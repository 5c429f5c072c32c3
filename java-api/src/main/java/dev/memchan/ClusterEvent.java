package dev.memchan;

/**
 * A membership change seen by this node (imc_wait_cluster_event).
 *
 * @param type        JOIN, LEAVE or EVICTED
 * @param node        the node that joined or left (for EVICTED: this process's own node)
 * @param incarnation the node's incarnation (a node that restarts has a new one)
 * @param failed      for LEAVE: the node was declared dead (heartbeat or process gone), not a clean leave, at
 *                    every observer, whichever node judged it (its member slot's DEPARTED says so); always
 *                    true for EVICTED
 */
public record ClusterEvent(Type type, int node, long incarnation, boolean failed) {
    public enum Type {
        /** A node joined (or rejoined as a new incarnation). */
        JOIN,
        /** A node left cleanly, or was declared dead ({@code failed}). */
        LEAVE,
        /**
         * This process's own node was declared dead by the cluster while this process lived (it was
         * stopped or starved for longer than the failure detector allows): the cluster has released
         * everything the node held, its regions, locks and mappings are void, and cluster operations
         * of this Fabric throw CLOSED. Every live process of the node gets it. Close the Fabric and open
         * the node again to rejoin as a new incarnation (the other nodes then see LEAVE, failed, of the
         * old incarnation and JOIN of the new one).
         */
        EVICTED
    }
}
