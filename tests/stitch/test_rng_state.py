"""stitch/rng_state.py: the global RandomState is saved before a drawing graph and restored before its eager re-run;
graphs whose draws never touch the Gaussian cache save it as raw MT19937 bytes (about 1 µs instead of
get_state()'s tens of µs), and the stream after an exception is still exactly eager's."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from minidynamo.stitch import rng_state

LEGACY = np.random.get_state.__self__
DRAWS = {"random": lambda: np.random.random(3), "random_sample": lambda: np.random.random_sample(3),
         "rand": lambda: np.random.rand(2, 2), "uniform": lambda: np.random.uniform(-1, 1, 4),
         "randint": lambda: np.random.randint(0, 9, 5), "choice": lambda: np.random.choice(7, 3, replace=False),
         "permutation": lambda: np.random.permutation(6), "shuffle": lambda: np.random.shuffle(np.arange(5))}


def _full_state() -> tuple:
    st = np.random.get_state(legacy=False)
    return st["state"]["key"].tobytes(), st["state"]["pos"], st["has_gauss"], st["gauss"]


def test_every_gauss_free_draw_is_listed_and_leaves_the_gaussian_cache_alone():
    assert {f"random.{n}" for n in DRAWS} == rng_state.GAUSS_FREE
    for name, draw in DRAWS.items():
        np.random.seed(7)
        np.random.randn(1)                      # one Gaussian of the pair is now cached
        before = _full_state()
        draw()
        after = _full_state()
        assert after[2:] == before[2:], f"{name} changed the Gaussian cache"
        assert after[:2] != before[:2], f"{name} drew nothing"


def test_raw_bytes_restore_the_whole_state():
    copier = rng_state._raw_copier(LEGACY)
    assert copier is not None, "the MT19937 state struct did not match get_state() on this NumPy"
    save, restore = copier
    np.random.seed(3)
    np.random.randn(1)
    before, saved = _full_state(), save()
    first = [draw() for draw in DRAWS.values()]
    restore(saved)
    assert _full_state() == before
    again = [draw() for draw in DRAWS.values()]
    assert all(a is None and b is None or np.array_equal(a, b) for a, b in zip(first, again))


def dropout_then_invert(x, a, p=0.25):
    keep = np.random.uniform(size=x.shape) > p
    return x * keep, np.linalg.inv(a)


def normal_then_invert(x, a):
    return x + np.random.normal(size=x.shape), np.linalg.inv(a)


@pytest.mark.parametrize("fn, raw", [(dropout_then_invert, True), (normal_then_invert, False)])
def test_stream_after_a_graph_that_raised_after_drawing_is_eagers(fn, raw):
    compiled = md.compile(fn, options={"suppress_errors": False})
    x = np.arange(12.0).reshape(3, 4)
    outcomes = []
    for f in (fn, compiled, fn, compiled):
        for a in (np.eye(3), np.ones((3, 3))):           # the second matrix is singular: inv raises
            np.random.seed(11)
            np.random.randn(1)                          # a cached Gaussian the restore must keep
            try:
                value = f(x, a)
            except np.linalg.LinAlgError as e:
                value = str(e)
            outcomes.append((value if isinstance(value, str) else [v.tobytes() for v in value], _full_state()))
    assert outcomes[0:2] == outcomes[2:4] == outcomes[4:6] == outcomes[6:8]
    body = "\n".join(compiled._minidynamo.cache.entries[0].body)
    assert ("_get_rng()" in body) is raw and "_set_rng(" in body
