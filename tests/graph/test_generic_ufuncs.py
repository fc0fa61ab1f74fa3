"""Generic ufunc ops (graph/generic_ufuncs.py, ops.lookup_function): any np.ufunc object is a graph op whose
dtypes come from NumPy's own resolution (ufunc.resolve_dtypes). The rule agrees with NumPy's call for every
ufunc of the namespace over dtypes and operand kinds; programs calling ufuncs the namespace does not hold
(np._core.umath's clip, scipy.special's where installed), reached as values, behave as eager ones."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import numpy._core.umath as umath
import pytest

import minidynamo as md
from minidynamo.graph import generic_ufuncs as GU
from minidynamo.graph import ops
from minidynamo.graph.ir import ArraySpec
from minidynamo.graph.meta import MetaError, MetaUnsupported
from tests.test_register_op import DTYPES, SHAPES, _data, _run, _same

ALL_DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float16, np.float32, np.float64,
              np.complex128]
NAMESPACE = sorted({v.__name__: v for v in vars(np).values() if isinstance(v, np.ufunc) and GU.is_generic(v)
                    and v.nin <= 2}.values(), key=lambda u: u.__name__)


def _operands(uf, dtype):
    """(spec operands, value operands) pairs: arrays of `dtype` against each kind of second operand."""
    a = np.ones((2, 3), dtype)
    if uf.nin == 1:
        yield (ArraySpec.of(a),), (a,)
        yield (ArraySpec.of(a[0, 0]),), (a[0, 0],)
        return
    for other in (np.ones(3, np.int16), np.float32(2), 3, -2, 2.5, 1j, True, 2**40):
        spec = ArraySpec.of(other) if isinstance(other, (np.ndarray, np.generic)) else other
        yield (ArraySpec.of(a), spec), (a, other)
        yield (spec, ArraySpec.of(a[0])), (other, a[0])


@pytest.mark.parametrize("uf", NAMESPACE, ids=lambda u: u.__name__)
def test_the_rule_is_numpys_dispatch_for_every_namespace_ufunc(uf):
    rule = GU.call_meta(uf, uf.__name__)
    for dtype in ALL_DTYPES:
        for specs, values in _operands(uf, dtype):
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                try:
                    got = uf(*values)
                except Exception:    # noqa: BLE001 -- the rule may refuse or answer: the graph then raises
                    continue
            try:
                spec = rule(*specs)
            except MetaUnsupported:
                continue
            except MetaError as e:
                raise AssertionError(f"{uf.__name__}{values}: the rule refused ({e}) what NumPy computes") from None
            for s, v in zip(spec if uf.nout > 1 else (spec,), got if uf.nout > 1 else (got,)):
                assert s.matches(v), (uf.__name__, values, s, type(v), getattr(v, "dtype", None))


def test_object_loops_and_core_dimensions_are_no_generic_ops():
    assert not GU.is_generic(np.frompyfunc(lambda a: a, 1, 1)) and not GU.is_generic(np.matmul)
    assert GU.is_generic(umath.clip) and ops.lookup_function(umath.clip).name != "clip"   # np.clip's is NumPy's


def clip_prog(x, table):
    return table["clip"](x, 0.0, 1.0) * 2


def passed_prog(x, uf):
    y = uf(x, 2)
    return y, uf.outer(x.ravel(), y.ravel())


def object_prog(x):
    plus = np.frompyfunc(lambda a: a + 1, 1, 1)
    return plus(x)


def vectorized_prog(x):
    return np.vectorize(lambda a: a * 2)(x)


def _differential(fn, x, *rest):
    md.reset()
    want = _run(lambda v: fn(v, *rest), copy.deepcopy(x))
    compiled = md.compile(fn)
    for _ in range(3):
        got = _run(lambda v: compiled(v, *rest), copy.deepcopy(x))
        assert all(_same(g, w) for g, w in zip(got, want)), (got, want)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_programs_calling_ufuncs_as_values_behave_as_eager(dtype, shape):
    x = _data(shape, dtype)
    _differential(clip_prog, x, {"clip": umath.clip})
    _differential(passed_prog, x, np.hypot)          # a namespace ufunc passed in
    _differential(object_prog, x)
    _differential(vectorized_prog, x)


def test_a_generic_ufunc_is_one_node():
    md.reset()
    out = md.explain(clip_prog)(np.linspace(-1.0, 2.0, 5), {"clip": umath.clip})
    assert (out.graph_count, out.graph_break_count) == (1, 0)
    name = ops.lookup_function(umath.clip).name
    assert out.ops_per_graph[0][name] == 1 and name.startswith("clip_")
    out = md.explain(object_prog)(np.ones(3))      # np.frompyfunc's ufunc (and making it): plain calls
    assert out.graph_count == 0 and out.graph_break_count == 2


def special_prog(x, uf, binary):
    y = uf(x * 0.5)
    return y, binary(y, x), binary.outer(y.ravel(), x.ravel()), binary.reduce(x.ravel()), binary.accumulate(x.ravel())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_scipy_special_functions_are_ops_and_behave_as_eager(dtype, shape):
    sp = pytest.importorskip("scipy.special")
    x = _data(shape, dtype)
    for uf, binary in ((sp.expit, sp.xlogy), (sp.gammaln, np.logaddexp),
                       (sp.erf, sp.xlog1py)):
        _differential(special_prog, x, uf, binary)
    md.reset()
    out = md.explain(special_prog)(np.arange(4.0), sp.expit, sp.xlogy)
    assert (out.graph_count, out.graph_break_count) == (1, 0)
    assert {"expit", "xlogy", "xlogy.outer", "xlogy.reduce", "xlogy.accumulate"} <= set(out.ops_per_graph[0])


def test_the_fast_path_blocks_numpys_own_ufuncs_only():
    from minidynamo.backends.fast_path.steps import classify
    md.reset()
    out = md.explain(lambda x, t: t["ones"](np.tanh(x)))(np.ones((4, 64)), {"ones": umath._ones_like})
    nodes = {n.op: n for n in out.graphs[0].nodes if n.is_call}
    assert classify(nodes["tanh"]) is not None
    assert classify(nodes[ops.lookup_function(umath._ones_like).name]) is None    # not NumPy's: run whole


def _add_in_place(uf, a, b):
    uf(a[:-1, :-1], b)               # writes into its first operand: no output
    return a * 2


def test_a_ufunc_without_outputs_is_no_op_and_runs_as_eagerly():
    # NumPy's own test ufunc `inplace_add` (nin 2, nout 0) made capture fail with an internal IndexError
    # (found by NumPy's test_ufunc.py::TestUfunc::test_operand_flags through the compile plugin)
    opflag = pytest.importorskip("numpy._core._operand_flag_tests")
    assert not GU.is_generic(opflag.inplace_add)
    a = np.arange(16, dtype=np.int64).reshape(4, 4)
    b = np.arange(9, dtype=np.int64).reshape(3, 3)
    compiled = md.compile(_add_in_place, options={"suppress_errors": False})
    for _ in range(2):
        e_a, c_a = a.copy(), a.copy()
        assert np.array_equal(_add_in_place(opflag.inplace_add, e_a, b), compiled(opflag.inplace_add, c_a, b))
        assert np.array_equal(e_a, c_a)
