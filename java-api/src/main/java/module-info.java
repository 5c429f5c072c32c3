/**
 * memchan: kernel-bypass remote stores and loads on MemorySegments.
 *
 * <p>Exports the programming model ({@code dev.memchan}), the operator's admin surface
 * ({@code dev.memchan.admin}: a read-only cluster view, static carve-out transactions, the soft
 * fabric's administrator view), the generated register map and layout descriptors
 * ({@code dev.memchan.layout}) and the backend SPI ({@code dev.memchan.spi}). No internal package is
 * exported. Native calls live in {@code dev.memchan.internal.nativeio}; run with
 * {@code --enable-native-access=dev.memchan}.
 */
module dev.memchan {
    exports dev.memchan;
    exports dev.memchan.admin;
    exports dev.memchan.layout;
    exports dev.memchan.spi;

    uses dev.memchan.spi.BackendProvider;
    provides dev.memchan.spi.BackendProvider with dev.memchan.internal.soft.SoftBackendProvider,
            dev.memchan.internal.dev.DevBackendProvider;
}
