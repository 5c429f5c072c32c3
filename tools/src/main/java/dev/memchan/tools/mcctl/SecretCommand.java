package dev.memchan.tools.mcctl;

import dev.memchan.admin.Hub;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;

/** {@code mcctl secret create FILE}: a ucx:// fabric's join secret. */
@Command(name = "secret", mixinStandardHelpOptions = true,
        description = "The secret a ucx:// fabric's nodes prove they hold to join its hub (never sent on the wire).",
        footerHeading = "%nExamples:%n", footer = {"  mcctl secret create ~/.memchan/lab.secret"},
        subcommands = SecretCommand.Create.class)
final class SecretCommand {
    @Command(name = "create", mixinStandardHelpOptions = true,
            description = {"Write a new random secret to FILE with mode 0600; an existing FILE is refused. Copy it to "
                    + "every host of the fabric: 'mcctl hub --secret FILE', and nodes read it from the system property "
                    + "memchan.ucx.secret or the environment variable MEMCHAN_UCX_SECRET."},
            footerHeading = "%nExamples:%n", footer = {"  mcctl secret create ~/.memchan/lab.secret"})
    static final class Create extends Base {
        @Parameters(index = "0", paramLabel = "FILE", description = "The file to create.")
        Path file;

        @Override
        public Integer call() {
            Hub.createSecret(file);
            if (json()) {
                printJson(Json.obj("secret", file.toString()));
            } else {
                out().println("secret written to " + file + " (mode 0600)");
                out().flush();
            }
            return Exit.OK;
        }
    }
}
