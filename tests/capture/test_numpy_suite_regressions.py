"""Bugs NumPy's own test suite found when run compiled (tools/numpy_suite), kept as differential tests."""

from __future__ import annotations

import functools
import inspect

import numpy as np

from tests.conftest import check


def _inner(k, extra=None):
    return k


@functools.wraps(_inner)
def wrapped(*a):
    return np.zeros(a)


@functools.wraps(_inner)
def wrapped_with_break(*a):
    if np.ones(1)[0] > 5:
        print("big")
    return np.zeros(a)


def with_foreign_signature(*args, **kwargs):
    return np.ones(*args, **kwargs)


with_foreign_signature.__signature__ = inspect.signature(lambda shape, dtype=None, order="C": None)


def test_arguments_bind_to_the_code_not_to_wrapped_or_signature():
    # functools.wraps sets __wrapped__, and __signature__ describes another callable: binding must use the
    # function's own parameters
    check(wrapped, 3, calls=[(2, 2)])
    check(wrapped_with_break, 3, calls=[(4,)])
    check(with_foreign_signature, 3, calls=[((2, 2),)])


def round_a_numpy_scalar():
    s = np.float64(1.5)
    return round(s)          # folded at capture: np.float64's own __round__, an int


def test_round_of_a_numpy_scalar_constant_is_folded_as_eagerly():
    check(round_a_numpy_scalar, expect_graph=False).assert_no_breaks()


def keys_set_operations(d, e):
    return d.keys() & e.keys(), len(d.keys()), "a" in d.keys(), np.ones(2)


def test_dict_views_are_real_views():
    check(keys_set_operations, {"a": 1, "b": 2}, {"b": 3}, calls=[({"x": 1}, {"x": 2, "a": 3})])


def array_and_asarray(x):
    same = np.asarray(x)                 # the very same object when nothing converts
    copied = np.array(x)                 # always a copy
    table = np.array([[1, 2.5], [3, 4]])
    return same is x, copied is x, same, copied + 1, table @ np.asarray(x[:2, :2], dtype=np.float32)


def test_array_and_asarray_are_captured_with_numpys_aliasing():
    res = check(array_and_asarray, np.ones((3, 3)), calls=[(np.arange(9.0).reshape(3, 3),)])
    # `is` between two graph values is decided in plain Python (a break), and capture goes on after it
    assert all(not r.fallback for r in res.reasons)
    assert any("array" in g.ops() for g in res.graphs)


def astype_flexible(x):
    # test_shape_base.py::TestConcatenate::test_dtype_with_promotion: 'S' and 'U' take their size from the
    # source dtype (float64 -> S32), so the spec must not keep the unsized dtype
    s = x.astype("S")
    u = np.array(x, dtype="U")
    return s, u, s.dtype, u.dtype, np.zeros(2, dtype="S").dtype


def test_unsized_flexible_dtypes_take_numpys_size():
    res = check(astype_flexible, np.arange(3.0))
    assert res.counter.frame_count == 1


def too_many_index_arrays(arr, idx):
    arr[(idx,) * 64]        # result unused: the graph must still raise IndexError, as NumPy does
    return arr


def test_more_than_63_index_arrays_without_subspace_raise():
    # test_indexing.py::TestIndexing::test_too_many_advanced_indices[64-64-index2]
    check(too_many_index_arrays, np.ones((1,) * 64), np.array([0]), expect_graph=False).assert_broke(
        "the number of index arrays cannot be above 63")


def object_array_equals_none(a):
    # test_numeric.py::TestArrayComparisons::test_none_compares_elementwise: an object array's == is
    # elementwise, never identity
    return a == None, a != None  # noqa: E711


def test_object_array_compares_with_none_elementwise():
    check(object_array_equals_none, np.array([None, 1, None], dtype=object), expect_graph=False).assert_broke(
        "a ndarray object (not modelled by capture) == the constant None")     # an object array: plain Python


def complex_inf_constant(x):
    # test_function_base.py::TestInterp::test_complex_interp: a complex constant holding inf rebuilt in
    # the entry must not be written as `(inf+0.5j)`
    y = [1, 2 + 1j, np.inf + 0.5j]
    if x.sum() > 0:
        x = x + 1
    return x, y


def test_non_finite_complex_constant_crosses_a_break():
    check(complex_inf_constant, np.ones(3))


def clip_one_bound(a):
    return np.clip(a, 2)


def reshape_no_copy(a):
    return np.reshape(a, (12, 2), order="F", copy=False)


def test_clip_and_reshape_raise_exactly_as_this_numpy():
    # test_numeric.py::TestClip::test_clip_min_max_args (NumPy 2.4 requires a_max) and
    # TestNonarrayArgs::test_reshape_copy_arg (copy=False depends on the memory layout)
    check(clip_one_bound, np.arange(5), expect_graph=False).assert_broke(
        "clip() missing 1 required positional argument: 'a_max'")
    for x in (np.arange(24).reshape(2, 3, 4), np.asfortranarray(np.arange(24).reshape(2, 3, 4))):
        check(reshape_no_copy, x, expect_graph=False).assert_broke("unsupported keyword copy=False")


def _class_without_module() -> type:
    ns: dict = {}
    exec("cls = type('Bare', (), {})", ns)     # globals without __name__: the class gets no __module__
    return ns["cls"]


def pass_through(x, obj):
    return x * 2.0, obj


def test_an_argument_whose_class_has_no_module_is_captured():
    # test_ufunc.py::TestLowlevelAPIAccess::test_loop_access (3.11, a ctypes value): "AttributeError: __module__"
    bare = _class_without_module()
    assert not hasattr(bare, "__module__")
    check(pass_through, np.ones(2), bare()).assert_no_breaks()
