package dev.memchan.tools.mcctl;

import dev.memchan.layout.Regs;
import dev.memchan.layout.TxPct;

import java.util.OptionalInt;

/** Parsing of the small languages on mcctl's command line and in config files: page ranges and destinations. */
public final class Syntax {
    private Syntax() {
    }

    /** A page range {@code first..last} (inclusive). */
    public record Pages(int first, int last) {
        public int count() {
            return last - first + 1;
        }

        @Override
        public String toString() {
            return first == last ? Integer.toString(first) : first + "-" + last;
        }
    }

    /**
     * {@code N}, {@code A-B} (inclusive) or {@code A+COUNT}; checked against a window of {@code pageCount}
     * pages when it is at least 0.
     */
    public static Pages pages(String text, int pageCount) {
        String t = text.trim();
        Pages p;
        try {
            int dash = t.indexOf('-', 1);
            int plus = t.indexOf('+', 1);
            if (dash > 0) {
                p = new Pages(Integer.parseInt(t.substring(0, dash).trim()), Integer.parseInt(t.substring(dash + 1).trim()));
            } else if (plus > 0) {
                int first = Integer.parseInt(t.substring(0, plus).trim());
                int count = Integer.parseInt(t.substring(plus + 1).trim());
                if (count < 1) {
                    throw McctlException.usage("page range '" + text + "' has a count below 1");
                }
                p = new Pages(first, first + count - 1);
            } else {
                int page = Integer.parseInt(t);
                p = new Pages(page, page);
            }
        } catch (NumberFormatException e) {
            throw McctlException.usage("bad page range '" + text + "': use N, FIRST-LAST or FIRST+COUNT");
        }
        if (p.first() < 0 || p.last() < p.first()) {
            throw McctlException.usage("bad page range '" + text + "': pages must be ascending and not negative");
        }
        if (pageCount >= 0 && p.last() >= pageCount) {
            throw McctlException.usage("pages " + p + " are outside the window 0.." + (pageCount - 1));
        }
        return p;
    }

    /**
     * A transmit destination: {@code node:N}, {@code broadcast} or {@code group:G}, as the route bits of a TX
     * PCT entry (DEST_KIND and DEST), or -1 for {@code off}.
     */
    public static int route(String text, int maxNodes) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        if (t.equals("off") || t.equals("none")) {
            return -1;
        }
        if (t.equals("broadcast") || t.equals("all")) {
            return TxPct.encode(false, false, false, Regs.DEST_KIND_BROADCAST, 0);
        }
        int colon = t.indexOf(':');
        String kind = colon < 0 ? "" : t.substring(0, colon);
        int value;
        try {
            value = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw unknownDestination(text);
        }
        switch (kind) {
            case "node" -> {
                if (value < 0 || value >= maxNodes) {
                    throw McctlException.usage("destination node " + value + " out of range 0.." + (maxNodes - 1));
                }
                return TxPct.encode(false, false, false, Regs.DEST_KIND_NODE, value);
            }
            case "group" -> {
                if (value < 0 || value >= Regs.MULTICAST_GROUPS) {
                    throw McctlException.usage("multicast group " + value + " out of range 0.." + (Regs.MULTICAST_GROUPS - 1));
                }
                return TxPct.encode(false, false, false, Regs.DEST_KIND_MULTICAST, value);
            }
            default -> throw unknownDestination(text);
        }
    }

    private static McctlException unknownDestination(String text) {
        return McctlException.usage("unknown destination '" + text + "': use node:N, broadcast, group:G or off");
    }

    /**
     * A {@code --node} option: empty when not given (any node), else the ID checked against the
     * architectural limit. A typed -1 is out of range like any other negative: "any node" is the
     * library's value for an absent option, never user input.
     */
    public static OptionalInt optionalNode(Integer option) {
        return option == null ? OptionalInt.empty() : OptionalInt.of(node(option, Regs.MAX_NODES));
    }

    /** Parses a node ID and checks it against {@code maxNodes}. */
    public static int node(int id, int maxNodes) {
        if (id < 0 || id >= maxNodes) {
            throw McctlException.usage("node ID " + id + " out of range 0.." + (maxNodes - 1));
        }
        return id;
    }
}
