package dev.memchan.admin;

import dev.memchan.layout.SoftFabricLayout;

import java.nio.file.Path;

/**
 * The {@link AdapterView} of a soft fabric file ({@code shm:NAME}, from {@link FabricAdmin#view}): every
 * node block's registers, OWNER word, PCTs and page counters, and the file's identity.
 */
public interface SoftFabricView extends AdapterView {

    SoftFabricLayout layout();

    long fabricId();

    /** The fabric's file, {@code /dev/shm/memchan-NAME}. */
    Path file();

    /** CLOCK_REALTIME nanoseconds of the file's creation. */
    long createdNanos();

    /** The OWNER word of node {@code node}'s block: 0 when free (see {@code SoftFabricGeometry.ownerPid}). */
    long owner(int node);

    /** Node {@code node} is claimed by a process not proven dead (the view does not wait for heartbeats). */
    boolean joined(int node);

    /**
     * A page counter of node {@code node} as the home of {@code page}, unsigned: {@code counter} is
     * {@code Regs.SF_PAGE_COUNTER_READS} (remote reads served) or {@code Regs.SF_PAGE_COUNTER_ATOMICS}.
     */
    long pageCounter(int node, int page, int counter);
}
