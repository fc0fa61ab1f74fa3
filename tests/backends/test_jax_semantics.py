"""backend="jax" keeps NumPy's semantics where XLA differs: bounds errors, integer division by zero,
singular matrices, floating-point warnings and np.errstate, in-place writes and views, read-only inputs,
NEP 50 promotion of Python scalars, RNG order, writeable results, the user's JAX configuration, and the
ImportError without JAX. Where the engine cannot match NumPy the call runs on NumPy, so most comparisons
here are bit for bit (tests/conftest.py::check); `Recorder.fallbacks` shows which path ran.
"""

from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest

from tests.backends.jax_support import Recorder, assert_close, jax, md, run_both
from tests.conftest import check


def warned(fn, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(*args)
        except Exception as e:          # noqa: BLE001  (the test compares exceptions too)
            result = e
    return result, sorted(str(w.message) for w in caught)


# ---- bounds, integer division, linear algebra --------------------------------------------------------------

def gather(x, i):
    return x[i] * 2.0


def test_out_of_bounds_gather_raises_indexerror_like_numpy():
    rec = Recorder()
    x = np.arange(5.0)
    check(gather, x, np.array([0, 3]), calls=[(x, np.array([0, 7])), (x, np.array([-6, 1])), (x, np.array([4]))],
          backend=rec)
    assert rec.fully_lowered and rec.fallbacks == 2        # the two bad calls ran on NumPy, which raised


def test_out_of_bounds_dynamic_scalar_index():
    def pick(x, i):
        return x[i[0]] + 1.0
    rec = Recorder()
    check(pick, np.arange(4.0), np.array([2]), calls=[(np.arange(4.0), np.array([9]))], backend=rec)
    assert rec.fully_lowered and rec.fallbacks == 1


def test_integer_division_and_modulo_by_zero_warn_and_give_numpys_zeros():
    def div(a, b):
        return a // b, a % b
    a, b = np.array([5, -7, 9]), np.array([2, 0, -4])
    rec = Recorder()
    compiled = md.compile(div, backend=rec)
    got, got_warnings = warned(compiled, a, b)
    expected, expected_warnings = warned(div, a, b)
    assert_close(got, expected)
    assert got_warnings == expected_warnings and expected_warnings
    assert rec.fallbacks == 1
    assert_close(compiled(a, np.array([2, 3, -4])), div(a, np.array([2, 3, -4])))
    assert rec.fallbacks == 1                               # nonzero divisors ran on JAX


def test_negative_integer_power_raises_like_numpy():
    def pw(a, b):
        return a ** b
    check(pw, np.array([2, 3]), np.array([1, 2]), calls=[(np.array([2, 3]), np.array([1, -1]))],
          backend=Recorder())


def test_singular_inverse_raises_linalgerror_and_explain_says_why():
    def solve_it(a):
        return np.linalg.inv(a @ a.T) * 2.0
    singular = np.ones((3, 3))
    check(solve_it, np.eye(3), calls=[(singular,)], backend=Recorder())
    text = str(md.explain(md.compile(solve_it, backend="jax"))(np.eye(3)))
    assert "= inv(%" in text and "not lowered: NumPy raises LinAlgError on a singular matrix" in text


# ---- floating-point warnings and errstate -----------------------------------------------------------------

def hidden_overflow(x):
    return np.tanh(np.exp(x)) + x        # exp overflows, tanh hides the inf: NumPy still warns


@pytest.mark.parametrize("fn, args", [(hidden_overflow, (np.array([1.0, 800.0]),)),
                                      (lambda x: np.log(x) * 2.0, (np.array([0.0, 1.0]),)),
                                      (lambda x: (x / (x - x)) > 0, (np.array([1.0, 2.0]),)),
                                      (lambda x: np.sqrt(x - 1.0)[1:], (np.array([0.0, 2.0]),))])
def test_floating_point_warnings_are_numpys(fn, args):
    rec = Recorder()
    compiled = md.compile(fn, backend=rec)
    got, got_warnings = warned(compiled, *args)
    expected, expected_warnings = warned(fn, *args)
    assert expected_warnings and got_warnings == expected_warnings
    assert_close(got, expected)
    assert rec.fallbacks == 1


def test_errstate_raise_raises_floatingpointerror():
    compiled = md.compile(hidden_overflow, backend="jax")
    compiled(np.array([1.0, 2.0]))
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            hidden_overflow(np.array([1.0, 800.0]))
        with pytest.raises(FloatingPointError):
            compiled(np.array([1.0, 800.0]))


def test_errstate_underflow_not_ignored_runs_numpy():
    def tiny(x):
        return np.exp(x) * 2.0
    rec = Recorder()
    compiled = md.compile(tiny, backend=rec)
    compiled(np.array([-1.0]))
    with np.errstate(under="raise"):
        with pytest.raises(FloatingPointError):
            compiled(np.array([-800.0]))
    assert rec.fallbacks == 1


def test_inputs_with_nan_run_on_numpy_and_agree():
    rec = Recorder()
    got, expected, rec = run_both(lambda x: np.maximum(x, 0.0) * 2.0, np.array([np.nan, 1.0, -1.0]))
    assert_close(got, expected)
    assert rec.fallbacks == 1


# ---- writes, views, identity ------------------------------------------------------------------------------

def write_through_view(x):
    v = x[1:]
    v[0] = 100.0
    x *= 2.0
    return v.sum(), x


def write_then_read_slice(x):
    x[0] = x[1:].sum()
    x += 1.0
    return x


def views_out(x):
    return x.T, x[0], x.reshape(-1)


@pytest.mark.parametrize("fn", [write_through_view, write_then_read_slice, views_out])
def test_writes_and_views_match_numpy(fn):
    check(fn, np.arange(6.0).reshape(2, 3) if fn is views_out else np.arange(4.0), backend=Recorder())


def augmented_slice(x):
    x[1:3] += 1.0
    return x * 1.0


def stencil(u):
    for _ in range(3):
        u[1:-1] += 0.25 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return u.sum()


def nested_views(x):
    v = x[1:5]
    v[0] = 7.0
    v += 2.0
    w = v[1:]
    w *= 3.0
    x[0] = v.sum()
    return v * 1.0, x.sum()


def row_then_column(a):
    row = a[1]
    row[:] = row * 2.0
    a[:, 0] = 5.0
    return a.sum(axis=0), row.sum()


@pytest.mark.parametrize("fn, arg", [(augmented_slice, np.arange(5.0)), (stencil, np.arange(8.0) ** 2),
                                     (nested_views, np.arange(6.0)),
                                     (row_then_column, np.arange(12.0).reshape(3, 4))])
def test_writes_through_sliced_views_are_lowered_and_match_numpy(fn, arg):
    """x[a:b] += v, writes into views and reads of views after writes: threaded as .at[].set updates of the
    array owning the memory, written back into the input."""
    rec = Recorder()
    check(fn, arg, calls=[(arg * 3.0 - 1.0,)], backend=rec)
    assert rec.fully_lowered and rec.fallbacks == 0


def test_a_view_returned_to_the_caller_is_numpys_view():
    compiled = md.compile(views_out, backend="jax")
    x = np.arange(6.0).reshape(2, 3)
    t, row, flat = compiled(x)
    t[0, 0] = -1.0
    assert x[0, 0] == -1.0 and row[0] == -1.0 and flat[0] == -1.0


def test_write_into_input_lowered_and_written_back():
    rec = Recorder()
    check(write_then_read_slice, np.arange(4.0), calls=[(np.arange(4.0) * 3,)], backend=rec)
    assert rec.fully_lowered and rec.fallbacks == 0


def test_read_only_input_raises_like_numpy():
    x = np.arange(4.0)
    x.flags.writeable = False
    with pytest.raises(ValueError) as eager:
        write_then_read_slice(x)
    compiled = md.compile(write_then_read_slice, backend="jax")
    compiled(np.arange(4.0))
    with pytest.raises(ValueError) as got:
        compiled(x)
    assert str(got.value) == str(eager.value)


def test_results_are_writeable_arrays_and_numpy_scalars():
    got, expected, _ = run_both(lambda x: (np.tanh(x), np.tanh(x).sum()), np.ones((2, 2), np.float32))
    assert_close(got, expected)
    assert got[0].flags.writeable and type(got[1]) is np.float32


# ---- NEP 50 and Python scalars ---------------------------------------------------------------------------

def test_python_int_out_of_range_raises_overflowerror():
    def add(x, n):
        return x + n
    check(add, np.array([1, 2], np.int8), 3, calls=[(np.array([1, 2], np.int8), 4),
                                                    (np.array([1, 2], np.int8), 300)], backend=Recorder())


def test_weak_python_float_keeps_float32():
    got, expected, rec = run_both(lambda x: x * 2.5 + 1, np.ones(3, np.float32))
    assert got.dtype == np.float32
    assert_close(got, expected)


# ---- RNG, configuration, installation ---------------------------------------------------------------------

def test_random_draws_stay_on_numpy_in_order():
    def noisy(x):
        a = np.tanh(x)
        return a + np.random.rand(3), np.random.rand(2)
    np.random.seed(3)
    expected = noisy(np.ones(3))
    np.random.seed(3)
    got = md.compile(noisy, backend="jax")(np.ones(3))
    assert_close(got, expected)


def test_64_bit_is_enabled_per_call_only():
    got, expected, _ = run_both(lambda x: x * 2.0, np.ones(3))
    assert got.dtype == np.float64
    assert not jax.config.jax_enable_x64
    assert jax.numpy.asarray(1.0).dtype == np.float32


def test_without_jax_the_backend_raises_importerror_with_the_install_command(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "jax" else real(name, *a))
    with pytest.raises(ImportError, match=r"pip install minidynamo\[jax\]"):
        md.compile(lambda x: x + 1, backend="jax")


def test_inputs_written_in_another_order_than_passed():
    """Regression (the corpus's sgd_momentum): write-backs follow the order the graph wrote them in."""
    def step(w, grad, velocity):
        velocity *= 3
        velocity += grad
        w -= 2 * velocity
        return w, velocity
    rec = Recorder()
    check(step, np.arange(6).reshape(2, 3), np.ones((2, 3), np.int64), np.full((2, 3), 5), backend=rec)
    assert rec.fully_lowered and rec.fallbacks == 0


def test_one_xla_function_per_graph_and_input_signature():
    from minidynamo.backends.jax_lowering import engine

    def scale_by_three(x):
        return np.tanh(x) * 3.0

    def jitted():
        return [k for k in engine._JITTED if k[0].startswith("graph scale_by_three(")]
    md.compile(scale_by_three, backend="jax")(np.ones(5))
    md.compile(scale_by_three, backend="jax")(np.zeros(5))      # an equal graph: the jitted function is shared
    assert len(jitted()) == 1
    md.compile(scale_by_three, backend="jax")(np.ones(6))       # a new shape: a new capture and compilation
    md.compile(scale_by_three, backend="jax")(np.ones(5, np.float32))
    assert len(jitted()) == 3
