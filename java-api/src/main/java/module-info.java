/**
 * memchan: kernel-bypass remote stores and loads on MemorySegments.
 *
 * <p>Exports the programming model ({@code dev.memchan}), the operator's admin surface
 * ({@code dev.memchan.admin}: a read-only cluster view, PCT and static carve-out transactions, the
 * adapters' administrator view, soft fabric creation and removal), the generated register map and layout descriptors
 * ({@code dev.memchan.layout}) and the backend SPI ({@code dev.memchan.spi}). No internal package is
 * exported, except the UCX transport to the tools module only, for its latency benchmark. Native calls
 * live in {@code dev.memchan.internal.nativeio}; run with {@code --enable-native-access=dev.memchan}.
 */
@SuppressWarnings("module") // the qualified export names dev.memchan.tools, which is built after this module
module dev.memchan {
    requires jdk.net; // TCP keepalive timing on the ucx:// control connections

    exports dev.memchan;
    exports dev.memchan.admin;
    exports dev.memchan.layout;
    exports dev.memchan.spi;
    exports dev.memchan.internal.ucx to dev.memchan.tools;

    uses dev.memchan.spi.BackendProvider;
    uses dev.memchan.admin.AdminProvider;
    provides dev.memchan.spi.BackendProvider with dev.memchan.internal.soft.SoftBackendProvider,
            dev.memchan.internal.dev.DevBackendProvider, dev.memchan.internal.ucx.UcxBackendProvider;
    provides dev.memchan.admin.AdminProvider with dev.memchan.internal.soft.SoftBackendProvider,
            dev.memchan.internal.dev.DevBackendProvider, dev.memchan.internal.ucx.UcxBackendProvider;
}
