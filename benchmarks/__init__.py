"""minidynamo's benchmarks (issue 5): `python -m benchmarks` runs every table, `--quick` at small sizes.

Modules: corpus/ (the NumPy programs), frontends.py (how trace, LazyRunner and compile run a model),
timing.py (interleaved timing, medians with IQR), table1.py, overhead.py, capture_scaling.py, torch_side.py
(optional TorchDynamo columns), report.py (Markdown and plots into results/). Timing lives here, never in tests.
"""
