"""Differential property test: every op's meta rule agrees with what NumPy really returns or raises.

For each registered op (REGISTRY, the operator tables, method-only OpDefs) hypothesis draws arguments from
the op's generator in test_meta_cases.CASES; the meta rule sees ArraySpecs, the real call sees arrays.
Shape, dtype and scalar-ness (np.generic vs ndarray) must agree; where NumPy raises, the meta must raise
MetaError, and where the meta raises, NumPy must raise too (boolean-mask getitem excepted: the meta
refuses it on purpose, as a data-dependent shape).

A longer hunt: python -c "import tests.graph.test_meta_cases as c, pytest; c.SCALE = 10;
pytest.main(['tests/graph/test_meta.py', '-q', '-x'])"
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from minidynamo.graph import ops
from minidynamo.graph.ir import ArraySpec, PyScalarSpec, RngSpec
from minidynamo.graph import meta_index as X
from minidynamo.graph.meta import DataDependentShape, MetaError

from . import test_meta_cases as cases
from .test_meta_cases import CASES, A, OPERATOR_CASES, UNARY_CASES, reals, specs

# derandomize follows the profile (tests/conftest.py): repeatable in CI, fresh draws with HYPOTHESIS_PROFILE=explore.
_SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck))


def _agree(spec, real, where: str) -> None:
    if real is None:
        assert spec is None, f"{where}: NumPy returned None, meta {spec}"
        return
    if isinstance(real, (list, tuple)):
        assert isinstance(spec, tuple) and len(spec) == len(real), f"{where}: {spec} vs {len(real)} results"
        if type(real) not in (list, tuple):     # a named tuple (QRResult): the spec must know its class
            assert getattr(spec, "cls", None) is type(real), f"{where}: NumPy returned {type(real).__name__}"
        for s, r in zip(spec, real):
            _agree(s, r, where)
        return
    if isinstance(spec, PyScalarSpec):            # a draw without a size: a Python number
        assert type(real) is spec.type, f"{where}: meta says {spec}, NumPy gives a {type(real).__name__}"
        return
    if isinstance(real, (np.random.Generator, np.random.RandomState)):
        assert spec == RngSpec(type(real)), f"{where}: meta says {spec}, NumPy gives a {type(real).__name__}"
        return
    assert isinstance(real, (np.ndarray, np.generic)), f"{where}: NumPy returned {type(real).__name__}"
    got = (spec.shape, spec.dtype, spec.scalar)
    want = (real.shape, real.dtype, isinstance(real, np.generic))
    assert got == want, f"{where}: meta says {got}, NumPy gives {want}"


def run_case(opdef: ops.OpDef, args: tuple, kwargs: dict, label: str) -> None:
    where = f"{label}{args!r} {kwargs!r}"
    real_exc = None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            real = opdef.impl(*reals(args), **reals(kwargs))
        except Exception as e:      # any NumPy error: the meta must raise MetaError too
            real_exc = e
    try:
        spec = opdef.meta(*specs(args), **specs(kwargs))
    except TypeError as e:          # a call that does not fit the signature: NumPy must refuse it too
        assert isinstance(real_exc, TypeError), f"{where}: meta raised TypeError {e}, NumPy {real_exc!r}"
        return
    except MetaError as e:
        if real_exc is None:
            if label in ("getitem", "setitem") and ops.is_data_dependent_index(specs(args[1])):
                assert label == "setitem" or "data-dependent" in str(e)
                return
            if "unsupported" in str(e) or isinstance(e, DataDependentShape):
                return              # a documented refusal (out=, where= of reductions, other pad modes)
            pytest.fail(f"{where}: meta raised {e} but NumPy returned {type(real).__name__}")
        return
    if isinstance(real_exc, np.linalg.LinAlgError) and any(
            m in str(real_exc) for m in ("positive definite", "Singular", "converge")):
        return                      # depends on the values, which a meta rule never sees
    if real_exc is not None and opdef.checks:
        return                      # an assertion's failure depends on the values: the graph then re-runs eagerly
    if real_exc is not None:
        pytest.fail(f"{where}: NumPy raised {type(real_exc).__name__}: {real_exc} but meta gave {spec}")
    _agree(spec, real, where)


def _all_ops() -> list[tuple[str, ops.OpDef, object]]:
    cases = [(name, op, CASES.get(name)) for name, op in sorted(ops.REGISTRY.items())]
    cases += [(f"method.{m}", op, CASES.get(op.name)) for m, op in sorted(ops.METHODS.items())
              if ops.REGISTRY.get(op.name) is not op]
    cases += [(f"operator{sym}", op, OPERATOR_CASES.get(sym)) for sym, op in ops.BINARY_OPERATORS.items()]
    cases += [(f"unary{sym}", op, UNARY_CASES.get(sym)) for sym, op in ops.UNARY_OPERATORS.items()]
    return cases


ALL = _all_ops()


def test_every_op_has_a_generator():
    missing = [label for label, _, strategy in ALL if strategy is None]
    assert not missing, f"ops without an argument generator in test_meta_cases.CASES: {missing}"


@pytest.mark.parametrize("label,opdef,strategy", [c for c in ALL if c[2] is not None], ids=[c[0] for c in ALL
                                                                                           if c[2] is not None])
def test_meta_agrees_with_numpy(label, opdef, strategy):
    @settings(max_examples=cases.examples(opdef.name), **_SETTINGS)
    @given(st.data())
    def check(data):
        args, kwargs = data.draw(strategy)
        if label.startswith("method."):
            assume(isinstance(args[0], A))
        run_case(opdef, args, kwargs, opdef.name)

    check()


@settings(max_examples=cases.examples(None), **_SETTINGS)
@given(st.data())
def test_nonzero_rule_with_the_count_agrees_with_numpy(data):
    """np.nonzero / one-argument np.where given the count capture would hand them (the number of nonzero
    items, here NumPy's own): one intp array per axis of that length; a 0-d array refused (NumPy raises)."""
    (x,), _ = data.draw(CASES["nonzero"])
    real = np.asarray(reals((x,))[0])
    for name in ("nonzero", "where"):
        rule = ops.get(name).meta
        if real.ndim == 0:
            with pytest.raises(DataDependentShape):
                rule(specs((x,))[0], mask_count=1)
            continue
        _agree(rule(specs((x,))[0], mask_count=int(np.count_nonzero(real))), np.nonzero(real), f"{name}{x!r}")


@pytest.mark.parametrize("method", sorted(ops.METHODS))
def test_method_form_agrees_with_numpy(method):
    """x.f(*args) through METHODS, checked against the real ndarray / NumPy-scalar method."""
    opdef = ops.METHODS[method]

    def call_method(x, *args, **kwargs):
        return getattr(x, method)(*args, **kwargs)

    as_method = ops.OpDef(opdef.name, call_method, opdef.meta)

    @settings(max_examples=cases.examples(None), **_SETTINGS)
    @given(st.data())
    def check(data):
        args, kwargs = data.draw(CASES[opdef.name])
        receiver = args[0]
        assume(isinstance(receiver, A) and (not receiver.scalar or hasattr(np.generic, method)))
        run_case(as_method, args, kwargs, opdef.name)

    check()


def test_python_complex_operators_on_a_numpy_float64_keep_python_types():
    # complex.__pow__ accepts np.float64 (a float subclass) before NumPy is asked: the result is a Python
    # complex computed by Python (`1j ** np.float64(2.0)` is exactly -1+0j), not NumPy's complex128.
    from tests.conftest import check

    def f(x):
        y = np.float64(x.sum())
        a = 1j ** y
        return a, type(a), a * np.ones(2, np.complex64), 1j * y, 1j - y, 1j == y, y ** 1j, 2.0 ** y, 2 ** y
    check(f, np.array([2.0]))
    check(f, np.array([0.5]))


def test_indexing_with_a_range_is_captured_like_a_list():
    from tests.conftest import check

    def f(x):
        return x[range(3)], x[range(0)], x[range(1, 7, 2)], x.reshape(2, 5)[range(2), 1:]
    check(f, np.arange(10.0)).assert_no_breaks()


def test_setitem_with_a_boolean_list_and_a_2d_value_raises_type_error():
    from tests.conftest import check

    def f(x, v):
        x[[True, False, True]] = v
        return x
    for v in (np.ones((2, 2)), np.ones((1, 1, 2)), np.ones(2), np.ones((1, 2))):
        check(f, np.zeros(3), v, expect_graph=False)         # (a value NumPy refuses: a break at capture)
    assert "TypeError" in str(pytest.raises(MetaError, ops.get("setitem").meta,
                                            ArraySpec((3,), np.float64), [True, False, True],
                                            ArraySpec((2, 2), np.float64)).value)


def test_a_boolean_mask_gives_its_count_or_a_data_dependent_break():
    from minidynamo.graph.symbolic import ShapeEnv
    x, mask = ArraySpec((4, 3), np.float64), ArraySpec((4,), np.bool_)
    with pytest.raises(DataDependentShape):
        X.getitem_meta(x, mask)
    count = ShapeEnv().create_count(4)
    assert X.getitem_meta(x, mask, mask_count=count).shape == (count, 3)
