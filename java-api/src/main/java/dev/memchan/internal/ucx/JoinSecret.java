package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.internal.nativeio.Posix;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Set;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A fabric's join secret: the HMAC-SHA256 key every member of a {@code ucx://} fabric holds
 * ({@link JoinHandshake}). It lives in a file; the key is the file's bytes exactly as they are (raw
 * bytes, no encoding: a trailing newline is part of the key), {@value #MIN_BYTES} to {@value #MAX_BYTES}
 * bytes. {@link #create} writes {@value #MIN_BYTES} random bytes.
 *
 * <p>{@link #load} refuses a file that anyone but its owner could read or change: it must be a regular
 * file (not a symbolic link), owned by the user of this process, of mode 0600 or 0400. The key never
 * appears in an exception message or in {@link #toString()}; it is used only to compute MACs.
 */
public final class JoinSecret {
    /** The shortest key: 256 bits, the size of HMAC-SHA256's output. */
    public static final int MIN_BYTES = 32;
    /** The longest file taken as a key. */
    public static final int MAX_BYTES = 4096;
    private static final String ALGORITHM = "HmacSHA256";
    private static final Set<PosixFilePermission> OWNER_READ_WRITE = PosixFilePermissions.fromString("rw-------");
    private static final Set<Set<PosixFilePermission>> MODES = Set.of(OWNER_READ_WRITE, PosixFilePermissions.fromString("r--------"));

    private final SecretKeySpec key;
    private final Path file;

    private JoinSecret(byte[] key, Path file) {
        this.key = new SecretKeySpec(key, ALGORITHM);
        this.file = file;
        Arrays.fill(key, (byte) 0);
    }

    /**
     * Reads the secret in {@code file}. Refuses with {@code PERMISSION} a file of another owner, of a mode
     * other than 0600 or 0400, or that is not a regular file; with {@code INVALID_ARGUMENT} one of fewer
     * than {@value #MIN_BYTES} or more than {@value #MAX_BYTES} bytes; with {@code NOT_FOUND} a missing one.
     * Each message names the file, never its content.
     */
    public static JoinSecret load(Path file) {
        PosixFileAttributes before = attributes(file);
        byte[] key;
        try (InputStream in = Files.newInputStream(file, LinkOption.NOFOLLOW_LINKS)) {
            key = in.readNBytes(MAX_BYTES + 1);
        } catch (IOException e) {
            throw new MemchanException(Kind.PERMISSION, "the join secret " + file + " cannot be read: " + e.getMessage(), e);
        }
        if (!before.fileKey().equals(attributes(file).fileKey())) {
            Arrays.fill(key, (byte) 0);
            throw new MemchanException(Kind.INVALID_ARGUMENT, "the join secret " + file + " was replaced while it was read");
        }
        if (key.length < MIN_BYTES || key.length > MAX_BYTES) {
            int length = key.length;
            Arrays.fill(key, (byte) 0);
            throw new MemchanException(Kind.INVALID_ARGUMENT, "the join secret " + file + " has " + (length > MAX_BYTES ? "more than "
                    + MAX_BYTES : length) + " bytes: a secret is " + MIN_BYTES + " to " + MAX_BYTES + " bytes (JoinSecret.create writes one)");
        }
        return new JoinSecret(key, file);
    }

    /** The file's attributes, checked: a regular file of this process's user, mode 0600 or 0400. */
    private static PosixFileAttributes attributes(Path file) {
        PosixFileAttributes a;
        int uid;
        try {
            a = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            uid = (Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            throw new MemchanException(Kind.NOT_FOUND, "the join secret " + file + " does not exist", e);
        } catch (IOException | UnsupportedOperationException e) {
            throw new MemchanException(Kind.PERMISSION, "the join secret " + file + ": its owner and mode cannot be read: " + e, e);
        }
        if (!a.isRegularFile()) {
            throw new MemchanException(Kind.PERMISSION, "the join secret " + file + " is not a regular file"
                    + (a.isSymbolicLink() ? " (a symbolic link: name the file itself)" : ""));
        }
        int me = Posix.getuid();
        if (uid != me) {
            throw new MemchanException(Kind.PERMISSION, "the join secret " + file + " is owned by uid " + uid + ", not by this process's uid " + me);
        }
        if (!MODES.contains(a.permissions())) {
            throw new MemchanException(Kind.PERMISSION, "the join secret " + file + " has mode " + PosixFilePermissions.toString(a.permissions())
                    + ": it must be rw------- (0600) or r-------- (0400), readable by its owner only");
        }
        return a;
    }

    /**
     * Writes a new secret of {@value #MIN_BYTES} random bytes to {@code file}, mode 0600, and returns it.
     * The file appears whole or not at all (written beside it, then linked to its name), and an existing
     * file is never replaced: {@code IN_USE} when {@code file} exists.
     */
    public static JoinSecret create(Path file) {
        byte[] key = new byte[MIN_BYTES];
        new SecureRandom().nextBytes(key);
        Path dir = file.toAbsolutePath().getParent();
        Path temp = null;
        try {
            temp = Files.createTempFile(dir, ".memchan-secret-", ".tmp", PosixFilePermissions.asFileAttribute(OWNER_READ_WRITE));
            try (OutputStream out = Files.newOutputStream(temp, StandardOpenOption.WRITE, StandardOpenOption.SYNC)) {
                out.write(key);
            }
            Files.createLink(file, temp); // link(2): fails if the name exists, never replaces it
        } catch (FileAlreadyExistsException e) {
            Arrays.fill(key, (byte) 0);
            throw new MemchanException(Kind.IN_USE, "the join secret " + file + " exists already: it is not replaced", e);
        } catch (IOException | UnsupportedOperationException e) {
            Arrays.fill(key, (byte) 0);
            throw new MemchanException(Kind.PERMISSION, "the join secret " + file + " cannot be written: " + e, e);
        } finally {
            if (temp != null) {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException e) {
                    // the temporary name only: the secret file itself is complete or absent
                }
            }
        }
        return new JoinSecret(key, file);
    }

    /** HMAC-SHA256 with this key over {@code parts} in order. */
    byte[] mac(ByteBuffer... parts) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            for (ByteBuffer p : parts) {
                mac.update(p.duplicate());
            }
            return mac.doFinal();
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("every JDK has " + ALGORITHM + " and takes any non-empty key", e);
        }
    }

    /** The file the secret came from. */
    public Path file() {
        return file;
    }

    @Override
    public String toString() {
        return "JoinSecret[" + file + "]";
    }
}
