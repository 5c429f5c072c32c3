package dev.memchan.spi;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A fabric location, {@code SCHEME:PATH}, parsed once: {@code shm:NAME} (the soft fabric),
 * {@code dev:/dev/memchanN} or {@code dev:/dev/memchan*} (the kernel driver). The scheme names the
 * {@link BackendProvider}; what the path may be is that provider's to judge.
 *
 * @param scheme the part before the first colon: a lower-case letter, then letters, digits, {@code + . -}
 * @param path   the part after it, not empty
 */
public record Location(String scheme, String path) {
    private static final Pattern SCHEME = Pattern.compile("[a-z][a-z0-9+.-]*");

    public Location {
        if (scheme == null || !SCHEME.matcher(scheme).matches() || path == null || path.isEmpty()) {
            throw bad(scheme + ":" + path, "a location is SCHEME:PATH");
        }
    }

    /** {@code text} as a location; INVALID_ARGUMENT naming it when it is not {@code SCHEME:PATH}. */
    public static Location parse(String text) {
        if (text == null) {
            throw bad(null, "no location given");
        }
        int colon = text.indexOf(':');
        if (colon < 1 || colon == text.length() - 1 || !SCHEME.matcher(text.substring(0, colon)).matches()) {
            throw bad(text, "a location is SCHEME:PATH");
        }
        return new Location(text.substring(0, colon), text.substring(colon + 1));
    }

    /**
     * The service of type {@code type} (a {@link BackendProvider}, an {@code AdminProvider}) whose
     * {@code schemeOf} is this location's scheme, found with ServiceLoader; INVALID_ARGUMENT naming this
     * location and the schemes there are when none is.
     */
    public <T> T provider(Class<T> type, Function<T, String> schemeOf) {
        List<String> schemes = new ArrayList<>();
        for (T p : ServiceLoader.load(type, type.getClassLoader())) {
            if (schemeOf.apply(p).equals(scheme)) {
                return p;
            }
            schemes.add(schemeOf.apply(p) + ":");
        }
        throw bad(toString(), "no backend for scheme '" + scheme + "' (this library has " + String.join(", ", schemes) + ")");
    }

    /** The refusal of {@code text}, with what {@code why} says and the locations there are. */
    private static MemchanException bad(String text, String why) {
        return new MemchanException(Kind.INVALID_ARGUMENT, "bad fabric location '" + text + "': " + why
                + "; use shm:NAME (soft fabric) or dev:/dev/memchanN (kernel driver)");
    }

    @Override
    public String toString() {
        return scheme + ":" + path;
    }
}
