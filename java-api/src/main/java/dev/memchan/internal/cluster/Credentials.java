package dev.memchan.internal.cluster;

import dev.memchan.admin.DirectoryEntry;
import dev.memchan.internal.nativeio.Posix;

/** The calling process's uid, gid and groups, for UNIX-style checks of region modes. */
public record Credentials(int uid, int gid, int[] groups) {

    public static Credentials ofProcess() {
        return new Credentials(Posix.getuid(), Posix.getgid(), Posix.getgroups());
    }

    /** {@code bit}: 4 read (receive), 2 write (transmit). Root may do anything, as with files. */
    public boolean permits(DirectoryEntry e, int bit) {
        if (uid == 0) {
            return true;
        }
        if (uid == e.uid()) {
            return (e.mode() & (bit << 6)) != 0;
        }
        boolean inGroup = gid == e.gid();
        for (int g : groups) {
            inGroup |= g == e.gid();
        }
        return inGroup ? (e.mode() & (bit << 3)) != 0 : (e.mode() & bit) != 0;
    }
}
