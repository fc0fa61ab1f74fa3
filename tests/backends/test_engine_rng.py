"""The program's global random streams are the same with and without an engine backend (engine_rng.py):
importing jax draws from NumPy's global RandomState, and the backends import their engine on the first
graph they compile. Each program runs in a fresh interpreter, so that import really is the first."""

from __future__ import annotations

import json
import os
import pathlib
import random
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from minidynamo.backends.engine_rng import kept_global_rng
from tests.extras import require

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Seeds both global streams, compiles two functions with the backend named in argv (one that draws inside
# its graph, one lowered whole), calls each twice, then draws again; prints everything it drew and computed.
PROGRAM = textwrap.dedent("""
    import json, random, sys
    import numpy as np
    import minidynamo as md
    backend = sys.argv[1]
    engines_before = sorted(m for m in ("jax", "dask") if m in sys.modules)
    np.random.seed(7)
    random.seed(7)

    def dropout(x):
        keep = np.random.uniform(size=x.shape) > 0.3
        return x * keep / 0.7

    def layer(x, w):
        return np.tanh(x @ w) + 1.0

    x, w = np.linspace(-1, 1, 24).reshape(4, 6), np.linspace(0, 2, 18).reshape(6, 3)
    d, f = md.compile(dropout, backend=backend), md.compile(layer, backend=backend)
    out = [d(x).tolist(), f(x, w).tolist(), d(x).tolist(), f(x, w).tolist()]
    print(json.dumps({"engines_before": engines_before, "out": out, "numpy": np.random.rand(4).tolist(),
                      "python": [random.random() for _ in range(3)]}))
""")


def _run(backend: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROGRAM, backend], capture_output=True, text=True, env=env,
                          cwd=str(ROOT), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("engine", ["jax", "dask"])
def test_random_stream_is_the_same_with_and_without_the_engine(engine):
    require(engine if engine == "jax" else "dask.array")
    plain, with_engine = _run("numpy"), _run(engine)
    assert with_engine["engines_before"] == [], "the engine was imported before the first compile"
    assert with_engine["numpy"] == plain["numpy"]
    assert with_engine["python"] == plain["python"]
    for got, expected in zip(with_engine["out"], plain["out"]):      # the same masks were drawn
        np.testing.assert_allclose(np.array(got), np.array(expected), rtol=1e-12, atol=1e-12)


def test_kept_global_rng_puts_both_streams_back():
    np.random.seed(3)
    random.seed(3)
    with kept_global_rng():
        np.random.rand(5)
        np.random.standard_normal()     # the legacy Gaussian cache too
        random.random()
    assert np.random.rand() == np.random.RandomState(3).rand()
    assert random.random() == random.Random(3).random()


def test_kept_global_rng_puts_them_back_when_the_block_raises():
    np.random.seed(4)
    random.seed(4)
    with pytest.raises(ZeroDivisionError), kept_global_rng():
        np.random.rand(3)
        random.random()
        1 / 0
    assert np.random.rand() == np.random.RandomState(4).rand()
    assert random.random() == random.Random(4).random()


def test_kept_global_rng_leaves_an_unchanged_state_alone(monkeypatch):
    calls = []
    monkeypatch.setattr(np.random, "set_state", lambda state: calls.append("numpy"))
    monkeypatch.setattr(random, "setstate", lambda state: calls.append("python"))
    with kept_global_rng():
        pass
    assert calls == []
