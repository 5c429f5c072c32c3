"""regmap/vectors/*.csv: the derived values evaluated here, which the C and Java code reproduce."""
from .model import HEADER_NOTE


def geometry(geom):
    names = [d[0] for d in geom.derived]
    out = [f"# {HEADER_NOTE}",
           "# Soft-fabric geometry: for each creation request, the header field a validator refuses it",
           "# on (empty: valid), then PAGE_COUNT and the derived values. Java (SoftFabricCrossCheckTest)",
           "# and C (native/tools/mcfab-vectors) must reproduce every row exactly.",
           ",".join(("file_size", "page_size", "max_nodes", "refused", "page_count", *names))]
    v = geom.vectors
    for size in v["file_sizes"]:
        for ps in v["page_sizes"]:
            for nodes in v["max_nodes"]:
                refused, params, derived = geom.evaluate(size, ps, nodes)
                row = [size, ps, nodes, refused]
                row += [params["page_count"], *(derived[n] for n in names)] if not refused else [""] * (1 + len(names))
                out.append(",".join(str(x) for x in row))
    return "\n".join(out) + "\n"


def system_pages(sysp, meta):
    """Every offset function at both page sizes and the edges of its argument's range."""
    out = [f"# {HEADER_NOTE}",
           "# System-page offsets: function,page_size,argument,value. Java (SystemPagesVectorsTest) and",
           "# C (native/tools/mcfab-vectors) must reproduce every row exactly.",
           "function,page_size,argument,value"]
    for name, _, uses, _ in sysp.derived:
        arg = next((u for u in uses if u != "page_size"), None)
        for ps in sysp.page_sizes:
            limit = {"node": meta["max_nodes"], "max_nodes": meta["max_nodes"] + 1, "group": meta["multicast_groups"],
                     "index": sysp.value("region_capacity", page_size=ps), None: 1}[arg]
            for a in sorted({0, 1, limit - 1} & set(range(limit))):
                params = {"page_size": ps, arg: a} if arg else {"page_size": ps}
                out.append(f"{name},{ps},{a if arg else ''},{sysp.value(name, **params)}")
    return "\n".join(out) + "\n"


def tx_pct_rule(txr, meta, caps_all):
    """Every OP x CAS x DEST_KIND, DEST at the edges of each bound, on an emulated adapter and on boards
    with and without each OP's CAPS (and with an emulated adapter's CAPS: SF_INIT_CAPS, and with
    SF_DRIVER_CAPS added as the ivshmem driver reports them, which the driver's abi test looks up),
    for three cluster sizes (2, the soft fabric's default, the most); and each of them once with the
    lowest reserved bit set."""
    c = txr.constants
    out = [f"# {HEADER_NOTE}",
           "# Transmit PCT rule: tx_pct_rule,entry,max_nodes,caps,emulated,verdict (decimal). Java (TxPctRuleVectorsTest)",
           "# and C (native/tools/mcfab-vectors, through mc_tx_pct_rule) must reproduce every row exactly.",
           "tx_pct_rule,entry,max_nodes,caps,emulated,verdict"]
    needs = sorted({0, caps_all, c["SF_INIT_CAPS"], c["SF_INIT_CAPS"] | c["SF_DRIVER_CAPS"]}
                   | {need for *_, need in txr.ops.values()})
    for max_nodes in sorted({2, c["SF_DEFAULT_MAX_NODES"], meta["max_nodes"]}):
        for op in sorted(txr.ops):
            for cas in (0, c["TX_PCT_CAS_MASK"]):
                for kind in range(1 << txr.kind_width):
                    for dest in sorted({0, 1, max_nodes - 1, max_nodes, c["MULTICAST_GROUPS"] - 1, c["MULTICAST_GROUPS"]}):
                        e = (c["TX_PCT_TX_EN_MASK"] | op << c["TX_PCT_OP_SHIFT"] | cas | kind << c["TX_PCT_DEST_KIND_SHIFT"]
                             | (dest << c["TX_PCT_DEST_SHIFT"] & c["TX_PCT_DEST_MASK"]))
                        for emulated in (0, 1):
                            for caps in needs:
                                out.append(f"tx_pct_rule,{e},{max_nodes},{caps},{emulated},{txr.verdict(e, max_nodes, caps, emulated)}")
                        if dest == 1:  # a reserved bit beats every other verdict
                            reserved = ~txr.valid & 0xFFFFFFFF
                            r = e | reserved & -reserved
                            out.append(f"tx_pct_rule,{r},{max_nodes},{caps_all},0,{txr.verdict(r, max_nodes, caps_all, 0)}")
    return "\n".join(out) + "\n"
