/**
 * memchan: kernel-bypass remote stores and loads on MemorySegments.
 *
 * <p>Exports the programming model ({@code dev.memchan}), the generated register map and layout
 * descriptors ({@code dev.memchan.layout}) and the backend SPI ({@code dev.memchan.spi}). Native calls
 * live in {@code dev.memchan.internal.nativeio}; run with {@code --enable-native-access=dev.memchan}.
 */
module dev.memchan {
    exports dev.memchan;
    exports dev.memchan.layout;
    exports dev.memchan.spi;
    exports dev.memchan.internal.cluster to dev.memchan.tools;
    exports dev.memchan.internal.soft to dev.memchan.tools;

    uses dev.memchan.spi.BackendProvider;
    provides dev.memchan.spi.BackendProvider with dev.memchan.internal.dev.DevBackendProvider;
}
