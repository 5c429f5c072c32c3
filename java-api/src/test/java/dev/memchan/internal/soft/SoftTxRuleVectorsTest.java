package dev.memchan.internal.soft;

import static dev.memchan.layout.Regs.SF_INIT_CAPS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.memchan.MemchanException;
import dev.memchan.MemchanException.Kind;

import java.io.IOException;
import java.nio.file.Files;

import org.junit.jupiter.api.Test;

/**
 * The soft fabric's check of a transmit PCT write (what SoftFabricBackend applies, and SoftFabricAdmin through PctRules) reproduces
 * every emulated-adapter row of regmap/vectors/tx-pct-rule.csv with its CAPS, as the ivshmem driver does in its
 * abi test (native/tests/abi_test.c tx_rule_vectors): OK accepted, EMULATED and CAPS refused as UNSUPPORTED
 * (the driver's EOPNOTSUPP), the rest as INVALID_ARGUMENT (EINVAL).
 */
class SoftTxRuleVectorsTest {
    @Test
    void emulatedAdapterRowsAreReproduced() throws IOException {
        int rows = 0;
        for (String line : Files.readAllLines(SoftFabricCrossCheckTest.ROOT.resolve("regmap/vectors/tx-pct-rule.csv"))) {
            String[] f = line.split(",");
            if (line.startsWith("#") || line.startsWith("tx_pct_rule,entry,") || !f[4].equals("1")
                    || Integer.parseUnsignedInt(f[3]) != (int) SF_INIT_CAPS) {
                continue;
            }
            int entry = Integer.parseUnsignedInt(f[1]);
            int maxNodes = Integer.parseInt(f[2]);
            String verdict = f[5];
            if (verdict.equals("OK")) {
                SoftFabricBackend.checkTxEntry(7, entry, 0, maxNodes, n -> 0);
            } else {
                MemchanException e = assertThrows(MemchanException.class,
                        () -> SoftFabricBackend.checkTxEntry(7, entry, 0, maxNodes, n -> 0), line);
                Kind want = verdict.equals("EMULATED") || verdict.equals("CAPS") ? Kind.UNSUPPORTED : Kind.INVALID_ARGUMENT;
                assertEquals(want, e.kind(), line + ": " + e.getMessage());
                assertTrue(e.getMessage().startsWith("transmit PCT entry for page 7: "), e.getMessage());
            }
            rows++;
        }
        assertTrue(rows > 300, "only " + rows + " emulated-adapter vectors with CAPS SF_INIT_CAPS");
    }
}
