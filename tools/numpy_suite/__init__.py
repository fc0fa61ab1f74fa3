"""Run (a chosen subset of) NumPy's own test suite with every test function wrapped in minidynamo.compile().

`plugin.py` is the pytest plugin (`-p tools.numpy_suite.plugin --minidynamo`); `run.py` runs a subset eagerly
and compiled in subprocesses and reports the share of eagerly passing tests that still pass compiled.
See README.md in this folder for the command and the last measured figures.
"""
