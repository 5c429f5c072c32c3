package dev.memchan.tools.bench;

import dev.memchan.Fabric;

/** Where a benchmark section runs: this process's node of the soft fabric at {@code location}, and the C reference. */
record Site(Fabric fabric, String location, Reference reference) {
}
