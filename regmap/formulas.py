"""Derived values of the register map: the formula language of [soft_fabric] and [system] derived
(parsed and checked ASTs, rendered to C, Java and Python by one function), the soft-fabric geometry, the
system pages and the transmit PCT rule, each evaluated here for the vectors the C and Java code reproduce."""
import ast

from .model import bits


PARAMS = ("file_size", "page_size", "page_count", "max_nodes", "node", "group", "index")
PRIMITIVES = {"align": 2, "is_pow2": 1, "page_size_allowed": 1}


def camel(name):
    head, *rest = name.split("_")
    return head + "".join(w.capitalize() for w in rest)


class Formulas:
    """A list of derived values ([[X.derived]] name, expr, desc) as checked ASTs, rendered to C as
    mc_FAMILY_NAME() and to Java as camelCase static methods."""

    def __init__(self, rm, constants, family, section):
        self.family = family
        self.constants = constants
        self.page_sizes = rm["meta"]["page_sizes"]
        self.derived = []                   # (name, ast, params used, desc)
        self.uses = {}                      # name -> params it needs (transitively), in PARAMS order
        for d in section["derived"]:
            tree = self.parse(d["expr"], d["name"])
            self.uses[d["name"]] = self.params_of(tree)
            self.derived.append((d["name"], tree, self.uses[d["name"]], d["desc"]))

    def parse(self, text, where):
        tree = ast.parse(text, mode="eval").body
        called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        for node in ast.walk(tree):
            if id(node) in called:
                continue
            if isinstance(node, ast.Name):
                n = node.id
                if not (n in PARAMS or n in self.uses or n in self.constants):
                    raise SystemExit(f"{self.family} {where}: unknown name {n}")
            elif isinstance(node, ast.Call):
                if not isinstance(node.func, ast.Name) or PRIMITIVES.get(node.func.id) != len(node.args):
                    raise SystemExit(f"{self.family} {where}: unknown function {ast.unparse(node)}")
            elif not isinstance(node, (ast.BinOp, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Compare, ast.Lt, ast.LtE,
                                       ast.Gt, ast.GtE, ast.Eq, ast.NotEq, ast.BoolOp, ast.And, ast.Or,
                                       ast.UnaryOp, ast.Not, ast.Constant, ast.Load)):
                raise SystemExit(f"{self.family} {where}: {type(node).__name__} not in the formula language")
        return tree

    def params_of(self, tree):
        used = set()
        called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and id(node) not in called:
                if node.id in PARAMS:
                    used.add(node.id)
                elif node.id in self.uses:
                    used.update(self.uses[node.id])
        return tuple(p for p in PARAMS if p in used)

    # one renderer, three dialects
    def render(self, node, lang):
        r = lambda n: self.render(n, lang)
        if isinstance(node, ast.Constant):
            return str(node.value) + ("ULL" if lang == "c" else "L" if lang == "java" else "")
        if isinstance(node, ast.Name):
            n = node.id
            if n in PARAMS:
                return n if lang != "java" else camel(n)
            if n in self.uses:
                args = ", ".join(p if lang != "java" else camel(p) for p in self.uses[n])
                return {"c": f"mc_{self.family}_{n}({args})", "java": f"{camel(n)}({args})", "py": f"{n}({args})"}[lang]
            return {"c": f"MC_{n}", "java": f"Regs.{n}", "py": n}[lang]
        if isinstance(node, ast.Call):
            f = node.func.id
            args = ", ".join(r(a) for a in node.args)
            return {"c": f"mc_{f}({args})", "java": f"{camel(f)}({args})", "py": f"{f}({args})"}[lang]
        if isinstance(node, ast.BinOp):
            op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//" if lang == "py" else "/"}[type(node.op)]
            return f"({r(node.left)} {op} {r(node.right)})"
        if isinstance(node, ast.Compare):
            ops = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
            if len(node.ops) != 1:
                raise SystemExit("chained comparisons are not in the formula language")
            return f"({r(node.left)} {ops[type(node.ops[0])]} {r(node.comparators[0])})"
        if isinstance(node, ast.BoolOp):
            op = {ast.And: {"c": "&&", "java": "&&", "py": "and"}, ast.Or: {"c": "||", "java": "||", "py": "or"}}
            return "(" + f" {op[type(node.op)][lang]} ".join(r(v) for v in node.values) + ")"
        if isinstance(node, ast.UnaryOp):
            return ("(not " if lang == "py" else "(!") + r(node.operand) + ")"
        raise SystemExit(f"cannot render {ast.dump(node)}")


    def value(self, name, **params):
        """Evaluates derived value {name} for these parameters (for gen.py's own checks)."""
        env = dict(self.constants)
        env["align"] = lambda v, a: (v + a - 1) & ~(a - 1)
        for n, tree, uses, _ in self.derived:
            env[n] = eval(f"lambda {', '.join(uses)}: {self.render(tree, 'py')}", env)  # noqa: S307
        return env[name](*(params[p] for p in self.uses[name]))


class Geometry(Formulas):
    """The [soft_fabric] derived values, page-count rule and refusal rules as checked ASTs."""

    def __init__(self, rm, constants):
        sf = rm["soft_fabric"]
        super().__init__(rm, constants, "sf", sf)
        self.fits = self.parse(sf["page_count"]["fits"], "page_count.fits")
        self.rules = []
        for r in sf["rule"]:
            tree = self.parse(r["bad"], "rule " + r["field"])
            says = r["says"].format(page_sizes=" or ".join(str(p) for p in self.page_sizes), **constants)
            self.rules.append((r["field"], tree, says))
        self.vectors = sf["vectors"]

    # the evaluator behind the vectors: the same ASTs, Python integers checked to stay in 64 bits
    def evaluate(self, file_size, page_size, max_nodes):
        env = dict(self.constants)
        u64 = lambda v: v if 0 <= v < 1 << 64 else (_ for _ in ()).throw(SystemExit(f"overflow {v}"))
        env["align"] = lambda v, a: u64((v + a - 1) & ~(a - 1))
        env["is_pow2"] = lambda v: v != 0 and v & (v - 1) == 0
        env["page_size_allowed"] = lambda v: v in self.page_sizes
        params = {"file_size": file_size, "page_size": page_size, "max_nodes": max_nodes}
        for name, tree, uses, _ in self.derived:
            env[name] = eval(f"lambda {', '.join(uses)}: {self.render(tree, 'py')}", env)  # noqa: S307
        fits = eval(f"lambda {', '.join(self.params_of(self.fits))}: {self.render(self.fits, 'py')}", env)
        lo, hi = 0, env["MAX_PAGES"]
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if fits(**{p: v for p, v in {**params, "page_count": mid}.items() if p in self.params_of(self.fits)}):
                lo = mid
            else:
                hi = mid - 1
        params["page_count"] = lo
        for field, tree, _ in self.rules:
            if eval(self.render(tree, "py"), {**env, **params}):  # noqa: S307
                return field, params, {}
        return "", params, {name: env[name](*(params[p] for p in uses)) for name, _, uses, _ in self.derived}


class SystemPages(Formulas):
    """[system]: offsets of the system pages, their fields and packed words, as C and a Java descriptor."""

    WORDS = ("region_flags", "region_route")

    def __init__(self, rm, constants):
        self.sysm = rm["system"]
        super().__init__(rm, constants, "sys", self.sysm)
        self.check(rm)

    def check(self, rm):
        """The layout's own consistency: every table fits where the formulas put it, for every page size."""
        sysm, meta = self.sysm, rm["meta"]
        for ps in self.page_sizes:
            ends = {
                "lock bids": (self.value("lock_bid", page_size=ps, node=meta["max_nodes"]), (sysm["lock_page"] + 1) * ps),
                "membership slots": (self.value("member_slot", page_size=ps, node=meta["max_nodes"]),
                                     (sysm["membership_page"] + 1) * ps),
                "multicast groups": (self.value("mcast_group", page_size=ps, group=meta["multicast_groups"]),
                                     (sysm["directory_page"] + 1) * ps),
                "region entries": (self.value("region_entry", page_size=ps,
                                              index=self.value("region_capacity", page_size=ps)), sysm["pages"] * ps),
            }
            for what, (end, limit) in ends.items():
                if end > limit:
                    raise SystemExit(f"system pages: {what} end at {end}, beyond {limit} with {ps}-byte pages")
        groups = next(f for f in sysm["directory"] if f["name"] == "MCAST_GROUPS")
        if groups["size"] != meta["multicast_groups"] * sysm["mcast_group_entry_size"]:
            raise SystemExit("directory MCAST_GROUPS size is not multicast_groups x mcast_group_entry_size")
        for table, size in (("membership", sysm["membership_slot_size"]), ("region", sysm["region_entry_size"])):
            spans = sorted((f["offset"], f["offset"] + f["size"], f["name"]) for f in sysm[table])
            for (a0, a1, an), (b0, _, bn) in zip(spans, spans[1:]):
                if b0 < a1:
                    raise SystemExit(f"system {table}: {an} overlaps {bn}")
            if spans[-1][1] > size or any(o % min(sz, 8) for o, e, _ in spans for sz in [e - o]):
                raise SystemExit(f"system {table}: a field is misaligned or beyond {size} bytes")


TX_RULE_VERDICTS = ("OK", "RESERVED", "CAS", "DEST_KIND", "DEST_RANGE", "EMULATED", "CAPS")


class TxPctRule:
    def __init__(self, rm, c, constants):
        fields = {f["name"]: f for f in rm["tx_pct"]["field"]}
        self.op_values = fields["OP"]["values"]
        self.kind_values = fields["DEST_KIND"]["values"]
        caps = {f["name"]: bits(f["bits"]) for r in rm["register"] if r["name"] == "CAPS" for f in r["field"]}
        rule = rm["tx_pct_rule"]
        if sorted(o["op"] for o in rule["op"]) != sorted(self.op_values):
            raise SystemExit("tx_pct_rule.op: one entry per tx_pct OP value, no more")
        if sorted(k["kind"] for k in rule["dest_kind"]) != sorted(self.kind_values):
            raise SystemExit("tx_pct_rule.dest_kind: one entry per tx_pct DEST_KIND value, no more")
        self.valid = constants["TX_PCT_VALID_MASK"]
        self.ops = {}
        for o in rule["op"]:
            kinds = 0
            for k in o["dest_kinds"]:
                kinds |= 1 << self.kind_values[k]
            need = 0
            for name in o["caps"]:
                lsb, w = caps[name]
                need |= ((1 << w) - 1) << lsb
            self.ops[self.op_values[o["op"]]] = (o["op"], kinds, o["cas"], o["emulated"], need)
        self.below = {}  # kind -> (the bound as written: max_nodes, a number or a constant name; its value or None)
        for k in rule["dest_kind"]:
            b = k["dest_below"]
            if b != "max_nodes" and not isinstance(b, int) and b not in constants:
                raise SystemExit(f"tx_pct_rule.dest_kind {k['kind']}: dest_below {b!r} is neither max_nodes, a number nor a constant")
            self.below[self.kind_values[k["kind"]]] = (b, None if b == "max_nodes" else (b if isinstance(b, int) else constants[b]))
        self.kind_width = bits(fields["DEST_KIND"]["bits"])[1]
        c.section("Transmit PCT rule (tx_pct_rule): what an entry's OP needs; verdicts of mc_tx_pct_rule / TxPctRule.check")
        for i, v in enumerate(TX_RULE_VERDICTS):
            c.add(f"TX_RULE_{v}", i, 32, "verdict: " + ("a usable entry" if i == 0 else v.lower().replace("_", " ")))
        cas_ops = emulated_ops = 0
        for value, (name, kinds, cas, emulated, need) in sorted(self.ops.items()):
            c.add(f"TX_RULE_DEST_KINDS_{name}", kinds, 32, f"DEST_KINDs OP {name} may address (bit k: kind k)")
            c.add(f"TX_RULE_CAPS_{name}", need, 32, f"CAPS bits OP {name} needs")
            cas_ops |= cas << value
            emulated_ops |= emulated << value
        c.add("TX_RULE_CAS_OPS", cas_ops, 32, "OPs that may carry the CAS bit (bit n: OP n)")
        c.add("TX_RULE_EMULATED_OPS", emulated_ops, 32, "OPs an emulated adapter serves (bit n: OP n)")
        self.constants = constants

    def verdict(self, e, max_nodes, caps, emulated):
        """The reference evaluation: the order of TX_RULE_VERDICTS."""
        if e & ~self.valid:
            return "RESERVED"
        op = (e & self.constants["TX_PCT_OP_MASK"]) >> self.constants["TX_PCT_OP_SHIFT"]
        kind = (e & self.constants["TX_PCT_DEST_KIND_MASK"]) >> self.constants["TX_PCT_DEST_KIND_SHIFT"]
        dest = (e & self.constants["TX_PCT_DEST_MASK"]) >> self.constants["TX_PCT_DEST_SHIFT"]
        name, kinds, cas, ok_emulated, need = self.ops[op]
        if e & self.constants["TX_PCT_CAS_MASK"] and not cas:
            return "CAS"
        if not kinds >> kind & 1:
            return "DEST_KIND"
        below = self.below[kind][1]
        if dest >= (max_nodes if below is None else below):
            return "DEST_RANGE"
        if emulated and not ok_emulated:
            return "EMULATED"
        if caps & need != need:
            return "CAPS"
        return "OK"

    def bounds(self, prefix, max_nodes):
        """(DEST_KIND name, DEST's bound in C or Java: the parameter, a number or a generated constant)."""
        out = []
        for kind, (raw, _) in sorted(self.below.items()):
            name = next(n for n, v in self.kind_values.items() if v == kind)
            out.append((name, max_nodes if raw == "max_nodes" else (str(raw) if isinstance(raw, int) else prefix + raw)))
        return out
