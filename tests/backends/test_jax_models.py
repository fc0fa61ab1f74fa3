"""The benchmark corpus (benchmarks/corpus: real NumPy code, 55 models) through compile(backend="jax"):
same exceptions and printed output as eager, results within the documented tolerance (jax_support.py),
inputs written the same way. Which graphs lowered whole is tabled by `python -m benchmarks.jax_backend`.
"""

from __future__ import annotations

import contextlib
import copy
import io

import numpy as np
import pytest

from tests.backends.jax_support import Recorder, assert_close, md

from benchmarks.corpus import MODELS     # noqa: E402

NAMES = [m.name for m in MODELS]


def _run(fn, args):
    np.random.seed(0)       # models that draw from np.random see the same stream on both sides
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            return fn(*args), None, out.getvalue()
        except Exception as e:        # noqa: BLE001  (compared with eager's)
            return None, e, out.getvalue()


@pytest.mark.parametrize("model", MODELS, ids=NAMES)
def test_model_with_jax_backend_matches_eager(model):
    fn = model.function("small")
    rec = Recorder()
    compiled = md.compile(fn, backend=rec, options={"suppress_errors": False})
    builders = [model.build] + ([model.other] if model.other is not None else [])
    for k, build in enumerate(builders):
        for seed in (0, 1):
            args = build("small", seed)
            eager_args, compiled_args = copy.deepcopy(args), copy.deepcopy(args)
            expected, e_exc, e_out = _run(fn, eager_args)
            got, c_exc, c_out = _run(compiled, compiled_args)
            where = f"{model.name} inputs {k} seed {seed}"
            assert type(c_exc) is type(e_exc) and str(c_exc) == str(e_exc), where
            if e_exc is None:
                assert_close(got, expected, where)
            assert_close(compiled_args, eager_args, f"{where}: arguments after the call")
            assert (c_out == e_out) or _same_numbers(c_out, e_out), where
    assert rec.plans, f"{model.name}: nothing was compiled"


def _same_numbers(a: str, b: str) -> bool:
    """Printed output equal up to the last digits of the floats it shows."""
    import re
    na, nb = re.findall(r"-?\d+\.\d+(?:e-?\d+)?", a), re.findall(r"-?\d+\.\d+(?:e-?\d+)?", b)
    return re.sub(r"-?\d+\.\d+(?:e-?\d+)?", "#", a) == re.sub(r"-?\d+\.\d+(?:e-?\d+)?", "#", b) and all(
        abs(float(x) - float(y)) <= 1e-4 * max(abs(float(y)), 1e-3) for x, y in zip(na, nb))
