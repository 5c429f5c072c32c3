#!/usr/bin/env python3
"""Generate the RTL package and register block, C header, Java constants, docs and vectors from
regmap/memchan.toml (the regmap package beside this file).

    python3 regmap/gen.py           write the generated files
    python3 regmap/gen.py --check   exit 1 (listing the files) when a generated file is stale, or
                                    (listing the lines) when code computes a shared layout by hand
    python3 regmap/gen.py uapi ...  the Java bindings of the driver's uapi header (--check, --manifest)

Standard library only (tomllib, Python 3.11+), so CI needs nothing beyond python3; uapi also needs
libclang's Python bindings (python3-clang).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from regmap.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv))
