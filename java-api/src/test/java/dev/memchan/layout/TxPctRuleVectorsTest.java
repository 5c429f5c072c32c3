package dev.memchan.layout;

import static dev.memchan.layout.Regs.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * Java reproduces every row of regmap/vectors/tx-pct-rule.csv, which gen.py evaluates from regmap/memchan.toml
 * [tx_pct_rule] (native/tools/mcfab-vectors reproduces them with the driver's C function: see
 * SoftFabricCrossCheckTest): through the generated check, and through TxPct's words for it, which callers use.
 */
class TxPctRuleVectorsTest {
    static final Path VECTORS = Path.of(System.getProperty("user.dir")).getParent().resolve("regmap/vectors/tx-pct-rule.csv");

    private enum Verdict { OK, RESERVED, CAS, DEST_KIND, DEST_RANGE, EMULATED, CAPS }

    @Test
    void javaReproducesTheGeneratedVectors() throws IOException {
        int rows = 0;
        Set<Verdict> seen = EnumSet.noneOf(Verdict.class);
        for (String line : Files.readAllLines(VECTORS)) {
            if (line.startsWith("#") || line.startsWith("tx_pct_rule,entry,")) {
                continue;
            }
            String[] f = line.split(",");
            int entry = Integer.parseUnsignedInt(f[1]);
            int maxNodes = Integer.parseInt(f[2]);
            int caps = Integer.parseUnsignedInt(f[3]);
            boolean emulated = f[4].equals("1");
            Verdict want = Verdict.valueOf(f[5]);
            int verdict = TxPctRule.check(entry, maxNodes, caps, emulated);
            assertEquals(want.name(), TxPctRule.name(verdict), line);
            assertEquals(want == Verdict.OK, TxPct.problem(entry, maxNodes, caps, emulated) == null, line);
            assertEquals(want == Verdict.EMULATED || want == Verdict.CAPS, TxPct.unsupported(entry, maxNodes, caps, emulated), line);
            seen.add(want);
            rows++;
        }
        assertTrue(rows > 1000, "only " + rows + " vectors in " + VECTORS);
        assertEquals(EnumSet.allOf(Verdict.class), seen, "every verdict has vectors");
        assertEquals(TX_RULE_CAPS, Verdict.CAPS.ordinal(), "the verdict codes are the vectors' order");
    }
}
