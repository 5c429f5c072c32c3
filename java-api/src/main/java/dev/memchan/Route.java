package dev.memchan;

import dev.memchan.layout.Regs;

/**
 * Where the stores to a transmit mapping go: one node, every other node (broadcast), or the
 * members of a multicast group. A network page has exactly one route, shared by all its senders.
 */
public final class Route {
    private static final Route BROADCAST = new Route(Regs.DEST_KIND_BROADCAST, 0);

    private final int kind;
    private final int dest;

    private Route(int kind, int dest) {
        this.kind = kind;
        this.dest = dest;
    }

    /** Point-to-point to {@code node} (imc_asattach_ptp). */
    public static Route node(int node) {
        if (node < 0 || node >= Regs.MAX_NODES) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT,
                    "node ID " + node + " out of range 0.." + (Regs.MAX_NODES - 1));
        }
        return new Route(Regs.DEST_KIND_NODE, node);
    }

    /** Every node but the sender (the sender too with local copy). */
    public static Route broadcast() {
        return BROADCAST;
    }

    /** The members of multicast group {@code group} (0..15), set with {@link Fabric#setMulticastGroup}. */
    public static Route multicast(int group) {
        if (group < 0 || group >= Regs.MULTICAST_GROUPS) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT,
                    "multicast group " + group + " out of range 0.." + (Regs.MULTICAST_GROUPS - 1));
        }
        return new Route(Regs.DEST_KIND_MULTICAST, group);
    }

    /** Decodes the route bits of a transmit PCT entry. */
    public static Route fromPct(int entry) {
        int kind = dev.memchan.layout.TxPct.destKind(entry);
        int dest = dev.memchan.layout.TxPct.dest(entry);
        return kind == Regs.DEST_KIND_BROADCAST ? BROADCAST : new Route(kind, dest);
    }

    public boolean isBroadcast() {
        return kind == Regs.DEST_KIND_BROADCAST;
    }

    public boolean isNode() {
        return kind == Regs.DEST_KIND_NODE;
    }

    public boolean isMulticast() {
        return kind == Regs.DEST_KIND_MULTICAST;
    }

    /** Destination node or group; 0 for broadcast. */
    public int dest() {
        return dest;
    }

    /** The transmit PCT entry for this route. */
    public int pctEntry(boolean localCopy, boolean ackRequest) {
        return dev.memchan.layout.TxPct.encode(true, localCopy, ackRequest, kind, dest);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Route r && r.kind == kind && r.dest == dest;
    }

    @Override
    public int hashCode() {
        return kind * 31 + dest;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case Regs.DEST_KIND_NODE -> "node " + dest;
            case Regs.DEST_KIND_BROADCAST -> "broadcast";
            default -> "group " + dest;
        };
    }
}
