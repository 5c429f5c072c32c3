package dev.memchan.internal.dev;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.util.List;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Hand-written bindings of native/include/uapi/linux/memchan.h (the driver's ioctl ABI). Every
 * struct's size and field offsets are checked against the C header compiled with gcc by
 * {@code UapiLayoutTest}; a change on either side fails that test.
 */
public final class Uapi {
    private Uapi() {
    }

    public static final int API_VERSION = 1;
    public static final long MMAP_TX_BASE = 0L;
    public static final long MMAP_RX_BASE = 1L << 40;
    public static final int BACKEND_HW = 1;
    public static final int BACKEND_IVSHMEM = 2;
    public static final int NODE_NONE = 0xFFFF_FFFF;

    public static final int INFO_NODE_VALID = 1;
    public static final int NODE_TAKEOVER = 1;
    public static final int PCT_WRITE_TX = 1;
    public static final int PCT_WRITE_RX = 2;
    public static final int GRANT_TX = 1;
    public static final int GRANT_RX = 2;
    public static final int RX_IRQ = 1;
    public static final int ERRCNT_CHECK = 1;

    private static final int MAGIC = 0xB7;

    /** _IO(MEMCHAN_IOC_MAGIC, nr): the numbers carry no size, argsz does. */
    private static long io(int nr) {
        return (MAGIC << 8) | nr;
    }

    public static final long GET_API_VERSION = io(0x00);
    public static final long INFO = io(0x01);
    public static final long SET_NODE = io(0x02);
    public static final long PCT = io(0x03);
    public static final long GRANT = io(0x04);
    public static final long REVOKE = io(0x05);
    public static final long BARRIER = io(0x06);
    public static final long WAIT = io(0x07);
    public static final long SET_EVENTFD = io(0x08);
    public static final long NOTIFY = io(0x09);
    public static final long LOOPBACK = io(0x0a);
    public static final long ERRCNT = io(0x0b);
    public static final long REG_READ = io(0x0c);
    public static final long RELEASE_NODE = io(0x0d);

    private static StructLayout struct(String name, MemoryLayout... fields) {
        MemoryLayout[] all = new MemoryLayout[fields.length + 2];
        all[0] = JAVA_INT.withName("argsz");
        all[1] = JAVA_INT.withName("flags");
        System.arraycopy(fields, 0, all, 2, fields.length);
        return MemoryLayout.structLayout(all).withName(name);
    }

    private static MemoryLayout u32(String name) {
        return JAVA_INT.withName(name);
    }

    private static MemoryLayout u64(String name) {
        return JAVA_LONG.withName(name);
    }

    public static final StructLayout INFO_LAYOUT = struct("memchan_info",
            u32("api_version"), u32("backend"), u32("regmap_version"), u32("caps"), u32("node_id"),
            u32("max_nodes"), u32("page_size"), u32("page_count"), u32("link_status"), u32("loopback"),
            u64("window_size"), u64("tx_mmap_base"), u64("rx_mmap_base"),
            u32("tx_packets"), u32("tx_bytes"), u32("rx_packets"), u32("rx_bytes"), u32("tx_drop_disabled"),
            u32("rx_drop_disabled"), u32("crc_errors"), u32("link_retries"), u32("error_count"),
            u32("acks_received"), u32("notify_count"), u32("ack_outstanding"), u64("incarnation"));
    public static final StructLayout NODE_LAYOUT = struct("memchan_node", u32("node_id"), u32("pad"));
    public static final StructLayout PCT_LAYOUT = struct("memchan_pct", u32("page"), u32("tx_entry"), u64("rx_entry"));
    public static final StructLayout GRANT_LAYOUT = struct("memchan_grant",
            u32("first_page"), u32("count"), u32("tx_entry"), u32("rx_flags"), u64("mmap_offset"));
    public static final StructLayout BARRIER_LAYOUT = struct("memchan_barrier",
            u64("timeout_ns"), u32("ack_outstanding"), u32("pad"));
    public static final StructLayout WAIT_LAYOUT = struct("memchan_wait", u64("timeout_ns"), u32("count"), u32("pad"));
    public static final StructLayout EVENTFD_LAYOUT = struct("memchan_eventfd", u32("fd"), u32("pad"));
    public static final StructLayout NOTIFY_LAYOUT = struct("memchan_notify", u32("page"), u32("nodes"));
    public static final StructLayout LOOPBACK_LAYOUT = struct("memchan_loopback", u32("mode"), u32("pad"));
    public static final StructLayout ERRCNT_LAYOUT = struct("memchan_errcnt",
            u32("since"), u32("count"), u32("changed"), u32("pad"));
    public static final StructLayout REG_LAYOUT = struct("memchan_reg", u32("offset"), u32("value"));
    public static final StructLayout RELEASE_LAYOUT = struct("memchan_release",
            u32("node"), u32("released"), u64("incarnation"));

    /** Every struct of the header, for the layout check. */
    public static final List<StructLayout> ALL = List.of(INFO_LAYOUT, NODE_LAYOUT, PCT_LAYOUT, GRANT_LAYOUT,
            BARRIER_LAYOUT, WAIT_LAYOUT, EVENTFD_LAYOUT, NOTIFY_LAYOUT, LOOPBACK_LAYOUT, ERRCNT_LAYOUT, REG_LAYOUT,
            RELEASE_LAYOUT);

    /** Byte offset of {@code field} in {@code layout}. */
    public static long offset(StructLayout layout, String field) {
        return layout.byteOffset(MemoryLayout.PathElement.groupElement(field));
    }
}
