package dev.memchan.internal.nativeio;

import dev.memchan.MemchanException;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

import static dev.memchan.internal.nativeio.UcpDefs.UCS_ERR_LAST;
import static dev.memchan.internal.nativeio.UcpDefs.UCS_INPROGRESS;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The downcalls into UCX's UCP library ({@code libucp.so.0}, Debian's {@code libucx0}), in the style of
 * {@link Posix}: one method per C function, the arguments as C takes them. The prototypes are
 * {@link UcpDefs.Downcalls}, which ucp_gen.py generates from the installed headers; the struct layouts
 * and constants are {@link UcpDefs} too. Statuses are returned as UCX's {@code ucs_status_t} values
 * (a packed, one-byte enum in C, widened to int here); callers turn a failure into a
 * {@link MemchanException} with {@link #check} or {@link #failure}.
 *
 * <p>UCX's own handlers of SIGSEGV, SIGBUS, SIGILL and SIGFPE must not run in a JVM, which takes those
 * signals as part of its normal work (implicit null checks, safepoint polls) and whose signals UCX's
 * handler would report as crashes. {@code UCX_ERROR_SIGNALS} is emptied before the library loads, so
 * that UCX installs none; when the environment sets it, UCX's handlers of those four signals are
 * removed again after loading ({@code ucs_debug_disable_signal}).
 *
 * <p>No method allocates Java objects beyond what a downcall returns: the hot calls (put, get,
 * atomics, active messages, progress, request status) take caller-owned, preallocated segments.
 */
@SuppressWarnings("restricted")
public final class Ucp {
    private Ucp() {
    }

    /** The shared object every downcall resolves in, and the Debian package that ships it. */
    public static final String LIBRARY = "libucp.so.0";
    public static final String PACKAGE = "libucx0";

    // The signals UCX's error handling catches by default (UCX_ERROR_SIGNALS), Linux numbers.
    private static final int[] ERROR_SIGNALS = {4, 7, 8, 11}; // SIGILL, SIGBUS, SIGFPE, SIGSEGV

    private static final Linker LINKER = Linker.nativeLinker();
    /** Null when the library is there; else why it is not (see {@link #require}). */
    private static final String UNAVAILABLE;

    private static final MethodHandle STATUS_STRING;
    private static final MethodHandle CONFIG_READ;
    private static final MethodHandle CONFIG_MODIFY;
    private static final MethodHandle CONFIG_RELEASE;
    private static final MethodHandle INIT_VERSION;
    private static final MethodHandle CLEANUP;
    private static final MethodHandle WORKER_CREATE;
    private static final MethodHandle WORKER_DESTROY;
    private static final MethodHandle WORKER_QUERY;
    private static final MethodHandle WORKER_GET_ADDRESS;
    private static final MethodHandle WORKER_RELEASE_ADDRESS;
    private static final MethodHandle WORKER_GET_EFD;
    private static final MethodHandle WORKER_ARM;
    private static final MethodHandle WORKER_SIGNAL;
    private static final MethodHandle WORKER_PROGRESS;
    private static final MethodHandle WORKER_FENCE;
    private static final MethodHandle WORKER_FLUSH_NBX;
    private static final MethodHandle LISTENER_CREATE;
    private static final MethodHandle LISTENER_DESTROY;
    private static final MethodHandle LISTENER_QUERY;
    private static final MethodHandle EP_CREATE;
    private static final MethodHandle EP_CLOSE_NBX;
    private static final MethodHandle EP_FLUSH_NBX;
    private static final MethodHandle MEM_MAP;
    private static final MethodHandle MEM_UNMAP;
    private static final MethodHandle RKEY_PACK;
    private static final MethodHandle RKEY_BUFFER_RELEASE;
    private static final MethodHandle EP_RKEY_UNPACK;
    private static final MethodHandle RKEY_DESTROY;
    private static final MethodHandle PUT_NBX;
    private static final MethodHandle GET_NBX;
    private static final MethodHandle ATOMIC_OP_NBX;
    private static final MethodHandle AM_SEND_NBX;
    private static final MethodHandle SET_AM_RECV_HANDLER;
    private static final MethodHandle REQUEST_CHECK_STATUS;
    private static final MethodHandle REQUEST_FREE;

    static {
        NativeAccess.require();
        SymbolLookup ucp = null;
        SymbolLookup ucs = null;
        String unavailable = null;
        try {
            setenvUnlessSet("UCX_ERROR_SIGNALS", "");
            ucp = SymbolLookup.libraryLookup(LIBRARY, Arena.global());
            ucs = SymbolLookup.libraryLookup("libucs.so.0", Arena.global()); // loaded by libucp already
        } catch (IllegalArgumentException e) {
            unavailable = "UCX's " + LIBRARY + " cannot be loaded (" + e.getMessage() + "): install Debian's "
                    + PACKAGE + " (apt-get install " + PACKAGE + "; scripts/test-all installs it)";
        }
        UNAVAILABLE = unavailable;
        String userSignals = System.getenv("UCX_ERROR_SIGNALS"); // the environment the JVM started with
        if (unavailable == null && userSignals != null && !userSignals.isEmpty()) {
            // the user's UCX_ERROR_SIGNALS installed UCX's handlers: give those signals back to the JVM
            MethodHandle disableSignal = bind(ucs, "ucs_debug_disable_signal", UcpDefs.Downcalls.ucs_debug_disable_signal);
            for (int signal : ERROR_SIGNALS) {
                try {
                    disableSignal.invokeExact(signal);
                } catch (Throwable t) {
                    throw Posix.rethrow(t);
                }
            }
        }
        STATUS_STRING = bind(ucs, "ucs_status_string", UcpDefs.Downcalls.ucs_status_string);
        CONFIG_READ = bind(ucp, "ucp_config_read", UcpDefs.Downcalls.ucp_config_read);
        CONFIG_MODIFY = bind(ucp, "ucp_config_modify", UcpDefs.Downcalls.ucp_config_modify);
        CONFIG_RELEASE = bind(ucp, "ucp_config_release", UcpDefs.Downcalls.ucp_config_release);
        INIT_VERSION = bind(ucp, "ucp_init_version", UcpDefs.Downcalls.ucp_init_version);
        CLEANUP = bind(ucp, "ucp_cleanup", UcpDefs.Downcalls.ucp_cleanup);
        WORKER_CREATE = bind(ucp, "ucp_worker_create", UcpDefs.Downcalls.ucp_worker_create);
        WORKER_DESTROY = bind(ucp, "ucp_worker_destroy", UcpDefs.Downcalls.ucp_worker_destroy);
        WORKER_QUERY = bind(ucp, "ucp_worker_query", UcpDefs.Downcalls.ucp_worker_query);
        WORKER_GET_ADDRESS = bind(ucp, "ucp_worker_get_address", UcpDefs.Downcalls.ucp_worker_get_address);
        WORKER_RELEASE_ADDRESS = bind(ucp, "ucp_worker_release_address", UcpDefs.Downcalls.ucp_worker_release_address);
        WORKER_GET_EFD = bind(ucp, "ucp_worker_get_efd", UcpDefs.Downcalls.ucp_worker_get_efd);
        WORKER_ARM = bind(ucp, "ucp_worker_arm", UcpDefs.Downcalls.ucp_worker_arm);
        WORKER_SIGNAL = bind(ucp, "ucp_worker_signal", UcpDefs.Downcalls.ucp_worker_signal);
        WORKER_PROGRESS = bind(ucp, "ucp_worker_progress", UcpDefs.Downcalls.ucp_worker_progress);
        WORKER_FENCE = bind(ucp, "ucp_worker_fence", UcpDefs.Downcalls.ucp_worker_fence);
        WORKER_FLUSH_NBX = bind(ucp, "ucp_worker_flush_nbx", UcpDefs.Downcalls.ucp_worker_flush_nbx);
        LISTENER_CREATE = bind(ucp, "ucp_listener_create", UcpDefs.Downcalls.ucp_listener_create);
        LISTENER_DESTROY = bind(ucp, "ucp_listener_destroy", UcpDefs.Downcalls.ucp_listener_destroy);
        LISTENER_QUERY = bind(ucp, "ucp_listener_query", UcpDefs.Downcalls.ucp_listener_query);
        EP_CREATE = bind(ucp, "ucp_ep_create", UcpDefs.Downcalls.ucp_ep_create);
        EP_CLOSE_NBX = bind(ucp, "ucp_ep_close_nbx", UcpDefs.Downcalls.ucp_ep_close_nbx);
        EP_FLUSH_NBX = bind(ucp, "ucp_ep_flush_nbx", UcpDefs.Downcalls.ucp_ep_flush_nbx);
        MEM_MAP = bind(ucp, "ucp_mem_map", UcpDefs.Downcalls.ucp_mem_map);
        MEM_UNMAP = bind(ucp, "ucp_mem_unmap", UcpDefs.Downcalls.ucp_mem_unmap);
        RKEY_PACK = bind(ucp, "ucp_rkey_pack", UcpDefs.Downcalls.ucp_rkey_pack);
        RKEY_BUFFER_RELEASE = bind(ucp, "ucp_rkey_buffer_release", UcpDefs.Downcalls.ucp_rkey_buffer_release);
        EP_RKEY_UNPACK = bind(ucp, "ucp_ep_rkey_unpack", UcpDefs.Downcalls.ucp_ep_rkey_unpack);
        RKEY_DESTROY = bind(ucp, "ucp_rkey_destroy", UcpDefs.Downcalls.ucp_rkey_destroy);
        PUT_NBX = bind(ucp, "ucp_put_nbx", UcpDefs.Downcalls.ucp_put_nbx);
        GET_NBX = bind(ucp, "ucp_get_nbx", UcpDefs.Downcalls.ucp_get_nbx);
        ATOMIC_OP_NBX = bind(ucp, "ucp_atomic_op_nbx", UcpDefs.Downcalls.ucp_atomic_op_nbx);
        AM_SEND_NBX = bind(ucp, "ucp_am_send_nbx", UcpDefs.Downcalls.ucp_am_send_nbx);
        SET_AM_RECV_HANDLER = bind(ucp, "ucp_worker_set_am_recv_handler", UcpDefs.Downcalls.ucp_worker_set_am_recv_handler);
        REQUEST_CHECK_STATUS = bind(ucp, "ucp_request_check_status", UcpDefs.Downcalls.ucp_request_check_status);
        REQUEST_FREE = bind(ucp, "ucp_request_free", UcpDefs.Downcalls.ucp_request_free);
    }

    /** A downcall handle, or null when the library is missing ({@link #require} reports that). */
    private static MethodHandle bind(SymbolLookup lookup, String name, FunctionDescriptor fd) {
        if (lookup == null) {
            return null;
        }
        return LINKER.downcallHandle(lookup.find(name).orElseThrow(() -> new UnsatisfiedLinkError(name + " in " + LIBRARY)), fd);
    }

    /** setenv(name, value, 0) of the C library, so that a library loaded afterwards reads it. */
    private static void setenvUnlessSet(String name, String value) {
        MethodHandle setenv = LINKER.downcallHandle(LINKER.defaultLookup().find("setenv").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            int _ = (int) setenv.invokeExact(arena.allocateFrom(name), arena.allocateFrom(value), 0);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** Throws a MemchanException that names the package to install when libucp cannot be loaded. */
    public static void require() {
        if (UNAVAILABLE != null) {
            throw new MemchanException(MemchanException.Kind.NOT_FOUND, UNAVAILABLE);
        }
    }

    // ---- statuses ----------------------------------------------------------------------------------

    /** UCX's message for a status ({@code ucs_status_string}). */
    public static String statusString(int status) {
        try {
            MemorySegment s = (MemorySegment) STATUS_STRING.invokeExact((byte) status);
            return s.reinterpret(4096).getString(0); // a short constant string
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** The MemchanException for a failed UCX call: what was attempted, UCX's message and status. */
    public static MemchanException failure(String what, int status) {
        MemchanException.Kind kind = switch (status) {
            case UcpDefs.UCS_ERR_INVALID_PARAM, UcpDefs.UCS_ERR_INVALID_ADDR, UcpDefs.UCS_ERR_OUT_OF_RANGE ->
                    MemchanException.Kind.INVALID_ARGUMENT;
            case UcpDefs.UCS_ERR_UNREACHABLE, UcpDefs.UCS_ERR_REJECTED, UcpDefs.UCS_ERR_NO_ELEM -> MemchanException.Kind.NOT_FOUND;
            case UcpDefs.UCS_ERR_BUSY, UcpDefs.UCS_ERR_ALREADY_EXISTS -> MemchanException.Kind.IN_USE;
            case UcpDefs.UCS_ERR_TIMED_OUT, UcpDefs.UCS_ERR_ENDPOINT_TIMEOUT -> MemchanException.Kind.TIMEOUT;
            case UcpDefs.UCS_ERR_UNSUPPORTED -> MemchanException.Kind.UNSUPPORTED;
            case UcpDefs.UCS_ERR_CANCELED -> MemchanException.Kind.CLOSED;
            default -> MemchanException.Kind.DEVICE_ERROR;
        };
        return new MemchanException(kind, what + ": " + statusString(status) + " (UCS status " + status + ")");
    }

    /** Throws {@link #failure} unless {@code status} is UCS_OK. */
    public static void check(int status, String what) {
        if (status != UcpDefs.UCS_OK) {
            throw failure(what, status);
        }
    }

    /** {@code UCS_PTR_IS_ERR}: the pointer a non-blocking call returned carries an error status. */
    public static boolean isError(MemorySegment statusPtr) {
        return Long.compareUnsigned(statusPtr.address(), UCS_ERR_LAST) >= 0;
    }

    /** {@code UCS_PTR_STATUS}: UCS_OK for NULL, UCS_INPROGRESS for a request, else the error status. */
    public static int status(MemorySegment statusPtr) {
        long p = statusPtr.address();
        if (p == 0) {
            return UcpDefs.UCS_OK;
        }
        return isError(statusPtr) ? (int) p : UCS_INPROGRESS;
    }

    // ---- memory UCX hands out ----------------------------------------------------------------------

    /** {@code length} bytes at a pointer UCX passed in (a callback's header, data or parameters). */
    public static MemorySegment view(MemorySegment pointer, long length) {
        return pointer.reinterpret(length);
    }

    /** A callback UCX can call: {@code target} (of the descriptor's type) behind a function pointer that lives for the process. */
    public static MemorySegment upcall(MethodHandle target, FunctionDescriptor fd) {
        return LINKER.upcallStub(target, fd, Arena.global());
    }

    // ---- configuration and context -----------------------------------------------------------------

    /** ucp_config_read(NULL, NULL, configOut): the UCX_* environment. */
    public static int configRead(MemorySegment configOut) {
        try {
            return (byte) CONFIG_READ.invokeExact(MemorySegment.NULL, MemorySegment.NULL, configOut);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static int configModify(MemorySegment config, String name, String value) {
        try (Arena arena = Arena.ofConfined()) {
            return (byte) CONFIG_MODIFY.invokeExact(config, arena.allocateFrom(name), arena.allocateFrom(value));
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static void configRelease(MemorySegment config) {
        try {
            CONFIG_RELEASE.invokeExact(config);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** ucp_init (a static inline of ucp_init_version with the header's API version). */
    public static int init(MemorySegment params, MemorySegment config, MemorySegment contextOut) {
        try {
            return (byte) INIT_VERSION.invokeExact(UcpDefs.UCP_API_MAJOR, UcpDefs.UCP_API_MINOR, params, config, contextOut);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static void cleanup(MemorySegment context) {
        try {
            CLEANUP.invokeExact(context);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    // ---- worker ------------------------------------------------------------------------------------

    public static int workerCreate(MemorySegment context, MemorySegment params, MemorySegment workerOut) {
        try {
            return (byte) WORKER_CREATE.invokeExact(context, params, workerOut);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static void workerDestroy(MemorySegment worker) {
        try {
            WORKER_DESTROY.invokeExact(worker);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static int workerQuery(MemorySegment worker, MemorySegment attr) {
        try {
            return (byte) WORKER_QUERY.invokeExact(worker, attr);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** ucp_worker_get_address: the worker's address blob into {@code addressOut} and its length into {@code lengthOut}. */
    public static int workerGetAddress(MemorySegment worker, MemorySegment addressOut, MemorySegment lengthOut) {
        try {
            return (byte) WORKER_GET_ADDRESS.invokeExact(worker, addressOut, lengthOut);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static void workerReleaseAddress(MemorySegment worker, MemorySegment address) {
        try {
            WORKER_RELEASE_ADDRESS.invokeExact(worker, address);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static int workerGetEfd(MemorySegment worker, MemorySegment fdOut) {
        try {
            return (byte) WORKER_GET_EFD.invokeExact(worker, fdOut);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static int workerArm(MemorySegment worker) {
        try {
            return (byte) WORKER_ARM.invokeExact(worker);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static int workerSignal(MemorySegment worker) {
        try {
            return (byte) WORKER_SIGNAL.invokeExact(worker);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /** ucp_worker_progress: the number of communication events it processed (0: nothing to do). */
    public static int workerProgress(MemorySegment worker) {
        try {
            return (int) WORKER_PROGRESS.invokeExact(worker);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static int workerFence(MemorySegment worker) {
        try {
            return (byte) WORKER_FENCE.invokeExact(worker);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static MemorySegment workerFlushNbx(MemorySegment worker, MemorySegment param) {
        try {
            return (MemorySegment) WORKER_FLUSH_NBX.invokeExact(worker, param);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static int setAmRecvHandler(MemorySegment worker, MemorySegment param) {
        try {
            return (byte) SET_AM_RECV_HANDLER.invokeExact(worker, param);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    // ---- listener and endpoints --------------------------------------------------------------------

    public static int listenerCreate(MemorySegment worker, MemorySegment params, MemorySegment listenerOut) {
        try {
            return (byte) LISTENER_CREATE.invokeExact(worker, params, listenerOut);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static void listenerDestroy(MemorySegment listener) {
        try {
            LISTENER_DESTROY.invokeExact(listener);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static int listenerQuery(MemorySegment listener, MemorySegment attr) {
        try {
            return (byte) LISTENER_QUERY.invokeExact(listener, attr);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static int epCreate(MemorySegment worker, MemorySegment params, MemorySegment epOut) {
        try {
            return (byte) EP_CREATE.invokeExact(worker, params, epOut);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static MemorySegment epCloseNbx(MemorySegment ep, MemorySegment param) {
        try {
            return (MemorySegment) EP_CLOSE_NBX.invokeExact(ep, param);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static MemorySegment epFlushNbx(MemorySegment ep, MemorySegment param) {
        try {
            return (MemorySegment) EP_FLUSH_NBX.invokeExact(ep, param);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    // ---- memory registration and remote keys -------------------------------------------------------

    public static int memMap(MemorySegment context, MemorySegment params, MemorySegment memhOut) {
        try {
            return (byte) MEM_MAP.invokeExact(context, params, memhOut);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static int memUnmap(MemorySegment context, MemorySegment memh) {
        try {
            return (byte) MEM_UNMAP.invokeExact(context, memh);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    /**
     * ucp_rkey_pack, the packed key copied out and UCX's buffer released: the bytes a peer unpacks
     * with {@link #epRkeyUnpack}.
     */
    public static byte[] rkeyPack(MemorySegment context, MemorySegment memh, String what) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bufferOut = arena.allocate(ADDRESS);
            MemorySegment sizeOut = arena.allocate(JAVA_LONG); // size_t
            check((byte) RKEY_PACK.invokeExact(context, memh, bufferOut, sizeOut), what);
            MemorySegment buffer = bufferOut.get(ADDRESS, 0);
            long size = sizeOut.get(JAVA_LONG, 0);
            try {
                return buffer.reinterpret(size).toArray(JAVA_BYTE);
            } finally {
                RKEY_BUFFER_RELEASE.invokeExact(buffer);
            }
        } catch (MemchanException e) {
            throw e;
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static int epRkeyUnpack(MemorySegment ep, MemorySegment packed, MemorySegment rkeyOut) {
        try {
            return (byte) EP_RKEY_UNPACK.invokeExact(ep, packed, rkeyOut);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static void rkeyDestroy(MemorySegment rkey) {
        try {
            RKEY_DESTROY.invokeExact(rkey);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    // ---- communication -----------------------------------------------------------------------------

    public static MemorySegment putNbx(MemorySegment ep, MemorySegment buffer, long count, long remoteAddress,
                                       MemorySegment rkey, MemorySegment param) {
        try {
            return (MemorySegment) PUT_NBX.invokeExact(ep, buffer, count, remoteAddress, rkey, param);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static MemorySegment getNbx(MemorySegment ep, MemorySegment buffer, long count, long remoteAddress,
                                       MemorySegment rkey, MemorySegment param) {
        try {
            return (MemorySegment) GET_NBX.invokeExact(ep, buffer, count, remoteAddress, rkey, param);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static MemorySegment atomicOpNbx(MemorySegment ep, int opcode, MemorySegment buffer, long count,
                                            long remoteAddress, MemorySegment rkey, MemorySegment param) {
        try {
            return (MemorySegment) ATOMIC_OP_NBX.invokeExact(ep, opcode, buffer, count, remoteAddress, rkey, param);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static MemorySegment amSendNbx(MemorySegment ep, int id, MemorySegment header, long headerLength,
                                          MemorySegment buffer, long count, MemorySegment param) {
        try {
            return (MemorySegment) AM_SEND_NBX.invokeExact(ep, id, header, headerLength, buffer, count, param);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static int requestCheckStatus(MemorySegment request) {
        try {
            return (byte) REQUEST_CHECK_STATUS.invokeExact(request);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }

    public static void requestFree(MemorySegment request) {
        try {
            REQUEST_FREE.invokeExact(request);
        } catch (Throwable t) {
            throw Posix.rethrow(t);
        }
    }
}
