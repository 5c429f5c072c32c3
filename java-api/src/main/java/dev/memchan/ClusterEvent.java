package dev.memchan;

/**
 * A membership change seen by this node (imc_wait_cluster_event).
 *
 * @param type        JOIN or LEAVE
 * @param node        the node that joined or left
 * @param incarnation the node's incarnation (a node that restarts has a new one)
 * @param failed      for LEAVE: the node was declared dead (heartbeat or process gone), not a clean leave
 */
public record ClusterEvent(Type type, int node, long incarnation, boolean failed) {
    public enum Type {
        JOIN, LEAVE
    }
}
