package dev.memchan.internal.nativeio;

/** A failed system call: what was attempted and the errno it returned. */
public final class ErrnoException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int errno;

    public ErrnoException(String operation, int errno) {
        super(operation + ": " + Posix.strerror(errno) + " (errno " + errno + ")");
        this.errno = errno;
    }

    public int errno() {
        return errno;
    }
}
