#!/usr/bin/env python3
"""Writes the vendor IP's simulation models for the board-top bench (tb_au50.sv) into OUTDIR:
each model is its body here (NAME.body.sv, unisim/NAME.body.sv) under the port list of the stub
the lint and the elaboration use (../ip_stubs/NAME.sv, ../ip_stubs/unisim/NAME.sv), so that a
model's ports are the stub's, typed once. It takes an ANSI header (`module NAME (` ... `);` with
the port declarations inside); a stub whose header is not one (Vivado's generated stubs declare
their ports after it) is refused by name.

usage: au50_models.py OUTDIR
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STUBS = os.path.join(HERE, "..", "ip_stubs")
MARK = "// (the port list: the stub's in ip_stubs/, put here by au50_models.py)\n"


def header(stub, name):
    """the stub's module header, from `module NAME` to the `);` that closes its port list"""
    m = re.search(r"^module\s+%s\b.*?^\);\n" % re.escape(name), stub, re.S | re.M)
    if not m:
        sys.exit("au50_models.py: the stub of %s has no ANSI module header ending in a line ');'" % name)
    return m.group(0)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    written = 0
    for sub in ("", "unisim"):
        for f in sorted(os.listdir(os.path.join(HERE, sub))):
            if not f.endswith(".body.sv"):
                continue
            name = f[:-len(".body.sv")]
            with open(os.path.join(HERE, sub, f)) as fh:
                body = fh.read()
            if body.count(MARK) != 1:
                sys.exit("au50_models.py: %s has no single port-list marker" % f)
            with open(os.path.join(STUBS, sub, name + ".sv")) as fh:
                stub = fh.read()
            with open(os.path.join(out, name + ".sv"), "w") as fh:
                fh.write(body.replace(MARK, header(stub, name)))
            written += 1
    print("au50_models.py: %d models in %s" % (written, out))


if __name__ == "__main__":
    main()
