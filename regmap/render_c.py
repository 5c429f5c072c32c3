"""The C header memchan_regs.h: constants, then the derived values as static inline functions."""
import ast

from .formulas import TX_RULE_VERDICTS
from .model import HEADER_NOTE, fmt_hex


def derived(f):
    p = lambda uses: ", ".join(f"unsigned long long {u}" for u in uses)
    out = []
    for name, tree, uses, desc in f.derived:
        out += [f"/* {desc} */", f"static inline unsigned long long mc_{f.family}_{name}({p(uses)})", "{",
                f"\treturn {f.render(tree, 'c')};", "}", ""]
    return out


def geometry(geom):
    p = lambda uses: ", ".join(f"unsigned long long {u}" for u in uses)
    out = ["/* Soft fabric geometry (regmap/memchan.toml [soft_fabric] derived, page_count, rule) */",
           "static inline unsigned long long mc_align(unsigned long long v, unsigned long long a)",
           "{", "\treturn (v + a - 1) & ~(a - 1);", "}", "",
           "static inline int mc_is_pow2(unsigned long long v)", "{", "\treturn v && !(v & (v - 1));", "}", "",
           "static inline int mc_page_size_allowed(unsigned long long v)", "{",
           "\treturn " + " || ".join(f"v == {ps}" for ps in geom.page_sizes) + ";", "}", ""]
    out += derived(geom)
    fit_uses = geom.params_of(geom.fits)
    call = ", ".join(u if u != "page_count" else "mid" for u in fit_uses)
    out += [f"/* {ast.unparse(geom.fits)} */", f"static inline int mc_sf_fits({p(fit_uses)})", "{",
            f"\treturn {geom.render(geom.fits, 'c')};", "}", ""]
    out += ["/* PAGE_COUNT: the largest count in 0..MAX_PAGES whose data pages fit */",
            "static inline unsigned int mc_sf_page_count(unsigned long long file_size, "
            "unsigned long long page_size, unsigned long long max_nodes)",
            "{", "\tunsigned int lo = 0, hi = MC_MAX_PAGES, mid;", "",
            "\twhile (lo < hi) {", "\t\tmid = (lo + hi + 1) / 2;",
            f"\t\tif (mc_sf_fits({call}))", "\t\t\tlo = mid;", "\t\telse", "\t\t\thi = mid - 1;",
            "\t}", "\treturn lo;", "}", ""]
    out += ["/* The header field a request (file_size, page_size, max_nodes) is refused on, or NULL when valid */",
            "static inline const char *mc_sf_geometry_problem(unsigned long long file_size, "
            "unsigned long long page_size, unsigned long long max_nodes)",
            "{", "\tunsigned long long page_count = mc_sf_page_count(file_size, page_size, max_nodes);", ""]
    for field, tree, _ in geom.rules:
        out += [f"\tif {geom.render(tree, 'c')}", f'\t\treturn "{field}";']
    out += ["\treturn NULL;", "}", ""]
    out += ["/* The OWNER word of a node block (soft_fabric.owner fields) */",
            "static inline unsigned long long mc_sf_owner_word(unsigned long long incarnation, unsigned int pid)",
            "{", "\treturn ((incarnation << MC_SF_OWNER_INCARNATION_SHIFT) & MC_SF_OWNER_INCARNATION_MASK) |",
            "\t       (((unsigned long long)pid << MC_SF_OWNER_PID_SHIFT) & MC_SF_OWNER_PID_MASK);", "}", "",
            "static inline unsigned int mc_sf_owner_pid(unsigned long long owner)", "{",
            "\treturn (owner & MC_SF_OWNER_PID_MASK) >> MC_SF_OWNER_PID_SHIFT;", "}", "",
            "static inline unsigned long long mc_sf_owner_incarnation(unsigned long long owner)", "{",
            "\treturn (owner & MC_SF_OWNER_INCARNATION_MASK) >> MC_SF_OWNER_INCARNATION_SHIFT;", "}", "",
            "/* The INCARNATION a claim stores after incarnation: the next value OWNER holds, never 0 */",
            "static inline unsigned long long mc_sf_next_incarnation(unsigned long long incarnation)", "{",
            "\tunsigned long long next = mc_sf_owner_incarnation(mc_sf_owner_word(incarnation + 1, 0));", "",
            "\treturn next ? next : 1;", "}", ""]
    return out


def system_pages(sysp):
    return ["/* System pages: offsets from network page 0 (regmap/memchan.toml [system] derived) */"] + \
        derived(sysp)


def tx_pct_rule(txr):
    ops = sorted(txr.ops.items())
    out = ["/*", " * Transmit PCT rule (regmap/memchan.toml [tx_pct_rule]): the MC_TX_RULE_* verdict for a",
           " * user's entry on an adapter of max_nodes nodes with CAPS caps; emulated: soft fabric or ivshmem.",
           " */",
           "static inline unsigned int mc_tx_pct_rule(unsigned int e, unsigned int max_nodes, unsigned int caps, int emulated)",
           "{",
           "\tunsigned int op = (e & MC_TX_PCT_OP_MASK) >> MC_TX_PCT_OP_SHIFT;",
           "\tunsigned int kind = (e & MC_TX_PCT_DEST_KIND_MASK) >> MC_TX_PCT_DEST_KIND_SHIFT;",
           "\tunsigned int dest = (e & MC_TX_PCT_DEST_MASK) >> MC_TX_PCT_DEST_SHIFT;",
           "\tunsigned int kinds, need, below;", "",
           "\tif (e & ~MC_TX_PCT_VALID_MASK)", "\t\treturn MC_TX_RULE_RESERVED;",
           "\tif ((e & MC_TX_PCT_CAS_MASK) && !((MC_TX_RULE_CAS_OPS >> op) & 1))", "\t\treturn MC_TX_RULE_CAS;",
           "\tswitch (op) {"]
    for value, (name, *_) in ops:
        out += [f"\tcase MC_OP_{name}:", f"\t\tkinds = MC_TX_RULE_DEST_KINDS_{name};",
                f"\t\tneed = MC_TX_RULE_CAPS_{name};", "\t\tbreak;"]
    out += ["\tdefault:", "\t\treturn MC_TX_RULE_RESERVED;", "\t}",
            "\tif (!((kinds >> kind) & 1))", "\t\treturn MC_TX_RULE_DEST_KIND;", "\tswitch (kind) {"]
    for name, bound in txr.bounds("MC_", "max_nodes"):
        out += [f"\tcase MC_DEST_KIND_{name}:", f"\t\tbelow = {bound};", "\t\tbreak;"]
    out += ["\tdefault:", "\t\treturn MC_TX_RULE_DEST_KIND;", "\t}",
            "\tif (dest >= below)", "\t\treturn MC_TX_RULE_DEST_RANGE;",
            "\tif (emulated && !((MC_TX_RULE_EMULATED_OPS >> op) & 1))", "\t\treturn MC_TX_RULE_EMULATED;",
            "\tif ((caps & need) != need)", "\t\treturn MC_TX_RULE_CAPS;",
            "\treturn MC_TX_RULE_OK;", "}", "",
            "/* a verdict's name, as in regmap/vectors/tx-pct-rule.csv */",
            "static inline const char *mc_tx_rule_name(unsigned int verdict)", "{", "\tswitch (verdict) {"]
    for v in TX_RULE_VERDICTS:
        out += [f"\tcase MC_TX_RULE_{v}:", f"\t\treturn \"{v}\";"]
    out += ["\tdefault:", "\t\treturn NULL;", "\t}", "}", ""]
    return out


def header(c, geom, sysp, txr):
    out = [f"/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */", f"/* {HEADER_NOTE} */",
           "#ifndef MEMCHAN_REGS_H", "#define MEMCHAN_REGS_H", "",
           "/* NULL for the kernel, C and C++ (the co-simulation harness includes this header too) */",
           "#ifdef __KERNEL__", "#include <linux/stddef.h>", "#else", "#include <stddef.h>", "#endif", ""]

    def define(name, value, width, comment):
        suffix = "ULL" if width > 32 or value >= 1 << 32 else "U"
        note = f" /* {comment.replace('*/', '* /')} */" if comment else ""
        return f"#define MC_{name} {fmt_hex(value)}{suffix}{note}"
    out += c.render(lambda title: f"/* {title} */", define)
    out += geometry(geom)
    out += system_pages(sysp)
    out += tx_pct_rule(txr)
    out.append("#endif /* MEMCHAN_REGS_H */")
    return "\n".join(out) + "\n"
