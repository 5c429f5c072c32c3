import sys

from .cli import main

sys.exit(main(["python3 -m regmap"] + sys.argv[1:]))
