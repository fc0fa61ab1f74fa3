"""benchmarks/jax_steps.py: every candidate it times runs and gives what the backend gives (each variant the
runner chooses among returns the compiled function's result). Times nothing."""

from __future__ import annotations

import numpy as np

from benchmarks import jax_steps
from benchmarks.corpus import MODELS
from tests.backends.jax_support import assert_close


def test_each_candidate_runs_and_each_variant_gives_the_backends_result():
    model = next(m for m in MODELS if m.name == "layernorm")
    fn, args = model.function("large"), model.build("large", 0)      # 2 MB: staged variants too
    compiled, seen = jax_steps._recorded(fn)
    expected = compiled(*args)
    candidates = jax_steps.step_candidates(compiled, args, seen["run"], seen["inputs"])
    variants = [name for name in candidates if name.startswith("variant ")]
    assert len(variants) == 5 and {"step: magnitudes", "step: staging copy", "step: result check"} <= set(candidates)
    for name, call in candidates.items():
        got = call()
        if name in variants:
            assert_close(got[0], expected)
    assert np.array_equal(compiled(*args), expected)
