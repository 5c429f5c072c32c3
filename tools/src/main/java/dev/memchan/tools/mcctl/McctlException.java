package dev.memchan.tools.mcctl;

/** A failure mcctl itself detects, with its exit code; the message is the one line printed on stderr. */
public final class McctlException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int exitCode;

    public McctlException(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }

    public static McctlException usage(String message) {
        return new McctlException(Exit.USAGE, message);
    }
}
