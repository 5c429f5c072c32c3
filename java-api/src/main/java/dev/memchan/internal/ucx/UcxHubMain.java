package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.layout.Regs;

import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;

/**
 * The hub of a {@code ucx://HOST:PORT/NAME} fabric as a process:
 * {@code UcxHubMain HOST:PORT [--fabric-size BYTES] [--page-size BYTES] [--max-nodes N]} (the geometry defaults
 * are the soft fabric's; PORT 0 takes a free port). Prints {@code hub listening at HOST:PORT} once it listens,
 * then serves until it is terminated. Exit status 2 for bad arguments, 1 when it cannot listen.
 */
public final class UcxHubMain {
    private UcxHubMain() {
    }

    /** HOST:PORT (an IPv6 HOST in brackets) as the address to listen at; INVALID_ARGUMENT when it is not one. */
    static InetSocketAddress listenAddress(String text) {
        int colon = text.lastIndexOf(':');
        String port = colon < 0 ? "" : text.substring(colon + 1);
        if (colon < 1 || !port.matches("[0-9]{1,5}") || Integer.parseInt(port) > 65535) {
            throw new MemchanException(MemchanException.Kind.INVALID_ARGUMENT, "listen address '" + text + "' is not HOST:PORT (PORT 0..65535)");
        }
        UcxLocation at = new UcxLocation(text.substring(0, colon).replaceAll("^\\[|]$", ""), Integer.parseInt(port), "hub");
        return at.hubAddress();
    }

    public static void main(String[] args) throws InterruptedException {
        long fabricSize = Regs.SF_DEFAULT_FILE_SIZE;
        int pageSize = Regs.SF_DEFAULT_PAGE_SIZE;
        int maxNodes = Regs.SF_DEFAULT_MAX_NODES;
        String listen = null;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--fabric-size" -> fabricSize = Long.parseLong(args[++i]);
                    case "--page-size" -> pageSize = Integer.parseInt(args[++i]);
                    case "--max-nodes" -> maxNodes = Integer.parseInt(args[++i]);
                    default -> {
                        if (listen != null || args[i].startsWith("-")) {
                            throw new IllegalArgumentException("unexpected argument " + args[i]);
                        }
                        listen = args[i];
                    }
                }
            }
            if (listen == null) {
                throw new IllegalArgumentException("no HOST:PORT to listen at");
            }
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            System.err.println("usage: UcxHubMain HOST:PORT [--fabric-size BYTES] [--page-size BYTES] [--max-nodes N]: " + e.getMessage());
            System.exit(2);
            return;
        }
        UcxHub hub;
        try {
            InetSocketAddress address = listenAddress(listen);
            hub = new UcxHub(address, fabricSize, pageSize, maxNodes, UcxBackend.transportSettings(address));
        } catch (MemchanException e) {
            System.err.println("memchan hub: " + e.getMessage());
            System.exit(1);
            return;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            hub.close();
            stopped.countDown();
        }));
        InetSocketAddress bound = hub.address();
        System.out.println("hub listening at " + bound.getAddress().getHostAddress() + ":" + bound.getPort());
        System.out.flush();
        stopped.await();
    }
}
