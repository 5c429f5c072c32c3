package dev.memchan.admin;

import dev.memchan.layout.Regs;
import dev.memchan.layout.SystemPagesDescriptor;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * One node's membership slot (system page 1, docs/soft-fabric.md), as read.
 *
 * @param state       {@code Regs.SYS_NODE_STATE_ABSENT}, {@code _ALIVE} or {@code _LEAVING}
 * @param incarnation the node's incarnation while it is a member
 * @param heartbeat   incremented by the node's agent every heartbeat period
 * @param pid         the pid of the process that joined the node
 * @param hostId      the boot ID and PID namespace of its host (docs/soft-fabric.md)
 * @param joinSeq     the directory generation when it joined
 * @param departed    the last incarnation of the node the cluster declared dead (0: none); a departure of
 *                    that incarnation was a failure, whoever saw it
 */
public record MemberSlot(int state, long incarnation, long heartbeat, long pid, long hostId, long joinSeq, long departed) {
    private static final VarHandle INT = JAVA_INT.varHandle();
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    /** Node {@code node}'s slot as {@code systemPages} (network page 0 at offset 0) holds it now. */
    public static MemberSlot read(MemorySegment systemPages, int pageSize, int node) {
        long s = SystemPagesDescriptor.memberSlot(pageSize, node);
        return new MemberSlot((int) INT.getVolatile(systemPages, s + Regs.SYS_MEMBER_STATE),
                (long) LONG.getVolatile(systemPages, s + Regs.SYS_MEMBER_INCARNATION),
                (long) LONG.getVolatile(systemPages, s + Regs.SYS_MEMBER_HEARTBEAT),
                (long) LONG.getVolatile(systemPages, s + Regs.SYS_MEMBER_PID),
                (long) LONG.getVolatile(systemPages, s + Regs.SYS_MEMBER_HOST_ID),
                (long) LONG.getVolatile(systemPages, s + Regs.SYS_MEMBER_JOIN_SEQ),
                (long) LONG.getVolatile(systemPages, s + Regs.SYS_MEMBER_DEPARTED));
    }

    public boolean alive() {
        return state == Regs.SYS_NODE_STATE_ALIVE;
    }
}
