"""Tests of the regmap package (python3 -m unittest discover -s regmap/tests -t .)."""
