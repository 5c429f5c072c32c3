package dev.memchan.internal.ucx;

import dev.memchan.MemchanException;
import dev.memchan.layout.Regs;

import java.net.InetSocketAddress;
import java.util.concurrent.CountDownLatch;

/**
 * The hub of a {@code ucx://HOST:PORT/NAME} fabric as a process:
 * {@code UcxHubMain HOST:PORT NAME [--secret FILE] [--fabric-size BYTES] [--page-size BYTES] [--max-nodes N]
 * [--standby-of PRIMARY_HOST:PRIMARY_PORT]}: the hub of {@code ucx://HOST:PORT/NAME}, admitting the nodes that hold
 * the secret in FILE (else the file the environment variable {@code MEMCHAN_UCX_SECRET} names); the geometry
 * defaults are the soft fabric's; PORT 0 takes a free port. With {@code --standby-of}, the standby of the hub there
 * ({@link UcxHub#standby}: the primary's geometry, not the options'). Prints {@code hub listening at HOST:PORT}
 * ({@code standby hub listening at HOST:PORT} for a standby) once it listens, then serves until it is
 * terminated. Exit status 2 for bad arguments, 1 when it cannot listen, the secret file is refused or the primary
 * refuses the standby.
 */
public final class UcxHubMain {
    private UcxHubMain() {
    }

    /** HOST:PORT (an IPv6 HOST in brackets) as the address to listen at; INVALID_ARGUMENT when it is not one. */
    public static InetSocketAddress listenAddress(String text) {
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
        String name = null;
        String secretFile = System.getenv(UcxBackend.SECRET_ENVIRONMENT);
        String standbyOf = null;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--fabric-size" -> fabricSize = Long.parseLong(args[++i]);
                    case "--page-size" -> pageSize = Integer.parseInt(args[++i]);
                    case "--max-nodes" -> maxNodes = Integer.parseInt(args[++i]);
                    case "--secret" -> secretFile = args[++i];
                    case "--standby-of" -> standbyOf = args[++i];
                    default -> {
                        if (name != null || args[i].startsWith("-")) {
                            throw new IllegalArgumentException("unexpected argument " + args[i]);
                        }
                        if (listen == null) {
                            listen = args[i];
                        } else {
                            name = args[i];
                        }
                    }
                }
            }
            if (name == null) {
                throw new IllegalArgumentException("HOST:PORT and NAME are needed");
            }
            if (secretFile == null) {
                throw new IllegalArgumentException("no secret file: --secret FILE or " + UcxBackend.SECRET_ENVIRONMENT);
            }
        } catch (IllegalArgumentException | ArrayIndexOutOfBoundsException e) {
            System.err.println("usage: UcxHubMain HOST:PORT NAME [--secret FILE] [--fabric-size BYTES] [--page-size BYTES] [--max-nodes N] "
                    + "[--standby-of HOST:PORT]: "
                    + e.getMessage());
            System.exit(2);
            return;
        }
        UcxHub hub;
        try {
            InetSocketAddress address = listenAddress(listen);
            UcxLocation.checkName(name);
            JoinSecret secret = JoinSecret.load(java.nio.file.Path.of(secretFile));
            hub = standbyOf == null ? new UcxHub(address, name, secret, fabricSize, pageSize, maxNodes, UcxBackend.transportSettings(address))
                    : UcxHub.standby(address, name, secret, listenAddress(standbyOf), UcxBackend.transportSettings(address));
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
        System.out.println((standbyOf == null ? "" : "standby ") + "hub listening at "
                + bound.getAddress().getHostAddress() + ":" + bound.getPort());
        System.out.flush();
        stopped.await();
    }
}
