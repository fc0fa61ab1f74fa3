"""Helpers for the fast-path tests: compile with the fast path forced on small arrays, find the regions a
compiled function holds, run eager and compiled side by side and compare bit for bit (bytes, dtype, shape,
strides, contiguity), warnings (category, text, count) and exceptions, and make data that tells NumPy's
code paths apart (NaNs of several payloads and both signs, signed zeros, infinities: values whose result
bits differ between a SIMD lane and a loop's tail when a block would cut a run in the wrong place)."""

from __future__ import annotations

import copy
import warnings
from typing import Any, Callable

import numpy as np

import minidynamo as md
from minidynamo import config
from minidynamo.backends import numpy_codegen
from minidynamo.backends.fast_path.runner import Region

# forced: every region runs through the fast path (a single block when small, one step too; no timed choice between the
# graph's code with and without its regions), and blocks are as small as the alignment rules allow (64 rows), so arrays
# of a few hundred rows make several blocks
FORCED = {"fast_path_min_bytes": 0, "fast_path_one_step_bytes": 0, "fast_path_block_bytes": 1,
          "fast_path_timed": False}


class Recorder:
    """A backend: the numpy backend with `options` applied, keeping each compiled graph function."""

    def __init__(self, **options: Any) -> None:
        self.options = {**FORCED, **options}
        self.fns: list[Any] = []

    def __call__(self, graph: Any, example_inputs: Any) -> Any:
        fn = numpy_codegen(graph, example_inputs, config=config.with_options(self.options))
        self.fns.append(fn)
        return fn

    @property
    def regions(self) -> list[Region]:
        return [v for fn in self.fns for v in fn.__globals__.values() if isinstance(v, Region)]

    def stats(self) -> dict:
        total: dict = {}
        for r in self.regions:
            for k, v in r.stats.items():
                total[k] = total.get(k, 0) + v
        return total


def compile_fast(fn: Callable, **options: Any) -> tuple[Callable, Recorder]:
    rec = Recorder(**options)
    return md.compile(fn, backend=rec, options={"suppress_errors": False}), rec


def same_layout_copy(value: Any) -> Any:
    """A deep copy; an array keeps its strides and offset (a copy of the memory it views, viewed alike),
    where copy.deepcopy would make a view contiguous."""
    if isinstance(value, tuple):
        return tuple(same_layout_copy(v) for v in value)
    if not isinstance(value, np.ndarray) or value.base is None:
        return copy.deepcopy(value)
    base = value
    while isinstance(base.base, np.ndarray):
        base = base.base
    fresh = np.array(base, copy=True, order="C")
    start = value.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return np.ndarray(value.shape, value.dtype, buffer=fresh, offset=start, strides=value.strides)


def run(fn: Callable, args: tuple, errstate: dict | None = None, where: bool = False) -> tuple[Any, Any, list]:
    """(result, exception, warnings as (category, text)) of fn on copies of args, under `errstate`; `where`:
    also each warning's file and line (eager's for a graph that holds its warnings: README, Limits)."""
    args = tuple(same_layout_copy(a) for a in args)
    with warnings.catch_warnings(record=True) as caught, np.errstate(**(errstate or {})):
        warnings.simplefilter("always")
        try:
            result, exc = fn(*args), None
        except Exception as e:  # noqa: BLE001 -- compared with eager's
            result, exc = None, e
    return (result, args), exc, [(w.category, str(w.message)) + ((w.filename, w.lineno) if where else ())
                                 for w in caught]


def assert_bits(a: Any, b: Any, where: str = "result") -> None:
    """Bit-identical values of the same type; arrays also of the same strides and contiguity."""
    assert type(a) is type(b), f"{where}: {type(b).__name__}, eager {type(a).__name__}"
    if isinstance(a, (tuple, list)):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_bits(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        assert (a.dtype, a.shape, a.strides) == (b.dtype, b.shape, b.strides), \
            f"{where}: {b.dtype}{b.shape} strides {b.strides}, eager {a.dtype}{a.shape} strides {a.strides}"
        assert a.flags.c_contiguous == b.flags.c_contiguous and a.flags.owndata == b.flags.owndata, where
        if a.tobytes() != b.tobytes():
            fa, fb = a.reshape(-1), b.reshape(-1)
            diff = [i for i in range(a.size) if fa[i:i + 1].tobytes() != fb[i:i + 1].tobytes()]
            raise AssertionError(f"{where}: {len(diff)} elements differ in their bits, first [{diff[0]}]: "
                                 f"{fb[diff[0]]!r}, eager {fa[diff[0]]!r}")
    elif isinstance(a, np.generic):
        assert a.dtype == b.dtype and np.asarray(a).tobytes() == np.asarray(b).tobytes(), f"{where}: {b!r} vs {a!r}"
    else:
        assert a == b or (a != a and b != b), f"{where}: {b!r}, eager {a!r}"


QUIET = {"all": "ignore"}


def check_fast(fn: Callable, *args: Any, expect: str | None = "fast", errstate: dict | None = QUIET,
               **options: Any) -> Recorder:
    """Run fn eagerly and compiled (fast path forced on) on copies of args, both under `errstate` (default:
    every error ignored, so the blocks run; the error tests pass others): same bits, same exception, same
    warnings; `expect` names a stats outcome at least one region must have had (None: no check)."""
    cfn, rec = compile_fast(fn, **options)
    e_val, e_exc, e_warn = run(fn, args, errstate)
    c_val, c_exc, c_warn = run(cfn, args, errstate)
    assert type(c_exc) is type(e_exc) and str(c_exc) == str(e_exc), f"compiled raised {c_exc!r}, eager {e_exc!r}"
    assert c_warn == e_warn, f"warnings {c_warn}, eager {e_warn}"
    if e_exc is None:
        assert_bits(e_val, c_val)
    if expect is not None:
        assert rec.regions, "no region was made"
        assert rec.stats().get(expect), f"no region ran as {expect!r}: {rec.stats()}"
    return rec


def tricky(dtype: Any, shape: tuple, seed: int = 0) -> np.ndarray:
    """Values that tell code paths apart: NaNs of several payloads and signs, +-0, +-inf, ones, and normal
    random numbers (floats and complex); small integers with zeros (ints); random bools."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    n = int(np.prod(shape))
    if dt.kind == "f":
        bits = np.dtype(f"u{dt.itemsize}")
        nan = np.array([np.nan], dt)
        raw = nan.view(bits)
        pool = np.concatenate([np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -2.5], dt), nan, -nan,
                               (raw | 1).view(dt), -(raw | 3).view(dt), (raw | 12).view(dt)])
        out = pool[rng.integers(0, len(pool), n)]
        normal = rng.random(n) < 0.4
        out[normal] = rng.standard_normal(int(normal.sum())).astype(dt)
        return out.reshape(shape)
    if dt.kind == "c":
        part = np.dtype(f"f{dt.itemsize // 2}")
        out = np.empty(shape, dt)
        out.real, out.imag = tricky(part, shape, seed + 1), tricky(part, shape, seed + 2)
        return out
    if dt.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    lo = 0 if dt.kind == "u" else -6
    return rng.integers(lo, 7, shape).astype(dt)


def layouts(a: np.ndarray) -> dict[str, np.ndarray]:
    """The same values under several memory layouts (C, row slice of a wider array, every other column,
    Fortran order, rows reversed)."""
    wide = np.zeros((a.shape[0], a.shape[1] + 64) + a.shape[2:], a.dtype)
    wide[:, :a.shape[1]] = a
    step = np.zeros((a.shape[0], 2 * a.shape[1]) + a.shape[2:], a.dtype)
    step[:, ::2] = a
    rev = a[::-1].copy()[::-1]
    return {"C": a.copy(), "row slice": wide[:, :a.shape[1]], "column step": step[:, ::2],
            "fortran": np.asfortranarray(a), "reversed": rev}
