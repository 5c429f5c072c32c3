package dev.memchan.tools.bench;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.FragmentAssembler;
import io.aeron.Publication;
import io.aeron.Subscription;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.logbuffer.BufferClaim;
import io.aeron.logbuffer.FragmentHandler;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The reference a user would pick instead of the {@code ucx://} message channel across hosts: Aeron UDP unicast,
 * one process per side, each with its own embedded media driver (one per host, as across machines), in the threading
 * mode given (SHARED: one driver thread; DEDICATED: Aeron's default, three), with socket buffers and receiver window of
 * {@link #WINDOW} bytes, the size of the memchan channel's ring. Same work as {@link ChannelThroughput}: the sender
 * writes message i's {@link MessagePattern} in place ({@code tryClaim}, or {@code offer} from a buffer holding it
 * when the message is longer than one frame), the receiver checks every byte of every message (fragments
 * reassembled). A run ends when the receiver's answer on the back stream (the run's number) reaches the sender.
 *
 * <p>Compiled and run outside the tools module by scripts/bench-ucx-backend: aeron-all carries its own Agrona,
 * which clashes with Agrona 2 there. The class path is aeron-all, this class and the tools jar.
 *
 * <pre>
 *   AeronThroughput receive MODE PORT BACK_PORT SIZE COUNT RUNS  (prints "ready", receives RUNS runs, ends at stdin's "exit")
 *   AeronThroughput send MODE PORT BACK_PORT SIZE COUNT          (prints "ready"; each stdin line "run": one run,
 *                                                                 prints "bps B"; "exit" ends)
 * </pre>
 */
public final class AeronThroughput {
    private static final String HOST = "127.0.0.1";
    private static final int STREAM = 1001;
    private static final int BACK_STREAM = 1002;
    private static final long TIMEOUT_NANOS = 30_000_000_000L;
    /** Socket buffers and the receiver's window: the 2 MiB of the memchan channel's ring (net.core.rmem_max allows 4 MiB). */
    static final int WINDOW = 2 << 20;

    private AeronThroughput() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 6) {
            System.err.println("usage: AeronThroughput receive MODE PORT BACK_PORT SIZE COUNT RUNS | send MODE PORT BACK_PORT SIZE COUNT");
            System.exit(2);
        }
        ThreadingMode mode = ThreadingMode.valueOf(args[1]);
        String data = "aeron:udp?endpoint=" + HOST + ":" + Integer.parseInt(args[2]);
        String back = "aeron:udp?endpoint=" + HOST + ":" + Integer.parseInt(args[3]);
        int size = Integer.parseInt(args[4]);
        long count = Long.parseLong(args[5]);
        String dir = "/dev/shm/memchan-aeron-" + ProcessHandle.current().pid();
        MediaDriver.Context driverContext = new MediaDriver.Context().aeronDirectoryName(dir).threadingMode(mode)
                .socketRcvbufLength(WINDOW).socketSndbufLength(WINDOW).initialWindowLength(WINDOW)
                .dirDeleteOnStart(true).dirDeleteOnShutdown(true);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try (MediaDriver driver = MediaDriver.launchEmbedded(driverContext);
             Aeron aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()))) {
            switch (args[0]) {
                case "receive" -> receive(aeron, data, back, count, Integer.parseInt(args[6]), out);
                case "send" -> send(aeron, data, back, size, count, out);
                default -> throw new IllegalArgumentException("role " + args[0] + " is neither send nor receive");
            }
        }
    }

    private static void send(Aeron aeron, String data, String back, int size, long count, PrintStream out) throws Exception {
        try (ExclusivePublication pub = aeron.addExclusivePublication(data, STREAM);
             Subscription answers = aeron.addSubscription(back, BACK_STREAM)) {
            awaitConnected(pub, answers);
            out.println("ready");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            BufferClaim claim = new BufferClaim();
            UnsafeBuffer whole = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
            boolean inPlace = size <= pub.maxPayloadLength();
            long[] answered = {0};
            FragmentHandler onAnswer = (buffer, offset, length, header) -> answered[0] = buffer.getLong(offset);
            String line;
            for (long run = 1; (line = in.readLine()) != null && line.equals("run"); run++) {
                Idle idle = new Idle();
                long t0 = System.nanoTime();
                for (long i = 0; i < count; i++) {
                    if (inPlace) {
                        long deadline = System.nanoTime() + TIMEOUT_NANOS;
                        while (pub.tryClaim(size, claim) < 0) {
                            backOff(idle, deadline);
                        }
                        AgronaThroughput.fill(claim.buffer(), claim.offset(), size, i);
                        claim.commit();
                    } else {
                        AgronaThroughput.fill(whole, 0, size, i);
                        long deadline = System.nanoTime() + TIMEOUT_NANOS;
                        while (pub.offer(whole, 0, size) < 0) {
                            backOff(idle, deadline);
                        }
                    }
                    idle.reset();
                }
                long deadline = System.nanoTime() + TIMEOUT_NANOS;
                while (answered[0] != run) {
                    if (answers.poll(onAnswer, 1) == 0) {
                        backOff(idle, deadline);
                    }
                }
                long t1 = System.nanoTime();
                out.println(String.format(Locale.ROOT, "bps %.1f", (double) size * count * 1e9 / (t1 - t0)));
            }
        }
    }

    private static void receive(Aeron aeron, String data, String back, long count, int runs, PrintStream out) {
        try (Subscription sub = aeron.addSubscription(data, STREAM);
             ExclusivePublication answers = aeron.addExclusivePublication(back, BACK_STREAM)) {
            out.println("ready");
            UnsafeBuffer answer = new UnsafeBuffer(ByteBuffer.allocateDirect(Long.BYTES));
            Idle idle = new Idle();
            for (long run = 1; run <= runs; run++) {
                Checker checker = new Checker();
                FragmentAssembler assembler = new FragmentAssembler(checker);
                while (checker.next < count) {
                    if (sub.poll(assembler, ChannelThroughput.BATCH) == 0) {
                        idle.idle();
                    } else {
                        idle.reset();
                    }
                }
                answer.putLong(0, run);
                long deadline = System.nanoTime() + TIMEOUT_NANOS;
                while (answers.offer(answer, 0, Long.BYTES) < 0) {
                    backOff(idle, deadline);
                }
            }
            // the last answer is sent by this process's driver: it stays up until the sender is done
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).lines().filter("exit"::equals).findFirst();
        }
    }

    private static void awaitConnected(Publication pub, Subscription answers) {
        long deadline = System.nanoTime() + TIMEOUT_NANOS;
        Idle idle = new Idle();
        while (!pub.isConnected() || !answers.isConnected()) {
            backOff(idle, deadline);
        }
    }

    private static void backOff(Idle idle, long deadline) {
        if (System.nanoTime() - deadline > 0) {
            throw new IllegalStateException("Aeron: no progress within 30 s (the other side gone?)");
        }
        idle.idle();
    }

    private static final class Checker implements FragmentHandler {
        long next;

        @Override
        public void onFragment(org.agrona.DirectBuffer buffer, int offset, int length, io.aeron.logbuffer.Header header) {
            if (!AgronaThroughput.matches(buffer, offset, length, next)) {
                throw MessagePattern.mismatch("Aeron UDP unicast", next, length);
            }
            next++;
        }
    }
}
