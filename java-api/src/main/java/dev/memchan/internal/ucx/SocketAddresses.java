package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.internal.nativeio.UcpDefs;
import dev.memchan.internal.nativeio.UcpDefs.sockaddr_in;
import dev.memchan.internal.nativeio.UcpDefs.sockaddr_in6;
import dev.memchan.internal.nativeio.UcpDefs.sockaddr_storage;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/** Java socket addresses as the C {@code struct sockaddr_in}/{@code sockaddr_in6} UCX takes, and back. */
final class SocketAddresses {
    private static final ValueLayout.OfShort PORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private SocketAddresses() {
    }

    /** A resolved address with a port, or INVALID_ARGUMENT saying what is wrong with it. */
    static InetSocketAddress require(InetSocketAddress address, String what) {
        if (address == null || address.isUnresolved()) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, what + ": the address " + address
                    + " does not resolve to an IP address");
        }
        return address;
    }

    /** The sockaddr of {@code address}, allocated in {@code arena}. */
    static MemorySegment encode(InetSocketAddress address, Arena arena) {
        InetAddress ip = address.getAddress();
        if (ip instanceof Inet4Address) {
            MemorySegment s = arena.allocate(sockaddr_in.LAYOUT);
            sockaddr_in.sin_family(s, (short) UcpDefs.AF_INET);
            s.set(PORT, sockaddr_in.OFFSET_sin_port, (short) address.getPort());
            MemorySegment.copy(ip.getAddress(), 0, s, JAVA_BYTE, sockaddr_in.OFFSET_sin_addr, 4);
            return s;
        }
        MemorySegment s = arena.allocate(sockaddr_in6.LAYOUT);
        sockaddr_in6.sin6_family(s, (short) UcpDefs.AF_INET6);
        s.set(PORT, sockaddr_in6.OFFSET_sin6_port, (short) address.getPort());
        MemorySegment.copy(ip.getAddress(), 0, s, JAVA_BYTE, sockaddr_in6.OFFSET_sin6_addr, 16);
        sockaddr_in6.sin6_scope_id(s, ((Inet6Address) ip).getScopeId());
        return s;
    }

    /** The address in a {@code struct sockaddr_storage} UCX filled in. */
    static InetSocketAddress decode(MemorySegment storage) {
        int family = Short.toUnsignedInt(sockaddr_storage.ss_family(storage));
        try {
            if (family == UcpDefs.AF_INET) {
                byte[] ip = storage.asSlice(sockaddr_in.OFFSET_sin_addr, 4).toArray(JAVA_BYTE);
                return new InetSocketAddress(InetAddress.getByAddress(ip), Short.toUnsignedInt(storage.get(PORT, sockaddr_in.OFFSET_sin_port)));
            }
            if (family == UcpDefs.AF_INET6) {
                byte[] ip = storage.asSlice(sockaddr_in6.OFFSET_sin6_addr, 16).toArray(JAVA_BYTE);
                return new InetSocketAddress(Inet6Address.getByAddress(null, ip, sockaddr_in6.sin6_scope_id(storage)),
                        Short.toUnsignedInt(storage.get(PORT, sockaddr_in6.OFFSET_sin6_port)));
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException("a raw IP address of a valid length", e);
        }
        throw new MemchanException(MemchanException.Kind.DEVICE_ERROR, "UCX reported an address of family " + family);
    }
}
