package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.spi.Location;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code ucx://HOST:PORT/NAME} or {@code ucx://HOST:PORT,HOST2:PORT2/NAME} location, parsed once: the hub's
 * address, its standby's if named, and the fabric's name. HOST is a name, an IPv4 address or a bracketed IPv6
 * address; PORT 1..65535; NAME as a soft fabric's name. The first hub names the fabric (its host files); the
 * second is the standby a node moves to when the first is gone.
 *
 * @param host the hub's host as written
 * @param port the hub's port
 * @param name the fabric's name
 * @param standbyHost the standby hub's host as written, or null
 * @param standbyPort the standby hub's port, or 0
 */
public record UcxLocation(String host, int port, String name, String standbyHost, int standbyPort) {
    private static final String HUB = "(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9][A-Za-z0-9.-]*):([0-9]{1,5})";
    private static final Pattern PATH = Pattern.compile("//" + HUB + "(?:," + HUB + ")?/([A-Za-z0-9][A-Za-z0-9._-]{0,31})");

    /** A location with one hub. */
    public UcxLocation(String host, int port, String name) {
        this(host, port, name, null, 0);
    }

    /** {@code location} (scheme {@code ucx}) as a value; INVALID_ARGUMENT saying what is wrong with it. */
    public static UcxLocation parse(Location location) {
        if (!location.scheme().equals("ucx")) {
            throw bad(location.toString(), "the scheme is not ucx");
        }
        Matcher m = PATH.matcher(location.path());
        if (!m.matches()) {
            String why = location.path().split("/", -1).length > 2 && location.path().split("/", -1)[2].split(",", -1).length > 2
                    ? "at most two hubs: ucx://HOST:PORT,STANDBY_HOST:STANDBY_PORT/NAME"
                    : "a UCX location is ucx://HOST:PORT/NAME or ucx://HOST:PORT,STANDBY_HOST:STANDBY_PORT/NAME (NAME 1-32 characters of [A-Za-z0-9._-])";
            throw bad(location.toString(), why);
        }
        int port = port(location, m.group(2));
        String host = unbracket(m.group(1));
        if (m.group(3) == null) {
            return new UcxLocation(host, port, m.group(5));
        }
        int standbyPort = port(location, m.group(4));
        String standbyHost = unbracket(m.group(3));
        if (standbyHost.equalsIgnoreCase(host) && standbyPort == port) {
            throw bad(location.toString(), "the hub " + m.group(1) + ":" + port + " is named twice: its standby is another hub");
        }
        return new UcxLocation(host, port, m.group(5), standbyHost, standbyPort);
    }

    private static int port(Location location, String digits) {
        int port = Integer.parseInt(digits);
        if (port < 1 || port > 65535) {
            throw bad(location.toString(), "port " + port + " outside 1..65535");
        }
        return port;
    }

    private static String unbracket(String host) {
        return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
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
        return resolve(host, port, "hub");
    }

    /** The hubs in the order a node tries them: the hub, then its standby when named. */
    public List<InetSocketAddress> hubAddresses() {
        if (standbyHost == null) {
            return List.of(hubAddress());
        }
        InetSocketAddress hub = hubAddress();
        InetSocketAddress standby = resolve(standbyHost, standbyPort, "standby hub");
        if (standby.equals(hub)) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, this + " names the hub at " + hub + " twice: its standby is another hub");
        }
        return List.of(hub, standby);
    }

    private InetSocketAddress resolve(String name, int at, String what) {
        try {
            return new InetSocketAddress(InetAddress.getByName(name), at);
        } catch (UnknownHostException e) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "the " + what + "'s host '" + name + "' of " + this + " does not resolve", e);
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
        return "ucx://" + hostPort(host, port) + (standbyHost == null ? "" : "," + hostPort(standbyHost, standbyPort)) + "/" + name;
    }

    /** HOST:PORT, an IPv6 host in brackets. */
    static String hostPort(String host, int port) {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
