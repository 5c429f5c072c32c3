package dev.memchan.internal.dev;

import dev.memchan.FabricOptions;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.ClusterView;
import dev.memchan.admin.MemberSlot;
import dev.memchan.internal.Liveness;
import dev.memchan.internal.nativeio.ErrnoException;
import dev.memchan.internal.nativeio.Posix;
import dev.memchan.layout.Regs;
import dev.memchan.layout.RxPct;
import dev.memchan.spi.Backend;
import dev.memchan.spi.Location;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * {@code dev:/dev/memchan*}: the adapters /dev/memchanN (N a number, in numeric order) of one machine,
 * each with its own node ID on the same fabric. Joins the first whose node has no member process yet or,
 * with {@link FabricOptions#nodeId()} N, the one whose node ID is N, as one more process of that node if
 * it has some. A member process holds a shared flock on its adapter's device for as long as its backend
 * is open (a process of this machine that opened dev:/dev/memchanN directly does not). A refused attempt
 * is closed again (grants and all) before the next adapter is tried.
 */
final class AdapterGlob {
    private AdapterGlob() {
    }

    /** Whether {@code location} names adapters by a pattern rather than one device. */
    static boolean matches(Location location) {
        return location.path().endsWith("*");
    }

    static <T> T join(Location location, FabricOptions options, Function<Backend, T> member) {
        String pattern = location.path();
        Path glob = Path.of(pattern.substring(0, pattern.length() - 1));
        Path dir = glob.getParent() == null ? Path.of(".") : glob.getParent();
        String prefix = glob.getFileName() == null ? "" : glob.getFileName().toString();
        if (pattern.indexOf('*') != pattern.length() - 1 || prefix.isEmpty()) {
            throw new MemchanException(Kind.INVALID_ARGUMENT, "fabric location '" + location
                    + "': only a trailing * standing for the adapter number is supported (dev:/dev/memchan*)");
        }
        TreeMap<Long, Path> candidates = new TreeMap<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, prefix + "*")) {
            for (Path p : ds) {
                String number = p.getFileName().toString().substring(prefix.length());
                if (!number.isEmpty() && number.length() < 10 && number.chars().allMatch(Character::isDigit)) {
                    candidates.put(Long.parseLong(number), p);
                }
            }
        } catch (IOException e) {
            throw new MemchanException(Kind.NOT_FOUND, "fabric location '" + location + "': " + e, e);
        }
        if (candidates.isEmpty()) {
            throw new MemchanException(Kind.NOT_FOUND, "fabric location '" + location + "': no adapter matches");
        }
        int wanted = options.nodeId();
        MemchanException inUse = null;
        List<String> skipped = new ArrayList<>();
        for (Path p : candidates.values()) {
            String path = p.toString();
            DevBackend backend;
            try {
                backend = DevBackend.open(path, -1); // never changes an adapter's node ID
            } catch (MemchanException e) {
                skipped.add(path + " (" + e.getMessage() + ")");
                continue;
            }
            int lock = -1;
            try {
                if (wanted >= backend.maxNodes() || wanted < -1) {
                    throw new MemchanException(Kind.INVALID_ARGUMENT, "node ID " + wanted + " out of range 0.."
                            + (backend.maxNodes() - 1) + " for " + location);
                }
                if (wanted >= 0 && backend.nodeId() != wanted) {
                    continue;
                }
                // Member processes hold a shared flock on their adapter's device, let go by their death:
                // without a node ID the glob takes an adapter nobody holds (an exclusive lock, at once
                // made shared); with node ID N it joins N's processes (several processes per node).
                lock = Posix.open(path, Posix.O_RDWR, 0);
                boolean free = Posix.tryLockExclusive(lock);
                if (!free && wanted >= 0) {
                    free = lockShared(lock);
                }
                if (free && !Posix.tryLockShared(lock)) {
                    throw new MemchanException(Kind.DEVICE_ERROR, path + ": cannot turn its flock shared");
                }
                // the member's pid from the membership, through a receive grant of the system pages
                // (shared with the member, as mcctl reads them): nothing is transmitted in its name
                MemberSlot holder;
                try (Backend.Grant g = backend.grantReceive(0, Regs.SYS_PAGES, RxPct.encode(true, false))) {
                    holder = ClusterView.of(g.segment(), backend.pageSize(), backend.maxNodes()).member(backend.nodeId());
                }
                if (free && wanted < 0 && holder.alive() && Liveness.mayBeAlive(holder.hostId(), holder.pid())) {
                    free = false; // a process that opened dev:/dev/memchanN directly holds no flock
                }
                if (!free) {
                    inUse = Liveness.nodeInUse(backend.nodeId(), backend.location(), holder.pid());
                    skipped.add(path + " (node " + backend.nodeId() + ": a member process, pid " + holder.pid() + ")");
                    continue;
                }
                backend.holdUntilClosed(lock);
                lock = -1;
                DevBackend joining = backend;
                backend = null;
                try {
                    return member.apply(joining);
                } catch (RuntimeException | Error e) {
                    joining.close();
                    throw e;
                }
            } catch (ErrnoException e) {
                skipped.add(path + " (" + e.getMessage() + ")");
            } catch (MemchanException e) {
                if (e.kind() != Kind.IN_USE) {
                    throw e;
                }
                inUse = e;
                skipped.add(path + " (" + e.getMessage() + ")");
            } finally {
                if (lock >= 0) {
                    Posix.close(lock);
                }
                if (backend != null) {
                    backend.close();
                }
            }
        }
        if (wanted >= 0 && inUse != null) {
            throw inUse; // node N's adapter: its member process is named
        }
        throw new MemchanException(inUse != null ? Kind.IN_USE : Kind.NOT_FOUND, "fabric location '" + location + "': "
                + (wanted >= 0 ? "no free adapter with node ID " + wanted : "every adapter's node has a member process or no node ID")
                + (skipped.isEmpty() ? "" : ": " + String.join("; ", skipped)));
    }

    /** A shared flock, retried briefly: another process may hold it exclusively between taking it and sharing it. */
    private static boolean lockShared(int fd) throws ErrnoException {
        for (int attempt = 0; attempt < 100; attempt++) {
            if (Posix.tryLockShared(fd)) {
                return true;
            }
            LockSupport.parkNanos(1_000_000L);
        }
        return false;
    }
}
