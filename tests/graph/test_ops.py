"""Unit tests of the op registry (graph/ops.py) and of the meta rules' tricky cases.

Every expected spec below is also checked against NumPy itself (`agree`), so a test fails if the stated
expectation and NumPy drift apart, not only if the meta rule does.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest

from minidynamo.graph import ops
from minidynamo.graph.ir import ArraySpec
from minidynamo.graph.meta import MetaError


def S(*shape: int, dtype=np.float64, scalar: bool = False) -> ArraySpec:
    return ArraySpec(shape, np.dtype(dtype), scalar=scalar)


def real(value):
    """A concrete value for a spec (1, 2, 3, ... so divisions and powers stay defined)."""
    if isinstance(value, ArraySpec):
        arr = (np.arange(value.size) % 3 + 1).astype(value.dtype).reshape(value.shape)
        return arr[()] if value.scalar else arr
    if isinstance(value, tuple):
        return tuple(real(v) for v in value)
    if isinstance(value, list):
        return [real(v) for v in value]
    return value


def agree(opdef: ops.OpDef, *args, **kwargs):
    """Meta result, asserted equal to what NumPy returns (shape, dtype, scalar-ness)."""
    spec = opdef.meta(*args, **kwargs)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = opdef.impl(*real(args), **{k: real(v) for k, v in kwargs.items()})
    results = got if isinstance(got, (tuple, list)) else (got,)
    specs = spec if isinstance(spec, tuple) else (spec,)
    for s, r in zip(specs, results, strict=True):
        if r is None:
            assert s is None
        else:
            assert (s.shape, s.dtype, s.scalar) == (r.shape, r.dtype, isinstance(r, np.generic))
    return spec


def refuses(opdef: ops.OpDef, *args, **kwargs) -> str:
    """The meta raises MetaError and NumPy raises too; returns the meta's message."""
    with pytest.raises(MetaError) as info:
        opdef.meta(*args, **kwargs)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        with pytest.raises(Exception):
            opdef.impl(*real(args), **{k: real(v) for k, v in kwargs.items()})
    return str(info.value)


ADD, BIN, UN = ops.get("add"), ops.BINARY_OPERATORS, ops.UNARY_OPERATORS


# ---- the registry contract ---------------------------------------------------------------------------

def test_every_numpy_ufunc_is_registered_under_its_name():
    ufuncs = {v for v in vars(np).values() if isinstance(v, np.ufunc)}
    for uf in ufuncs:
        assert ops.get(uf.__name__).impl is uf
        assert ops.lookup_function(uf) is ops.get(uf.__name__)


def test_aliases_resolve_to_the_numpy_name():
    assert ops.lookup_function(np.abs).name == "absolute"
    assert ops.lookup_function(np.true_divide).name == "divide"
    assert ops.lookup_function(np.amax).name == "max"
    assert ops.lookup_function(np.around).name == "round"
    assert ops.lookup_function(np.linalg.inv).name == "inv"
    assert ops.lookup_function(len) is None


def test_alias_function_adds_a_public_callable():
    def my_tanh(x):
        return np.tanh(x)

    assert ops.lookup_function(my_tanh) is None
    ops.alias_function(my_tanh, "tanh")
    assert ops.lookup_function(my_tanh) is ops.get("tanh")
    with pytest.raises(KeyError):
        ops.alias_function(my_tanh, "no_such_op")


def test_methods_share_the_function_ops():
    for name in ("sum", "mean", "max", "argmax", "std", "cumsum", "reshape", "transpose", "clip", "round",
                 "astype", "flatten", "dot", "repeat", "squeeze"):
        assert name in ops.METHODS
    assert ops.METHODS["sum"] is ops.get("sum")
    assert "flatten" in ops.REGISTRY and ops.lookup_function(np.ndarray.flatten) is None


def test_register_refuses_a_duplicate_name():
    with pytest.raises(ValueError):
        ops.register(ops.OpDef("add", np.add, lambda *a: None))


def test_operator_tables_use_numpy_names_and_operator_impls():
    assert set(BIN) == {"+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>", "<", "<=", "==",
                        "!=", ">", ">=", "+=", "-=", "*=", "/=", "//=", "%=", "**=", "@=", "&=", "|=", "^=",
                        "<<=", ">>="}
    assert (BIN["+"].name, BIN["+"].impl) == ("add", operator.add)
    assert (BIN["<"].name, BIN["/"].name, BIN["%"].name) == ("less", "divide", "remainder")
    assert (BIN["+="].name, BIN["+="].impl, BIN["+="].mutates) == ("iadd", operator.iadd, (0,))
    assert BIN["@="].name == "imatmul" and BIN[">>="].name == "irshift"
    assert {s: op.name for s, op in UN.items()} == {"-": "negative", "+": "positive", "~": "invert",
                                                    "abs": "absolute"}
    assert ops.REGISTRY["add"].impl is np.add and "iadd" not in ops.REGISTRY


def test_flags():
    assert ops.get("empty").random and ops.get("empty_like").random and not ops.get("zeros").random
    assert ops.get("setitem").mutates == (0,) and not ops.get("setitem").pure
    assert ops.get("tanh").pure


# ---- NEP 50: Python scalars are weak, their values are checked ----------------------------------------

def test_weak_python_int_out_of_range_raises():
    assert "300" in refuses(BIN["+"], S(3, dtype=np.uint8), 300)
    refuses(BIN["+"], S(3, dtype=np.uint8), -1)
    refuses(ADD, S(3, dtype=np.int32), 2**40)
    refuses(ADD, S(3, dtype=np.int64), 2**70)


def test_weak_python_scalars_keep_the_array_dtype():
    assert agree(BIN["+"], S(3, dtype=np.int8), -1).dtype == np.int8
    assert agree(BIN["*"], S(3, dtype=np.float32), 2.0).dtype == np.float32
    assert agree(BIN["+"], S(3, dtype=np.int8), True).dtype == np.int8
    assert agree(BIN["+"], S(3, dtype=np.bool_), 1).dtype == np.int64
    assert agree(BIN["*"], S(3, dtype=np.int32), 1.5).dtype == np.float64
    assert agree(BIN["<"], S(3, dtype=np.uint8), 300).dtype == np.bool_     # comparisons never overflow


def test_numpy_scalars_are_strong():
    assert agree(BIN["*"], S(3, dtype=np.float32), S(dtype=np.float64, scalar=True)).dtype == np.float64
    assert agree(BIN["+"], S(dtype=np.float32, scalar=True), 1.0) == S(dtype=np.float32, scalar=True)


def test_zero_dim_results_are_numpy_scalars():
    assert agree(BIN["+"], S(), S()).scalar
    assert agree(ADD, S(dtype=np.float32, scalar=True), S()).scalar


# ---- in-place operators ----------------------------------------------------------------------------------

def test_inplace_keeps_the_left_spec_and_checks_casting():
    left = S(2, 3, dtype=np.float32)
    assert agree(BIN["+="], left, S(3)) == left
    assert "Cannot cast" in refuses(BIN["+="], S(3, dtype=np.int64), S(3))
    refuses(BIN["+="], S(3), S(2, 3))                 # would need to grow the left operand
    assert ops.mutated_args(BIN["+="], (left, 1.0), {}) == (0,)


def test_inplace_on_a_numpy_scalar_rebinds():
    s = S(dtype=np.int64, scalar=True)
    assert agree(BIN["+="], s, 1.5) == S(scalar=True)
    assert ops.mutated_args(BIN["+="], (s, 1.5), {}) == ()


def test_inplace_matmul():
    assert agree(BIN["@="], S(2, 3), S(3, 3)) == S(2, 3)
    refuses(BIN["@="], S(3, 3), S(3, 2))


# ---- ufunc keywords and mutation ------------------------------------------------------------------------

def test_ufunc_out_where_dtype():
    out = S(2, 3)
    assert agree(ADD, S(3), 1.0, out=out) == out
    assert ops.mutated_args(ADD, (S(3), 1.0), {"out": out}) == ("out",)
    assert ops.mutated_args(ADD, (S(3), 1.0, out), {}) == (2,)
    assert ops.mutated_args(ADD, (S(3), 1.0), {}) == ()
    refuses(ADD, S(2, 3), 1.0, out=S(3))
    refuses(ADD, S(3), 1.0, out=S(3, dtype=np.int64))       # same_kind casting of the output
    assert agree(ADD, S(3), 1, dtype=np.float32).dtype == np.float32
    assert agree(ADD, S(3), S(2, 1), where=S(2, 3, dtype=np.bool_)).shape == (2, 3)
    with pytest.raises(MetaError, match="unsupported keyword"):
        ADD.meta(S(3), 1, axes=[0])


def test_multi_output_ufunc():
    q, r = agree(ops.get("divmod"), S(2, 3), 2)
    assert q == r == S(2, 3)


# ---- reductions -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name,dtype,kwargs,expected", [
    ("sum", np.int32, {}, S(dtype=np.int64, scalar=True)),
    ("sum", np.bool_, {"axis": 0}, S(4, dtype=np.int64)),
    ("mean", np.int32, {"axis": -1, "keepdims": True}, S(3, 1)),
    ("mean", np.float32, {}, S(dtype=np.float32, scalar=True)),
    ("argmax", np.float64, {"axis": 1}, S(3, dtype=np.intp)),
    ("any", np.float64, {"axis": (0, 1)}, S(dtype=np.bool_, scalar=True)),
    ("std", np.complex128, {"ddof": 1}, S(scalar=True)),
    ("cumsum", np.bool_, {}, S(12, dtype=np.int64)),
    ("max", np.int32, {"axis": None, "keepdims": True}, S(1, 1, dtype=np.int32)),
])
def test_reduction_dtypes_and_scalars(name, dtype, kwargs, expected):
    assert agree(ops.get(name), S(3, 4, dtype=dtype), **kwargs) == expected


def test_reduction_errors():
    refuses(ops.get("sum"), S(3, 4), axis=2)
    refuses(ops.get("sum"), S(3, 4), axis=(0, 0))
    refuses(ops.get("max"), S(0, 4), axis=0)
    assert agree(ops.get("max"), S(0, 4), axis=1) == S(0)
    assert agree(ops.get("max"), S(0, 4), axis=0, initial=1.0) == S(4)
    refuses(ops.get("argmax"), S(3, 4), axis=(0,))
    assert agree(ops.get("sum"), S(), axis=0) == S(scalar=True)       # ufunc.reduce accepts it on 0-d


# ---- indexing ------------------------------------------------------------------------------------------

GET, SET = ops.get("getitem"), ops.get("setitem")
X4 = S(2, 3, 4, 5)


@pytest.mark.parametrize("index,shape", [
    ((0, slice(None), [0, 1]), (2, 3, 5)),          # advanced separated by a slice: broadcast dims first
    ((slice(None), 0, [0, 1]), (2, 2, 5)),          # adjacent: in place
    ((slice(None), [0], [0, 1]), (2, 2, 5)),
    (([0], None, [0]), (1, 1, 4, 5)),               # None separates too
    ((slice(None), [0], Ellipsis, [0, 1]), (2, 2, 4)),  # so does an ellipsis
    ((Ellipsis, [[0, 1]], slice(1, None, 2)), (2, 3, 1, 2, 2)),
    ((slice(None, None, -2), None, -1), (1, 1, 4, 5)),
    ((Ellipsis, S(2, 1, dtype=np.int64), S(3, dtype=np.int32)), (2, 3, 2, 3)),
])
def test_getitem_shapes(index, shape):
    assert agree(GET, X4, index) == S(*shape)


def test_getitem_scalar_and_zero_dim():
    assert agree(GET, S(3, 4), (1, 2)) == S(scalar=True)
    assert agree(GET, S(3, 4), (1, Ellipsis, 2)) == S()
    assert agree(GET, S(), Ellipsis) == S()
    assert agree(GET, S(), ()) == S(scalar=True)
    assert agree(GET, S(3), S(dtype=np.int64)) == S(scalar=True)      # a 0-d integer array is an integer


def test_getitem_errors():
    refuses(GET, S(3, 4), (3,))
    refuses(GET, S(3, 4), (0, 0, 0))
    refuses(GET, S(3, 4), ([0, 1], [0, 1, 2]))
    refuses(GET, S(3, 4), (Ellipsis, Ellipsis))
    refuses(GET, S(3), S(2, dtype=np.float64))


def test_boolean_masks():
    mask = S(3, dtype=np.bool_)
    assert ops.is_data_dependent_index((mask, 0)) and ops.is_data_dependent_index(mask)
    assert not ops.is_data_dependent_index((0, [True, False, True]))
    with pytest.raises(MetaError, match="data-dependent"):
        GET.meta(S(3, 4), mask)
    assert agree(GET, S(3, 4), [True, False, True]) == S(2, 4)        # a literal mask's count is known
    assert agree(SET, S(3, 4), mask, 0.0) is None                      # a scalar fits any count
    assert SET.meta(S(3, 4), mask, S(2, 4)) is None     # rows for the count: NumPy checks it when it runs
    with pytest.raises(MetaError, match="could not be? broadcast"):
        SET.meta(S(3, 4), mask, S(2, 5))                 # rows of another length: never fit


def test_setitem():
    assert agree(SET, S(3, 4), (slice(None), 0), S(3)) is None
    assert agree(SET, S(3, 4), slice(None), S(1, 1, 4)) is None         # leading 1s are dropped
    refuses(SET, S(3, 4), (slice(None), 0), S(4))
    refuses(SET, S(3, dtype=np.uint8), 0, 300)
    refuses(SET, S(3), 0, 1j)
    refuses(SET, S(3, 4), (0, 0), S(2))
    assert ops.mutated_args(SET, (S(3, 4), 0, 1.0), {}) == (0,)


# ---- linear algebra ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("subscripts,shapes,expected", [
    ("ij,jk->ik", [(2, 3), (3, 4)], S(2, 4)),
    ("ij,jk", [(2, 3), (3, 4)], S(2, 4)),
    ("ba", [(2, 3)], S(3, 2)),                      # implicit output is sorted
    ("ii", [(3, 3)], S(scalar=True)),
    ("i,i", [(3,), (1,)], S(scalar=True)),          # size 1 broadcasts against a label
    ("...ij->...ji", [(5, 2, 3)], S(5, 3, 2)),
    ("i...,i...->...", [(2, 3), (2, 1)], S(3)),
    ("Ab,b", [(2, 3), (3,)], S(2)),
])
def test_einsum(subscripts, shapes, expected):
    assert agree(ops.get("einsum"), subscripts, *(S(*s) for s in shapes)) == expected


def test_einsum_errors():
    E = ops.get("einsum")
    refuses(E, "ij,jk", S(2, 3), S(4, 5))
    refuses(E, "ii", S(2, 3))
    refuses(E, "ij->k", S(2, 3))
    refuses(E, "ij->ii", S(2, 3))
    refuses(E, "i", S(2, 3))
    refuses(E, "ij,j", S(2, 3))


def test_linalg():
    assert agree(ops.get("matmul"), S(5, 2, 3), S(3)) == S(5, 2)
    assert agree(ops.get("dot"), S(3), S(3)) == S(scalar=True)
    assert agree(ops.get("dot"), S(2, 3, 4), S(5, 4, 6)).shape == (2, 3, 5, 6)
    assert agree(ops.get("tensordot"), S(2, 3, 4), S(3, 4, 5), axes=([1, 2], [0, 1])) == S(2, 5)
    assert agree(ops.get("norm"), S(3, 4, dtype=np.float32), axis=1) == S(3, dtype=np.float32)
    assert agree(ops.get("norm"), S(3, 4, dtype=np.int64)) == S(scalar=True)
    refuses(ops.get("norm"), S(3), "fro")
    refuses(ops.get("matmul"), S(2, 3), S(2, 3))
    refuses(ops.get("inv"), S(2, 3))


# ---- shape ops and creation ---------------------------------------------------------------------------------

def test_shape_ops():
    assert agree(ops.get("reshape"), S(2, 6), 3, -1) == S(3, 4)       # method form a.reshape(3, -1)
    assert agree(ops.get("reshape"), S(2, 6), (4, -1)) == S(4, 3)
    refuses(ops.get("reshape"), S(2, 6), (5, -1))
    assert agree(ops.get("transpose"), S(2, 3, 4)) == S(4, 3, 2)
    assert agree(ops.get("transpose"), S(2, 3, 4), 1, 0, 2) == S(3, 2, 4)
    parts = agree(ops.get("array_split"), S(7, 2), 3)
    assert [p.shape for p in parts] == [(3, 2), (2, 2), (2, 2)]
    refuses(ops.get("split"), S(7, 2), 3)
    assert agree(ops.get("pad"), S(2, 3), ((1, 2), (0, 1))) == S(5, 4)
    assert agree(ops.get("concatenate"), [S(2, 3), S(1, 3, dtype=np.float32)]) == S(3, 3)


def test_creation():
    assert agree(ops.get("arange"), 5) == S(5, dtype=np.int64)
    assert agree(ops.get("arange"), 0.0, 1, 0.1) == S(10)
    assert agree(ops.get("arange"), 10, 0, -3) == S(4, dtype=np.int64)
    assert agree(ops.get("linspace"), 0, 1, 7) == S(7)
    assert agree(ops.get("full"), (2, 3), 7) == S(2, 3, dtype=np.int64)
    refuses(ops.get("full"), 3, 300, np.uint8)
    refuses(ops.get("zeros"), (2, -1))
    assert agree(ops.get("eye"), 3, 4, dtype=np.int32) == S(3, 4, dtype=np.int32)
    assert agree(ops.get("where"), S(3, dtype=np.bool_), S(3, dtype=np.float32), 0.0) == S(3, dtype=np.float32)
    with pytest.raises(MetaError, match="data-dependent"):
        ops.get("where").meta(S(3, dtype=np.bool_))
    assert agree(ops.get("astype"), S(dtype=np.float64, scalar=True), np.float32) == \
        S(dtype=np.float32, scalar=True)
    assert ops.METHODS["copy"].meta(S(scalar=True)) == S(scalar=True)
    assert agree(ops.get("copy"), S(scalar=True)) == S()
