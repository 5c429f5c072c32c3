package dev.memchan.internal.nativeio;

import dev.memchan.MemchanException;

/**
 * The check every public entry point makes before the first native call, so that a missing
 * {@code --enable-native-access} is reported as a MemchanException that names the flag, instead of
 * an ExceptionInInitializerError (or the JVM's generic warning).
 */
public final class NativeAccess {
    private NativeAccess() {
    }

    public static void require() {
        Module module = NativeAccess.class.getModule();
        if (!module.isNativeAccessEnabled()) {
            String flag = module.isNamed() ? "--enable-native-access=" + module.getName() : "--enable-native-access=ALL-UNNAMED";
            throw new MemchanException(MemchanException.Kind.NATIVE_ACCESS,
                    "memchan maps adapter memory and calls mmap/ioctl/futex through the Foreign Function & Memory API, "
                            + "which the JVM allows only with native access enabled: add " + flag
                            + " to the java command line (the mcctl launcher does this itself)");
        }
    }
}
