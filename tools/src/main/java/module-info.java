/**
 * memchan tools: mcctl (dev.memchan.tools.mcctl), the benchmark engine (dev.memchan.tools.bench) and the
 * demo (dev.memchan.tools.demo). Run with {@code --enable-native-access=dev.memchan} (scripts/mcctl does).
 */
module dev.memchan.tools {
    requires dev.memchan;
    requires info.picocli;
    requires org.snakeyaml.engine.v2;
    requires HdrHistogram;
    requires org.agrona;
    requires jmh.core;

    uses dev.memchan.spi.BackendProvider;

    exports dev.memchan.tools.mcctl;
    exports dev.memchan.tools.bench;
    opens dev.memchan.tools.mcctl to info.picocli;
}
