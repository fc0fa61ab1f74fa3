"""Differential fuzzing of minidynamo: random NumPy/Python programs run eagerly and compiled (issue 6 §1).

generator.py writes the programs, runner.py runs and compares them (and shrinks failures), regressions/
holds shrunk reproducers of real bugs, replayed by test_regressions.py.
"""
