/**
 * memchan tools: mcctl (dev.memchan.tools.mcctl), the benchmark engine (dev.memchan.tools.bench) and the
 * demo (dev.memchan.tools.demo). Run with {@code --enable-native-access=dev.memchan} (scripts/mcctl does).
 *
 * <p>An application, not a library: it exports no package (the launchers name their main classes, which
 * needs no export), so no type of this module or of the ones it reads is part of an API. HdrHistogram,
 * Agrona and JMH ship no module descriptor: they are read as automatic modules, knowingly.
 */
@SuppressWarnings("requires-automatic")
module dev.memchan.tools {
    requires dev.memchan;
    requires info.picocli;
    requires org.snakeyaml.engine.v2;
    requires HdrHistogram;
    requires org.agrona;
    requires jmh.core;
    requires jdk.management; // the benchmarks' per-thread allocation counts (com.sun.management.ThreadMXBean)

    uses dev.memchan.spi.BackendProvider;

    opens dev.memchan.tools.mcctl to info.picocli;
}
