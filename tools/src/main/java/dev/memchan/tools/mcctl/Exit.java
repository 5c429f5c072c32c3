package dev.memchan.tools.mcctl;

import dev.memchan.MemchanException;

/**
 * mcctl's exit codes (docs/mcctl.md). Every failure maps to one of them; the mapping from the library's
 * {@link MemchanException.Kind} is here and nowhere else.
 */
public final class Exit {
    /** Success. */
    public static final int OK = 0;
    /** A self-test stage or a configuration check failed. */
    public static final int CHECK_FAILED = 1;
    /** Bad usage or invalid input (node ID, page range, destination, entry, config file). */
    public static final int USAGE = 2;
    /** No device or fabric, or no permission to use it. */
    public static final int NO_DEVICE = 3;
    /** The device, the fabric file or the operating system failed. */
    public static final int DEVICE_ERROR = 4;

    private Exit() {
    }

    /** The exit code for a library failure. */
    public static int of(MemchanException.Kind kind) {
        return switch (kind) {
            case INVALID_ARGUMENT, IN_USE -> USAGE;
            case NOT_FOUND, PERMISSION, NATIVE_ACCESS, UNSUPPORTED -> NO_DEVICE;
            case BAD_FORMAT, TIMEOUT, DEVICE_ERROR, CLOSED -> DEVICE_ERROR;
        };
    }
}
