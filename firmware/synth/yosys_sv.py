#!/usr/bin/env python3
"""Copy the RTL for yosys 0.23 (Debian 12), whose SystemVerilog front end cannot parse
`import pkg::*;` inside a module: drop the import and qualify every name the module takes
from the package (pkg::NAME). Nothing else changes; the RTL sources keep their imports.

    yosys_sv.py OUTDIR FILE...      writes OUTDIR/<basename> for every FILE, prints the list
"""
import re
import sys
from pathlib import Path


def package_names(text):
    """Every parameter, function and type a package declares (the generated register package has
    `logic [..]` and `int` constants, functions and a packed struct or word type per register)."""
    params = re.findall(r"localparam\s+(?:logic\s*\[[^\]]*\]|int(?:\s+unsigned)?)\s+(\w+)", text)
    funcs = re.findall(r"function\s+automatic\s+(?:(?:logic|bit)\s*(?:\[[^\]]*\])?\s*|int\s+)?(\w+)\s*\(", text)
    types = re.findall(r"typedef\s+(?:struct\s+packed\s*\{[^}]*\}|logic\s*\[[^\]]*\])\s*(\w+)\s*;", text)
    return params + funcs + types


def main(argv):
    out = Path(argv[1])
    out.mkdir(parents=True, exist_ok=True)
    files = [Path(f) for f in argv[2:]]
    pkgs = {}
    for f in files:
        m = re.search(r"^package\s+(\w+);", f.read_text(), re.M)
        if m:
            pkgs[m.group(1)] = package_names(f.read_text())
    for f in files:
        text = f.read_text()
        for pkg in re.findall(r"^\s*import\s+(\w+)::\*;\s*$", text, re.M):
            text = re.sub(r"^\s*import\s+" + pkg + r"::\*;\s*\n", "", text, flags=re.M)
            for name in sorted(pkgs[pkg], key=len, reverse=True):
                text = re.sub(r"(?<!::)(?<!\w)" + name + r"\b", pkg + "::" + name, text)
        (out / f.name).write_text(text)
        print(out / f.name)


if __name__ == "__main__":
    main(sys.argv)
