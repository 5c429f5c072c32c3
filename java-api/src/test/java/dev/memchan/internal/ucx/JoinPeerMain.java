package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

/**
 * A joining node of {@link JoinGateTest} in its own JVM, driven by one command per stdin line, one answer
 * per stdout line ({@code error KIND ...} when a command threw something other than a refusal):
 *
 * <pre>
 *   join HOST PORT SECRET FABRIC ID DATA VERSION -> joined ID DATA | refused REASON PEER|SELF TEXT
 *        (SECRET: the secret file's path; DATA hex, "-" for none; VERSION the protocol version this node speaks)
 *   send ID DATA                                 -> sent            (an active message on the joined endpoint)
 *   raw HOST PORT FABRIC BYTES                   -> answer REASON TEXT | closed
 *        (connects; with a FABRIC other than "-" sends an ASK for it and waits for the HELLO; then sends BYTES
 *         (hex) and reports the hub's REFUSED)
 *   exit
 * </pre>
 */
public final class JoinPeerMain {
    private static final Duration TIMEOUT = UcxPeer.ANSWER;

    private JoinPeerMain() {
    }

    private static byte[] hex(String s) {
        return s.equals("-") ? new byte[0] : HexFormat.of().parseHex(s);
    }

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (UcxContext context = UcxContext.open();
             UcxWorker worker = context.newWorker("joiner", e -> System.err.println("event " + e))) {
            UcxEndpoint joined = null;
            out.println("ready");
            String line;
            while ((line = in.readLine()) != null && !line.equals("exit")) {
                String[] a = line.split(" ");
                try {
                    switch (a[0]) {
                        case "join" -> {
                            InetSocketAddress hub = new InetSocketAddress(a[1], Integer.parseInt(a[2]));
                            JoinSecret secret = JoinSecret.load(Path.of(a[3])); // refused here, before any connection
                            JoinHandshake.Joined j = JoinHandshake.join(worker, hub, secret, a[4],
                                    new JoinFields(Long.parseLong(a[5]), hex(a[6])), TIMEOUT, Integer.parseInt(a[7]));
                            joined = j.endpoint();
                            out.println("joined " + j.hub().id() + " " + HexFormat.of().formatHex(j.hub().data()));
                        }
                        case "send" -> {
                            try (Arena arena = Arena.ofConfined()) {
                                joined.send(Integer.parseInt(a[1]), arena.allocate(0), arena.allocateFrom(JAVA_BYTE, hex(a[2])));
                            }
                            out.println("sent");
                        }
                        case "raw" -> out.println(raw(worker, new InetSocketAddress(a[1], Integer.parseInt(a[2])), a[3], hex(a[4])));
                        default -> out.println("error unknown command " + line);
                    }
                } catch (JoinRefusal r) {
                    out.println("refused " + r.reason() + " " + (r.byPeer() ? "PEER" : "SELF") + " " + oneLine(r.getMessage()));
                } catch (MemchanException e) {
                    out.println("error " + e.kind() + " " + oneLine(e.getMessage()));
                }
            }
        }
    }

    private static String oneLine(String s) {
        return String.valueOf(s).replace('\n', ' ');
    }

    /** Sends {@code bytes} where the ASK belongs, or after an ASK for {@code fabric} where the JOIN belongs, and decodes the answer. */
    private static String raw(UcxWorker worker, InetSocketAddress hub, String fabric, byte[] bytes) throws InterruptedException {
        BlockingQueue<byte[]> inbox = new LinkedBlockingQueue<>();
        worker.setHandler(JoinHandshake.TO_NODE, (from, header, payload) -> inbox.add(payload.toArray(JAVA_BYTE)));
        UcxEndpoint endpoint = worker.connect(hub);
        try {
            if (!fabric.equals("-")) {
                JoinHandshake.send(endpoint, JoinHandshake.TO_HUB, JoinMessages.ask(JoinMessages.VERSION, fabric));
                if (inbox.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS) == null) {
                    return "error no HELLO";
                }
            }
            JoinHandshake.send(endpoint, JoinHandshake.TO_HUB, bytes);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (System.nanoTime() < deadline) {
                byte[] answer = inbox.poll(100, TimeUnit.MILLISECONDS);
                if (answer != null) {
                    JoinMessages.Refused r = (JoinMessages.Refused) JoinMessages.decode(answer, JoinMessages.VERSION);
                    return "answer " + r.reason() + " " + oneLine(r.text());
                }
                if (endpoint.failed()) {
                    return "closed";
                }
            }
            return "error no answer within " + TIMEOUT;
        } finally {
            worker.removeHandler(JoinHandshake.TO_NODE);
            endpoint.close();
        }
    }
}
