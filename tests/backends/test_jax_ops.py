"""backend="jax", op by op: every registered op is lowered and tested here against NumPy, or listed in the
table's NOT_LOWERED with its reason (test_every_op_is_covered). Tolerances: tests/backends/jax_support.py.

Each case is a small function run eagerly and through compile(backend="jax"); the test also asserts the
graph was lowered whole and the call ran on JAX (no NumPy fallback), so a passing case really tested XLA.
Shapes are small so the XLA compilations stay cheap.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

from tests.backends.jax_support import assert_close, md, run_both

from minidynamo.backends.jax_lowering.table import NOT_LOWERED, OUTER_NAMES, TABLE   # noqa: E402
from minidynamo.graph.ops import INPLACE_NAMES, REGISTRY                 # noqa: E402

RNG = np.random.default_rng(12)
F64, F32, I64, I32, B = np.float64, np.float32, np.int64, np.int32, np.bool_

# Input ranges inside each function's domain (and away from its poles), per op.
DOMAIN = {"arccos": (-0.9, 0.9), "arcsin": (-0.9, 0.9), "arctanh": (-0.9, 0.9), "arccosh": (1.2, 3.0),
          "tan": (-1.2, 1.2), "log": (0.2, 3.0), "log2": (0.2, 3.0), "log10": (0.2, 3.0),
          "sqrt": (0.1, 3.0), "log1p": (-0.5, 2.0), "power": (0.5, 2.0), "float_power": (0.5, 2.0)}


def floats(dtype, shape=(3, 4), lo=-2.0, hi=2.0):
    return RNG.uniform(lo, hi, shape).astype(dtype)


def ints(dtype, shape=(3, 4), lo=1, hi=20):
    return RNG.integers(lo, hi, shape).astype(dtype)


def ufunc_args(uf: np.ufunc, kind: str, dtype) -> list:
    name = uf.__name__
    if kind == "f":
        lo, hi = DOMAIN.get(name, (-2.0, 2.0))
        if name in ("fmod", "remainder", "floor_divide", "divmod", "divide"):
            return [floats(dtype), floats(dtype, lo=0.5, hi=2.0)]
        if name == "ldexp":
            return [floats(dtype), ints(np.int32, lo=-3, hi=4)]
        return [floats(dtype, lo=lo, hi=hi) for _ in range(uf.nin)]
    if kind == "b":
        return [RNG.random((3, 4)) > 0.5 for _ in range(uf.nin)]
    if name in ("left_shift", "right_shift"):
        return [ints(dtype, lo=-50, hi=50), ints(dtype, lo=0, hi=8)]
    if name == "power":
        return [ints(dtype, lo=-4, hi=5), ints(dtype, lo=0, hi=6)]
    return [ints(dtype, lo=-30, hi=30), ints(dtype, lo=1, hi=9)][:uf.nin]


def _matmul_shapes(name, args):
    if name in ("matmul", "vecmat"):
        return [args[0][:, :3] if name == "matmul" else args[0][0, :3], args[1][:3, :]]
    if name == "matvec":
        return [args[0], args[1][0]]
    return args


UFUNC_CASES = []
for _name, _op in sorted(REGISTRY.items()):
    if not isinstance(_op.impl, np.ufunc) or _name in NOT_LOWERED:
        continue
    _types = {t.split("->")[0] for t in _op.impl.types}
    for _kind, _dtype, _code in (("f", F64, "d"), ("f", F32, "f"), ("i", I64, "l"), ("i", I32, "i"),
                                 ("b", B, "?")):
        if _code * _op.impl.nin in _types and not (_name == "reciprocal" and _kind == "i"):
            UFUNC_CASES.append(pytest.param(_op.impl, _kind, _dtype, id=f"{_name}-{np.dtype(_dtype).name}"))


@pytest.mark.parametrize("uf, kind, dtype", UFUNC_CASES)
def test_ufunc(uf, kind, dtype):
    args = _matmul_shapes(uf.__name__, ufunc_args(uf, kind, dtype))
    got, expected, rec = run_both(lambda *a: uf(*a), *args)
    assert_close(got, expected, uf.__name__)
    assert rec.fully_lowered, rec.not_lowered()
    assert rec.fallbacks == 0


OUTER_CASES = []
for _name in sorted(OUTER_NAMES):
    _uf = REGISTRY[_name].impl.__self__
    _types = {t.split("->")[0] for t in _uf.types}
    for _kind, _dtype, _code in (("f", F64, "d"), ("i", I64, "l"), ("b", B, "?")):
        if any(t[0] == _code for t in _types):      # (ldexp: float, int)
            OUTER_CASES.append(pytest.param(_uf, _kind, _dtype, id=f"{_name}-{np.dtype(_dtype).name}"))
            break


@pytest.mark.parametrize("uf, kind, dtype", OUTER_CASES)
def test_ufunc_outer(uf, kind, dtype):
    """`uf.outer(a, b)`: shape a.shape + b.shape, the values and dtype of NumPy's loop."""
    x, y = ufunc_args(uf, kind, dtype)
    got, expected, rec = run_both(lambda a, b: uf.outer(a, b), x[0], y[:2])
    assert got.shape == (4, 2, 4)
    assert_close(got, expected, f"{uf.__name__}.outer")
    assert rec.fully_lowered, rec.not_lowered()
    assert rec.fallbacks == 0


def test_integer_outer_division_by_zero_warns_as_numpy():
    a, b = np.arange(6, dtype=np.int64), np.array([2, 0, 3], dtype=np.int64)
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        got, expected, rec = run_both(lambda x, y: np.floor_divide.outer(x, y), a, b)
    assert_close(got, expected) and rec.fully_lowered
    assert rec.fallbacks == 1           # the division check failed: NumPy ran it, and warned


@pytest.mark.parametrize("sym", ["+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>", "<",
                                 "<=", "==", "!=", ">", ">="])
def test_python_operators_with_weak_scalars(sym):
    """`x + 3` on int32 stays int32, `x * 2.5` on float32 stays float32 (NEP 50), as NumPy gives."""
    fn = eval(f"lambda a, b: (a {sym} b, a {sym} 3)") if sym != "@" else (lambda a, b: (a @ b.T,))
    a, b = ints(I32, lo=1, hi=6), ints(I32, lo=1, hi=4)
    got, expected, rec = run_both(fn, a, b)
    assert_close(got, expected, sym)
    assert rec.fully_lowered, rec.not_lowered()
    if sym not in ("&", "|", "^", "<<", ">>", "//", "%", "@"):
        fn2 = eval(f"lambda a, b: (a {sym} b, a {sym} 2.5, b {sym} a)")
        got, expected, rec = run_both(fn2, floats(F32, lo=0.5), floats(F64, lo=0.5))
        assert_close(got, expected, sym)


@pytest.mark.parametrize("name", sorted(INPLACE_NAMES))
def test_inplace_operators_write_into_the_input(name):
    sym = {"iadd": "+=", "isub": "-=", "imul": "*=", "itruediv": "/=", "ifloordiv": "//=", "imod": "%=",
           "ipow": "**=", "imatmul": "@=", "iand": "&=", "ior": "|=", "ixor": "^=", "ilshift": "<<=",
           "irshift": ">>="}[name]
    ns: dict = {}
    exec(f"def f(a, b):\n    a {sym} b\n    return a, a * 1", ns)
    fn = ns["f"]
    if name in ("itruediv", "ipow"):
        a, b = floats(F64, (3, 3), 0.5, 2.0), floats(F64, (3, 3), 0.5, 2.0)
    else:
        a, b = ints(I64, (3, 3), 1, 9), ints(I64, (3, 3), 1, 4)
    got, expected, rec = run_both(fn, a, b)
    assert_close(got, expected, name)
    assert rec.fully_lowered, rec.not_lowered()
    a2 = a.copy()
    out = md.compile(fn, backend="jax")(a2, b)
    assert out[0] is a2                                         # the input itself, written in place
    assert_close(a2, expected[0], name)                         # (XLA's pow is within tolerance, not exact)


X = floats(F64, (3, 4))
X32 = floats(F32, (3, 4))
XI = ints(I32, (3, 4), -5, 9)
SQ = floats(F64, (3, 3))

OTHER_CASES = {
    "sum": [(lambda x: (x.sum(), x.sum(axis=0), np.sum(x, 1, keepdims=True)), X), (lambda x: x.sum(0), XI),
            (lambda x: x.sum(dtype=np.float64), X32)],
    "prod": [(lambda x: (x.prod(axis=1), np.prod(x)), X), (lambda x: x.prod(0), XI)],
    "mean": [(lambda x: (x.mean(), x.mean(axis=1, keepdims=True)), X), (lambda x: x.mean(0), XI)],
    "max": [(lambda x: (x.max(), np.max(x, axis=0)), X), (lambda x: x.max(1), XI)],
    "min": [(lambda x: (x.min(), np.amin(x, axis=0)), X32)],
    "argmax": [(lambda x: (x.argmax(), x.argmax(axis=1)), X)],
    "argmin": [(lambda x: (np.argmin(x), x.argmin(0)), XI)],
    "std": [(lambda x: (x.std(), x.std(axis=0, ddof=1)), X)],
    "var": [(lambda x: (x.var(), np.var(x, axis=1)), X32)],
    "any": [(lambda x: (np.any(x > 1), (x > 0).any(axis=0)), X)],
    "all": [(lambda x: (np.all(x > -3), (x > 0).all(axis=1)), X)],
    "cumsum": [(lambda x: (x.cumsum(), np.cumsum(x, axis=1)), X), (lambda x: x.cumsum(0), XI)],
    "cumprod": [(lambda x: np.cumprod(x, axis=0), X)],
    "clip": [(lambda x: (np.clip(x, -0.5, 0.5), x.clip(0, None)), X), (lambda x: np.clip(x, -1, 3), XI)],
    "round": [(lambda x: (np.round(x, 2), x.round(), np.around(x)), X)],
    "reshape": [(lambda x: (x.reshape(4, 3) * 2, np.reshape(x, (2, -1)) + 1, x.reshape((12,)) - 1), X)],
    "transpose": [(lambda x: (x.T + 1, np.transpose(x) * 2, x.transpose(1, 0) - 1), X)],
    "flatten": [(lambda x: x.flatten() * 2, X)],
    "swapaxes": [(lambda x: np.swapaxes(x, 0, 1) * 2, X)],
    "moveaxis": [(lambda x: np.moveaxis(x[None], 0, 2) * 2, X)],
    "expand_dims": [(lambda x: np.expand_dims(x, 1) * 2, X)],
    "squeeze": [(lambda x: np.squeeze(x[:, :1]) * 2, X)],
    "ravel": [(lambda x: x.ravel() * 2, X)],
    "broadcast_to": [(lambda x: np.broadcast_to(x[0], (2, 4)) * 2, X)],
    "concatenate": [(lambda x: (np.concatenate([x, x * 2]), np.concatenate((x, XI), axis=1)), X)],
    "stack": [(lambda x: np.stack([x, x + 1], axis=1), X)],
    "hstack": [(lambda x: np.hstack([x, x]), X32)],
    "vstack": [(lambda x: np.vstack([x, x[0]]), X)],
    "split": [(lambda x: [p * 2 for p in np.split(x, 2, axis=1)], X)],
    "array_split": [(lambda x: [p + 1 for p in np.array_split(x, 3, axis=1)], X)],
    "tile": [(lambda x: np.tile(x, (2, 1)), X)],
    "repeat": [(lambda x: (np.repeat(x, 2, axis=0), x.repeat(3)), X)],
    "flip": [(lambda x: np.flip(x, 1) * 1, X)],
    "rot90": [(lambda x: (np.rot90(x) * 1, np.rot90(x, 3, axes=(1, 0)) + 1), X)],
    "roll": [(lambda x: np.roll(x, 2, axis=1), X)],
    "pad": [(lambda x: (np.pad(x, 1), np.pad(x, ((1, 0), (0, 2)), mode="edge")), X)],
    "triu": [(lambda x: np.triu(x, 1), X)],
    "tril": [(lambda x: np.tril(x), XI)],
    "dot": [(lambda x: (np.dot(x, x.T), x.dot(x[0])), X)],
    "vdot": [(lambda x: np.vdot(x, x), X)],
    "inner": [(lambda x: np.inner(x, x), X32)],
    "outer": [(lambda x: np.outer(x[0], x[1]), X)],
    "tensordot": [(lambda x: np.tensordot(x, x, axes=([1], [1])), X)],
    "einsum": [(lambda x: np.einsum("ij,kj->ik", x, x), X)],
    "norm": [(lambda x: (np.linalg.norm(x), np.linalg.norm(x, axis=1)), X)],
    "zeros": [(lambda x: x + np.zeros((3, 4)), X)],
    "ones": [(lambda x: x + np.ones((3, 4), dtype=np.float32), X32)],
    "full": [(lambda x: x * np.full((3, 4), 2.5), X)],
    "eye": [(lambda x: x[:, :3] + np.eye(3), X)],
    "tri": [(lambda x: x[:, :3] + np.tri(3, k=-1), X), (lambda x: x[:, :2] * np.tri(x.shape[0], 2, dtype=x.dtype), X)],
    "identity": [(lambda x: x[:3, :3] @ np.identity(3), X)],
    "arange": [(lambda x: x + np.arange(4), X), (lambda x: x * np.arange(0.0, 1.0, 0.25), X)],
    "linspace": [(lambda x: x + np.linspace(0, 1, 4), X)],
    "zeros_like": [(lambda x: np.zeros_like(x) + x, XI)],
    "ones_like": [(lambda x: np.ones_like(x) + x, X)],
    "full_like": [(lambda x: np.full_like(x, 7) * x, X)],
    "where": [(lambda x: (np.where(x > 0, x, 0.0), np.where(x > 1, 1, XI)), X)],
    "copy": [(lambda x: (np.copy(x) * 2, x.copy() + 1), X)],
    "array": [(lambda x: np.array(x, dtype=np.float32) + np.array([1.0, 2.0, 3.0, 4.0]), X)],
    "asarray": [(lambda x: np.asarray(x * 2, dtype=np.float32), X)],
    "asanyarray": [(lambda x: np.asanyarray(x * 2, dtype=np.float32), X)],
    "ascontiguousarray": [(lambda x: np.ascontiguousarray(x.T * 2), X)],
    "astype": [(lambda x: (x.astype(np.float32), (x * 3).astype(np.int32), (x > 0).astype(np.int64)), X),
               (lambda x: (x.astype(np.int8), x.astype(np.float64), x.astype(bool)), XI)],
    "getitem": [(lambda x: (x[1] * 1, x[:, 1:3] * 1, x[..., ::2] * 1, x[None, 0, -1] * 1, x[[0, 2]],
                            x[1:, [1, 3]]), X),
                (lambda x, i: (x[i], x[:, i], x[i[1]] * 1, x[x.argmax(axis=0)[1]] * 1), X, np.array([0, 2, -1]))],
}


def _setitem(x, i):
    y = x * 2
    y[0] = 1.0
    y[1:, 2] = y[0, :2].sum()
    y[-1, i] = 7
    return y


OTHER_CASES["setitem"] = [(_setitem, X, 2)]


def _cases():
    for name, cases in sorted(OTHER_CASES.items()):
        for k, (fn, *args) in enumerate(cases):
            yield pytest.param(name, fn, args, id=f"{name}-{k}")


@pytest.mark.parametrize("name, fn, args", list(_cases()))
def test_op(name, fn, args):
    got, expected, rec = run_both(fn, *args)
    assert_close(got, expected, name)
    assert rec.fully_lowered, rec.not_lowered()
    assert name in {n.op for p in rec.plans for n in p.graph.nodes}, "the case does not exercise its op"
    assert rec.fallbacks == 0


def test_integer_reciprocal_is_not_lowered():
    got, expected, rec = run_both(lambda x: np.reciprocal(x), ints(I64))
    assert_close(got, expected)
    assert "platform-defined" in rec.not_lowered()["reciprocal"]


def test_every_op_is_covered():
    """Each op of the registry (and each in-place operator) is lowered and tested above, or listed as not
    lowered with its reason."""
    tested = {name for name, op in REGISTRY.items() if isinstance(op.impl, np.ufunc)} | set(OTHER_CASES) | {
        f"{case.values[0].__name__}.outer" for case in OUTER_CASES}
    for name in list(REGISTRY) + sorted(INPLACE_NAMES):
        if name in NOT_LOWERED:
            assert name not in TABLE.rules and len(NOT_LOWERED[name]) > 20, name
        else:
            assert name in TABLE.rules, f"{name}: neither lowered nor listed as not lowered"
            assert name in tested or name in INPLACE_NAMES, f"{name}: lowered but not tested"


def test_operator_targets_lower_like_their_ufunc():
    got, expected, rec = run_both(lambda a, b: (operator.add(a, b), np.add(a, b), a + b), X, X32)
    assert_close(got, expected)
    assert rec.fully_lowered
    targets = {n.target for n in rec.plans[0].graph.nodes if n.op == "add"}
    assert targets == {operator.add, np.add}       # both spellings reach the same rule (by op name)


@pytest.mark.parametrize("dtype", [F64, F32])
def test_power_by_small_integer_literals(dtype):
    """x ** 2, ** 3, ** 4 lower to multiplications (x ** 2 bit-identical to NumPy's square fast path)."""
    x = floats(dtype, (50,))
    got, expected, rec = run_both(lambda x: (x ** 2, x ** 3, x ** 4.0, np.abs(x) ** 2.5), x)
    assert_close(got, expected)
    assert np.array_equal(got[0], expected[0])
    assert rec.fully_lowered and rec.fallbacks == 0
