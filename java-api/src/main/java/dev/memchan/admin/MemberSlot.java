package dev.memchan.admin;

import dev.memchan.layout.Regs;

/**
 * One node's membership slot (system page 1, docs/soft-fabric.md), as read.
 *
 * @param state       {@code Regs.SYS_NODE_STATE_ABSENT}, {@code _ALIVE} or {@code _LEAVING}
 * @param incarnation the node's incarnation while it is a member
 * @param heartbeat   incremented by the node's agent every heartbeat period
 * @param pid         the pid of the process that joined the node
 * @param hostId      the boot ID and PID namespace of its host (docs/soft-fabric.md)
 * @param joinSeq     the directory generation when it joined
 */
public record MemberSlot(int state, long incarnation, long heartbeat, long pid, long hostId, long joinSeq) {
    public boolean alive() {
        return state == Regs.SYS_NODE_STATE_ALIVE;
    }
}
