package dev.memchan.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Identifies "this kernel and PID namespace": two processes with the same host ID can judge each
 * other's liveness with kill(pid, 0); anything else (a guest VM sharing the fabric) needs heartbeats.
 */
public final class HostIdentity {
    private static final long HOST_ID = compute();

    private HostIdentity() {
    }

    public static long hostId() {
        return HOST_ID;
    }

    private static long compute() {
        String boot = read(Path.of("/proc/sys/kernel/random/boot_id"));
        String pidns;
        try {
            pidns = Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString();
        } catch (IOException | UnsupportedOperationException e) {
            pidns = "pid:?";
        }
        long h = 0xcbf29ce484222325L; // FNV-1a 64
        for (char c : (boot.trim() + "|" + pidns).toCharArray()) {
            h ^= c;
            h *= 0x100000001b3L;
        }
        return h == 0 ? 1 : h;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return "no-boot-id";
        }
    }
}
