package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.spi.Location;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code ucx://HOST:PORT/NAME} location, parsed once: the hub's address and the fabric's name. HOST is a
 * name, an IPv4 address or a bracketed IPv6 address; PORT 1..65535; NAME as a soft fabric's name.
 *
 * @param host the hub's host as written
 * @param port the hub's port
 * @param name the fabric's name
 */
public record UcxLocation(String host, int port, String name) {
    private static final Pattern PATH = Pattern.compile("//(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9][A-Za-z0-9.-]*):([0-9]{1,5})/([A-Za-z0-9][A-Za-z0-9._-]{0,31})");

    /** {@code location} (scheme {@code ucx}) as a value; INVALID_ARGUMENT saying what is wrong with it. */
    public static UcxLocation parse(Location location) {
        if (!location.scheme().equals("ucx")) {
            throw bad(location.toString(), "the scheme is not ucx");
        }
        Matcher m = PATH.matcher(location.path());
        if (!m.matches()) {
            throw bad(location.toString(), "a UCX location is ucx://HOST:PORT/NAME (NAME 1-32 characters of [A-Za-z0-9._-])");
        }
        int port = Integer.parseInt(m.group(2));
        if (port < 1 || port > 65535) {
            throw bad(location.toString(), "port " + port + " outside 1..65535");
        }
        String host = m.group(1);
        return new UcxLocation(host.startsWith("[") ? host.substring(1, host.length() - 1) : host, port, m.group(3));
    }

    /** {@code text} parsed as a location first. */
    public static UcxLocation parse(String text) {
        return parse(Location.parse(text));
    }

    /** {@code name} as a fabric's NAME; INVALID_ARGUMENT when it is not one. */
    public static void checkName(String name) {
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9._-]{0,31}")) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "bad fabric name '" + name + "': 1-32 characters of [A-Za-z0-9._-]");
        }
    }

    private static MemchanException bad(String text, String why) {
        return new MemchanException(Kind.INVALID_ARGUMENT, "bad fabric location '" + text + "': " + why);
    }

    /** The hub's socket address, resolved; INVALID_ARGUMENT when the host does not resolve. */
    public InetSocketAddress hubAddress() {
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "the hub's host '" + host + "' of " + this + " does not resolve", e);
        }
    }

    /**
     * The name of the soft fabric of host {@code hostKey} for this fabric: NAME, a short hash of HOST:PORT (two hubs'
     * fabrics of one name do not share a file) and one of the host (two hosts sharing /dev/shm, such as processes
     * in their own PID namespaces, do not either).
     */
    public String hostFabricName(long hostKey) {
        try {
            java.security.MessageDigest sha = java.security.MessageDigest.getInstance("SHA-256");
            byte[] hub = sha.digest((host + ":" + port).getBytes(StandardCharsets.UTF_8));
            byte[] self = sha.digest(Long.toHexString(hostKey).getBytes(StandardCharsets.UTF_8));
            return "ucx-" + name + "-" + HexFormat.of().formatHex(hub, 0, 4) + "-" + HexFormat.of().formatHex(self, 0, 4);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return "ucx://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port + "/" + name;
    }
}
