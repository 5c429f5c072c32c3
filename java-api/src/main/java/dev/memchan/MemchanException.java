package dev.memchan;

/**
 * Every failure memchan reports. The message says what is wrong and what to do; {@link #kind()}
 * lets tools map failures to exit codes without parsing messages. A call that throws has changed
 * nothing: the PCT, the directory and the fabric file are as they were before the call.
 */
public class MemchanException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Classes of failure. */
    public enum Kind {
        /** An argument or a configuration breaks the programming model (range, route, size). */
        INVALID_ARGUMENT,
        /** A fabric file or device has the wrong magic, version, size or layout. */
        BAD_FORMAT,
        /** A node ID, key or page is held by someone else. */
        IN_USE,
        /** UNIX permissions or the PCT forbid the access. */
        PERMISSION,
        /** The fabric, device, region or lock set does not exist. */
        NOT_FOUND,
        /** The JVM runs without --enable-native-access for memchan. */
        NATIVE_ACCESS,
        /** A wait ran out of time. */
        TIMEOUT,
        /** The device or the operating system failed. */
        DEVICE_ERROR,
        /** The object was closed. */
        CLOSED,
        /** This backend or driver does not have the feature (e.g. remote read on a driver without the grant uapi). */
        UNSUPPORTED
    }

    private final Kind kind;

    public MemchanException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public MemchanException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
