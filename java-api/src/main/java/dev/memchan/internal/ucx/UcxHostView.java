package dev.memchan.internal.ucx;

import dev.memchan.ClusterTime;
import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;
import dev.memchan.admin.AdapterView;
import dev.memchan.admin.ClusterView;
import dev.memchan.admin.NodeStatus;
import dev.memchan.admin.PctWrite;
import dev.memchan.internal.soft.SoftBackendProvider;
import dev.memchan.internal.soft.SoftFabricFile;
import dev.memchan.spi.Location;

import java.nio.file.Files;
import java.util.List;

/**
 * The administrator's view of a {@code ucx://} fabric from this host: the host's soft fabric (docs/ucx.md, "The
 * host's soft fabric"), which holds the adapters of the nodes whose processes run here and this host's applied copy
 * of every page (the system pages: membership, directory, groups). It claims no node and does not contact the hub;
 * a host none of whose processes joined has no such file (NOT_FOUND). PCT writes are refused: the host's PCT is
 * its processes' own, and a write made here would not reach the hub.
 */
final class UcxHostView implements AdapterView {
    private final String location;
    private final AdapterView host;

    private UcxHostView(String location, AdapterView host) {
        this.location = location;
        this.host = host;
    }

    static UcxHostView open(UcxLocation at) {
        String name = at.hostFabricName(UcxBackend.hostKey());
        if (!Files.exists(SoftFabricFile.pathOf(name))) {
            throw new MemchanException(Kind.NOT_FOUND, "no process of " + at + " has joined on this host (its copy "
                    + SoftFabricFile.pathOf(name) + " is missing): a ucx:// fabric is seen from a host where one of its nodes runs");
        }
        return new UcxHostView(at.toString(), new SoftBackendProvider().view(Location.parse("shm:" + name)));
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public String kind() {
        return "ucx";
    }

    @Override
    public int maxNodes() {
        return host.maxNodes();
    }

    @Override
    public int pageSize() {
        return host.pageSize();
    }

    @Override
    public int pageCount() {
        return host.pageCount();
    }

    @Override
    public int[] adapters() {
        return host.adapters();
    }

    @Override
    public int readRegister(int node, int offset) {
        return host.readRegister(node, offset);
    }

    @Override
    public int txPct(int node, int page) {
        return host.txPct(node, page);
    }

    @Override
    public long rxPct(int node, int page) {
        return host.rxPct(node, page);
    }

    @Override
    public void readPct(int node, int firstPage, int[] tx, long[] rx) {
        host.readPct(node, firstPage, tx, rx);
    }

    @Override
    public boolean readPageCounters(int node, long[] reads, long[] atomics) {
        return host.readPageCounters(node, reads, atomics);
    }

    @Override
    public ClusterTime.Unit clockUnit() {
        return host.clockUnit();
    }

    @Override
    public NodeStatus node(int node) {
        return host.node(node);
    }

    @Override
    public ClusterView cluster() {
        return host.cluster();
    }

    @Override
    public List<String> problems(List<PctWrite> batch) {
        return batch.isEmpty() ? List.of() : List.of("PCT writes on " + location + " are refused: the host's PCT belongs to its "
                + "processes, and a write made here would not reach the hub");
    }

    @Override
    public void write(List<PctWrite> batch) {
        List<String> problems = problems(batch);
        if (!problems.isEmpty()) {
            throw new MemchanException(Kind.UNSUPPORTED, problems.getFirst());
        }
    }

    @Override
    public void close() {
        host.close();
    }
}
