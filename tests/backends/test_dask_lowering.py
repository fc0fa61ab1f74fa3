"""The dask lowering table (minidynamo/backends/dask_lowering.py), op by op: every op the table lowers is
run by a small program on chunked NumPy inputs (dask backend, NumPy mode) and on dask inputs (lazy mode),
and compared with NumPy eager within the documented tolerance; every registered op is either lowered or has
a reason; refusals name the argument that is not faithful."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from minidynamo.backends import dask_lowering as DL
from minidynamo.graph import ops
from tests.backends.conftest import DASK_MISSING
from tests.backends.dask_helpers import assert_close, computed, lowering_plans

dask = pytest.importorskip("dask", reason=DASK_MISSING)
da = pytest.importorskip("dask.array", reason=DASK_MISSING)

R = np.random.default_rng(0)
A, B, S = R.standard_normal((6, 4)), R.standard_normal((4, 5)), R.standard_normal((6, 4))
V = R.standard_normal(4)
# op name -> (program, its NumPy arguments); together they cover every entry of LOWERINGS.
PROGRAMS = {
    "sum": (lambda a: (a.sum(axis=0), np.sum(a, keepdims=True)), (A,)),
    "prod": (lambda a: np.prod(a * 0.5 + 1.0, axis=1), (A,)),
    "mean": (lambda a: (a.mean(), np.mean(a, axis=0, dtype=np.float32)), (A,)),
    "std": (lambda a: (a.std(axis=0, ddof=1), np.std(a)), (A,)),
    "var": (lambda a: np.var(a, axis=1), (A,)),
    "max": (lambda a: (a.max(axis=0), np.max(a)), (A,)),
    "min": (lambda a: np.min(a, axis=1, keepdims=True), (A,)),
    "any": (lambda a: ((a > 1).any(axis=0), np.any(a > 5)), (A,)),
    "all": (lambda a: np.all(a < 3, axis=1), (A,)),
    "argmax": (lambda a: (a.argmax(axis=0), np.argmax(a)), (A,)),
    "argmin": (lambda a: np.argmin(a, axis=1), (A,)),
    "cumsum": (lambda a: (a.cumsum(axis=0), np.cumsum(a, axis=1)), (A,)),
    "cumprod": (lambda a: np.cumprod(a * 0.1 + 1.0, axis=0), (A,)),
    "clip": (lambda a: (np.clip(a, -0.5, 0.5), a.clip(0.0, 1.0)), (A,)),
    "round": (lambda a: (np.round(a, 2), a.round(1)), (A,)),
    "reshape": (lambda a: (a.reshape(24) * 1.0, np.reshape(a, (3, 2, 4)) + 0.0, a.reshape((6, 2, 2)) * 2.0),
                (A,)),
    "transpose": (lambda a: (a.T * 1.0, np.transpose(a) + 0.0, a.transpose(1, 0) * 2.0), (A,)),
    "flatten": (lambda a: a.flatten() * 2.0, (A,)),
    "ravel": (lambda a: np.ravel(a) + 1.0, (A,)),
    "swapaxes": (lambda a: np.swapaxes(a, 0, 1) * 1.0, (A,)),
    "moveaxis": (lambda a: np.moveaxis(a, 0, -1) * 1.0, (A,)),
    "expand_dims": (lambda a: np.expand_dims(a, axis=1) * 1.0, (A,)),
    "squeeze": (lambda a: np.squeeze(a[:, :1], axis=1) * 1.0, (A,)),
    "broadcast_to": (lambda v: np.broadcast_to(v, (3, 4)) * 1.0, (V,)),
    "concatenate": (lambda a, s: np.concatenate([a, s], axis=1), (A, S)),
    "stack": (lambda a, s: np.stack([a, s], axis=0), (A, S)),
    "hstack": (lambda a, s: np.hstack([a, s]), (A, S)),
    "vstack": (lambda a, s: np.vstack([a, s]), (A, S)),
    "flip": (lambda a: np.flip(a, axis=0) * 1.0, (A,)),
    "rot90": (lambda a: np.rot90(a, k=3) * 1.0, (A,)),
    "roll": (lambda a: np.roll(a, 2, axis=0), (A,)),
    "tile": (lambda v: np.tile(v, 3), (V,)),
    "repeat": (lambda a: np.repeat(a, 2, axis=0), (A,)),
    "triu": (lambda a: np.triu(a, k=1), (A,)),
    "tril": (lambda a: np.tril(a), (A,)),
    "dot": (lambda a, b: (np.dot(a, b), a.dot(b)), (A, B)),
    "outer": (lambda v: np.outer(v, v), (V,)),
    "tensordot": (lambda a, b: np.tensordot(a, b, axes=1), (A, B)),
    "einsum": (lambda a, b: np.einsum("ij,jk->ik", a, b), (A, B)),
    "vdot": (lambda a, s: np.vdot(a, s), (A, S)),
    "zeros_like": (lambda a: np.zeros_like(a) + a, (A,)),
    "ones_like": (lambda a: np.ones_like(a, dtype=np.float32) * 2, (A,)),
    "full_like": (lambda a: np.full_like(a, 3.0) - a, (A,)),
    "where": (lambda a, s: np.where(a > 0, a, s), (A, S)),
    "astype": (lambda a: (a.astype(np.float32), (a * 10).astype(np.int64)), (A,)),
    "getitem": (lambda a: (a[1:4, ::2] * 1.0, a[-1] + 0.0, a[None, ..., 0] * 1.0), (A,)),
    "copy": (lambda a: a.copy(), (A,)),
    "ufuncs": (lambda a, b: (np.tanh(a @ b) - np.exp(-a @ b) ** 2 / 3 + np.sqrt(np.abs(a @ b)), -a % 2.0,
                             np.maximum(a, 0.1) // 0.3, (a > 0) & (a < 1), np.divmod(a, 0.7)), (A, B)),
    "creation": (lambda a: a + np.ones(4) * np.arange(4.0) + np.eye(6, 4) + np.linspace(0, 1, 4), (A,)),
}


@pytest.fixture(autouse=True)
def sync_scheduler():
    with dask.config.set(scheduler="sync"):
        yield


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_op_lowers_on_chunked_numpy_inputs(name):
    fn, args = PROGRAMS[name]
    with md.config.patch(dask_chunk_bytes=64):               # 8 elements a chunk: every op spans chunks
        compiled = md.compile(fn, backend="dask")
        got = compiled(*[a.copy() for a in args])
    assert_close(fn(*args), got)
    plans = lowering_plans(compiled)
    assert plans and all(p.fully_lowered for p in plans), [p.summary() for p in plans]


@pytest.mark.parametrize("backend", ["numpy", "dask"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_op_on_dask_inputs_is_captured_and_stays_lazy(name, backend):
    fn, args = PROGRAMS[name]
    lazy = [da.from_array(a, chunks=3) for a in args]
    compiled = md.compile(fn, backend=backend)
    got = compiled(*lazy)
    expected = fn(*lazy)
    leaves = got if isinstance(got, tuple) else (got,)
    assert all(type(v) is da.Array for v in leaves if not isinstance(v, tuple))
    assert_close(computed(expected), computed(got))
    assert_close(fn(*args), computed(got))
    report = md.explain(compiled)(*lazy)
    assert report.graph_break_count == 0, report.break_reasons


def test_every_registered_op_lowers_or_says_why():
    lowered = set(DL.lowered_op_names())
    missing = [name for name in ops.REGISTRY if name not in lowered and name not in DL.NOT_LOWERED]
    assert missing == []
    covered = {n.op for name in PROGRAMS for n in _graph_ops(name)}
    # int()/float() of a dask input's value are breaks (they compute it), so PROGRAMS cannot hold them: the
    # corpus's kmeans_fit lowers float() of a chunked NumPy value (test_dask_backend)
    assert set(DL.LOWERINGS) - covered - {"zeros", "ones", "full", "eye", "tri", "identity", "arange",
                                                 "linspace", "int", "float"} == set()


def _graph_ops(name):
    fn, args = PROGRAMS[name]
    return [n for g in md.explain(fn)(*args).graphs for n in g.nodes if n.is_call]


@pytest.mark.parametrize("op, target, args, kwargs, reason", [
    ("sum", np.sum, ("x",), {"where": True}, "where= has no dask lowering"),
    ("reshape", ops.reshape, ("x", (2, 3), "F"), {}, "order= other than 'C'"),
    ("getitem", ops.get("getitem").impl, ("x", [0, 2]), {}, "an index of type list"),
    ("getitem", ops.get("getitem").impl, ("x", True), {}, "an index of type bool"),
    ("add", np.add, ("x", 1, "out"), {}, "out="),
    ("inv", np.linalg.inv, ("x",), {}, "LinAlgError"),
    ("iadd", __import__("operator").iadd, ("x", 1), {}, "in place"),
    ("vecdot", np.vecdot, ("x", "x"), {}, "generalized ufunc"),
    ("where", np.where, ("x",), {}, "data-dependent shape"),
    ("sum", np.sum, ("x", 0, None, None, True), {}, "arguments after axis given by position"),
])
def test_refusals_say_what_is_not_faithful(op, target, args, kwargs, reason):
    assert reason in DL.refusal(op, target, args, kwargs)


def test_an_unspecialized_int_indexes_but_an_array_does_not():
    from minidynamo.graph.ir import ArraySpec, Graph, PyScalarSpec
    g = Graph("g")
    x, i = g.add_input("x", ArraySpec((4,), np.float64)), g.add_input("i", PyScalarSpec(int))
    f = g.add_input("f", PyScalarSpec(float))
    getitem = ops.get("getitem").impl
    assert DL.refusal("getitem", getitem, (x, i), {}) is None
    assert DL.refusal("getitem", getitem, (x, slice(i, None)), {}) is None
    assert "computed bound" in DL.refusal("getitem", getitem, (x, x), {})
    assert "computed bound" in DL.refusal("getitem", getitem, (x, f), {})


def test_a_loop_over_a_dask_array_indexes_with_its_counter():
    def positives(v):
        total = v[0] * 0.0
        for i in range(v.shape[0]):
            if v[i] > 0:            # a break per iteration: the loop driver passes i as a Python int
                total = total + v[i]
        return total

    x = np.array([1.0, -2.0, 3.0, -4.0, 5.0])
    compiled = md.compile(positives)
    out = compiled(da.from_array(x, chunks=2))
    assert type(out) is da.Array and out.compute() == 9.0
    reasons = [r.message for r in md.explain(compiled)(da.from_array(x, chunks=2)).break_reasons]
    assert not any("computed bound" in m for m in reasons), reasons
