package dev.memchan.internal.nativeio;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PosixProcessTest {
    /**
     * A SIGKILLed child that its parent has not reaped yet is a zombie: kill(pid, 0) still succeeds, but
     * the process is gone for every liveness rule. The child here is a shell whose own child becomes
     * the zombie: the shell never reaps it while it sleeps, so the zombie lasts as long as the test needs.
     */
    @Test
    void aKilledUnreapedProcessDoesNotExistButALiveOneDoes() throws Exception {
        Process parent = new ProcessBuilder("sh", "-c", "sleep 600 & echo $!; kill -STOP $$").start();
        try {
            // a line, not a byte count: the stopped shell keeps its stdout open
            String line = new java.io.BufferedReader(new java.io.InputStreamReader(parent.getInputStream())).readLine();
            int child = Integer.parseInt(line.trim());
            assertTrue(Posix.processExists(child), "a sleeping process exists");
            assertTrue(Posix.processExists((int) parent.pid()), "a stopped process exists (it can run again)");
            new ProcessBuilder("kill", "-KILL", "" + child).start().waitFor(10, TimeUnit.SECONDS);
            // the stopped parent cannot reap it: the child is a zombie until the parent goes
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!Posix.isZombie(child) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(Posix.isZombie(child), "/proc shows the killed, unreaped child as a zombie");
            assertFalse(Posix.processExists(child), "a zombie does not exist for the liveness rules");
        } finally {
            parent.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
