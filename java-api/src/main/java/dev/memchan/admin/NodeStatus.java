package dev.memchan.admin;

import static dev.memchan.layout.Regs.SYS_NODE_STATE_ABSENT;
import static dev.memchan.layout.Regs.SYS_NODE_STATE_ALIVE;

/**
 * One node as an {@link AdapterView} sees it ({@link AdapterView#node}): who holds its ID and what its
 * membership slot says.
 *
 * @param node        the node ID
 * @param claimed     some process holds the node ID (a soft fabric block's OWNER word; on a device, the
 *                    membership slot says alive)
 * @param live        that process is not proven dead
 * @param pid         the holder's pid (0 when free)
 * @param incarnation the holder's incarnation
 * @param memberState the membership slot's state ({@code Regs.SYS_NODE_STATE_ABSENT}, {@code _ALIVE} or
 *                    {@code _LEAVING})
 * @param heartbeat   the membership slot's heartbeat
 */
public record NodeStatus(int node, boolean claimed, boolean live, long pid, long incarnation, int memberState, long heartbeat) {

    /** "free", "leaving", "joined", "joining" (claimed, not yet a member) or "stale" (its holder is dead). */
    public String state() {
        if (!claimed) {
            return memberState == SYS_NODE_STATE_ABSENT ? "free" : "leaving";
        }
        return live ? (memberState == SYS_NODE_STATE_ALIVE ? "joined" : "joining") : "stale";
    }
}
