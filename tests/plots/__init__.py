"""Tests of plots/; a package so that `-m unittest discover -s tests/plots -t .` can import them."""
