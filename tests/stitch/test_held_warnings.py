"""A graph that warns and then raises re-runs its function eagerly; the warnings are eager's: shown once,
from the program's file, line and module, through the program's filters."""

import warnings

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import captured
from minidynamo.stitch.held_warnings import may_raise
from tests.programs import warning_then_raise as P

DTYPES = [np.float32, np.float64, np.complex128]
SHAPES = [(), (0, 0), (2, 2), (3, 3), (2, 3)]


def _matrix(shape, dtype, kind):
    if kind == "singular":
        a = np.zeros(shape)
    elif kind == "negative":
        a = -np.ones(shape) - np.eye(*shape) if len(shape) == 2 else -np.ones(shape)
    else:
        a = np.eye(*shape) + 0.5 if len(shape) == 2 else np.ones(shape)
    return a.astype(dtype)


def _outcome(fn, *args, action="always", **filter_kw):
    """(result or exception, warnings as (category, message, file, line)) of one call under one filter."""
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        warnings.filterwarnings(action, **filter_kw)
        try:
            value = ("value", fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]))
        except Exception as e:
            value = ("raised", type(e), str(e))
    return value, [(w.category, str(w.message), w.filename, w.lineno) for w in shown]


def _same(eager, compiled, places=True):
    """Same outcome and warnings; with `places`, also the same file and line (a graph that holds its
    warnings; one of elementwise ops only, which cannot raise, keeps its generated place: README)."""
    (ev, ew), (cv, cw) = eager, compiled
    if not places:
        ew, cw = [w[:2] for w in ew], [w[:2] for w in cw]
    assert cw == ew, f"warnings {cw}, eager {ew}"
    assert ev[0] == cv[0] and (ev[1:] == cv[1:] if ev[0] == "raised" else
                               np.array_equal(ev[1], cv[1], equal_nan=True)), (ev, cv)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", ["singular", "negative", "regular"])
def test_warnings_before_a_raise_show_once_from_the_programs_line(dtype, shape, kind):
    compiled = md.compile(P.log_then_inverse)
    x = _matrix(shape, dtype, kind)
    in_graph = len(shape) == 2 and shape[0] == shape[1]      # else inv raises at capture: a break before it
    for _ in range(2):                                       # the capturing call, then a warm one
        _same(_outcome(P.log_then_inverse, x), _outcome(compiled, x), places=in_graph)
    captured(compiled).assert_graph_ran()


@pytest.mark.parametrize("k", [0, 2, 5, -4])
def test_an_index_past_the_end_after_a_warning(k):
    # (a constant index is checked at capture: past the end, a break; in range, an elementwise-only graph)
    compiled = md.compile(P.sqrt_then_index)
    for x in (np.array([0.0, 2.0, 5.0]), np.zeros(3, np.float32), np.ones(3)):
        _same(_outcome(P.sqrt_then_index, x, k), _outcome(compiled, x, k), places=False)
    captured(compiled).assert_graph_ran()


@pytest.mark.parametrize("b", [np.zeros(2), np.ones(2), -np.ones(2)])
@pytest.mark.parametrize("a", [np.eye(2), np.zeros((2, 2))])
def test_an_inlined_helpers_warning_comes_from_the_helpers_line(a, b):
    compiled = md.compile(P.helper_then_solve)
    for _ in range(2):
        _same(_outcome(P.helper_then_solve, a, b), _outcome(compiled, a, b))
    captured(compiled).assert_graph_ran()


@pytest.mark.parametrize("shape", [(0, 0), (0, 3), (2, 2)])
def test_a_numpy_function_warning_keeps_its_own_place(shape):
    compiled = md.compile(P.mean_then_inverse)
    x = np.zeros(shape)
    for _ in range(2):
        _same(_outcome(P.mean_then_inverse, x), _outcome(compiled, x), places=shape[0] == shape[1])
    captured(compiled).assert_graph_ran()


@pytest.mark.parametrize("action", ["error", "ignore", "once", "module", "default"])
def test_the_programs_module_filters_apply(action):
    compiled = md.compile(P.log_then_inverse)
    for x in (np.zeros((2, 2)), np.eye(2) - 1.0, np.eye(2)):
        for _ in range(2):
            _same(_outcome(P.log_then_inverse, x, action=action, module=P.__name__),
                  _outcome(compiled, x, action=action, module=P.__name__))
    captured(compiled).assert_graph_ran()


def test_the_default_action_shows_once_across_calls():
    compiled = md.compile(P.log_then_inverse)
    for fn in (P.log_then_inverse, compiled):
        with warnings.catch_warnings(record=True) as shown:
            warnings.simplefilter("default")
            for x in (np.eye(2) * 0 + 0.5, np.zeros((2, 2)), np.zeros((2, 2)), np.eye(2) - 1.0):
                try:
                    fn(x)
                except np.linalg.LinAlgError:
                    pass
        if fn is P.log_then_inverse:
            expected = [(str(w.message), w.filename, w.lineno) for w in shown]
    assert [(str(w.message), w.filename, w.lineno) for w in shown] == expected and len(expected) == 2
    captured(compiled).assert_graph_ran()


def test_which_graphs_hold_their_warnings():
    held = md.explain(P.log_then_inverse)(np.eye(2)).graphs[0]
    plain = md.explain(P.elementwise)(np.ones(3)).graphs[0]
    assert may_raise(held) and not may_raise(plain)


def step_with_counter(state, x):
    state["n"] += 1                         # an unspecialized int once its value guard has failed
    return np.tanh(x) * 2.0


def step_with_counter_divided(state, x):
    state["n"] = state["n"] // 3 + 10       # `//` raises on 0: such a graph holds
    return np.tanh(x) * 2.0


def step_with_float_state(state, x):
    state["t"] = state["t"] * 0.5 + 1.0     # floats alone: inf at worst, never an exception
    return np.tanh(x) * 2.0


def step_with_mixed_numbers(state, x):
    state["n"] += 1
    state["t"] = state["t"] + state["n"]    # float + int raises on an int too large for a float
    return np.tanh(x) * 2.0


@pytest.mark.parametrize("fn, holds, kind", [(step_with_counter, False, "py_int"),
                                             (step_with_counter_divided, True, "py_int"),
                                             (step_with_float_state, False, "py_float"),
                                             (step_with_mixed_numbers, True, "py_float")])
def test_a_graph_counting_in_python_numbers_holds_only_if_its_arithmetic_can_raise(fn, holds, kind):
    # a layer's step counter (`n + 1` on a py_int) made the recurrent layer's graph hold its warnings on
    # every call: 1.23x -> 1.57x eager at batch 1 (benchmarks/sizes.py)
    compiled = md.compile(fn)
    state, eager_state = {"n": 0, "t": 0.25}, {"n": 0, "t": 0.25}
    for k in range(4):
        x = np.full(3, float(k))
        assert np.array_equal(compiled(state, x), fn(eager_state, x)) and state == eager_state
    graphs = [r.graph for r in captured(compiled).all_records if r.graph is not None]
    assert kind in str(graphs[-1]), graphs[-1]
    assert may_raise(graphs[-1]) is holds


@pytest.mark.parametrize("x", [np.array([0.0, -1.0, 2.0]), np.array([0.0, 2.0]), np.array([-1.0]),
                               np.ones(3, np.float32)])
def test_an_elementwise_graph_under_a_raising_errstate_holds_its_warnings(x):
    # any ufunc may raise inside `np.errstate(invalid="raise")`: the divide-by-zero warning before the
    # FloatingPointError showed twice (the graph's, then the re-run's)
    compiled = md.compile(P.log_under_invalid_raise)
    for _ in range(2):
        _same(_outcome(P.log_under_invalid_raise, x), _outcome(compiled, x))
    captured(compiled).assert_graph_ran()


def exp_plus_one(x):
    return np.exp(x * 1000.0) + 1


def _helper_that_breaks(y):
    _ = float(y.sum())          # a graph break inside the `with` block below: f resumes inside it
    try:
        y.reshape(5, 7)
    except ValueError:
        pass
    return y


def exp_in_errstate_around_a_break(x, y):
    with np.errstate(under="raise"):
        e = np.exp(x * 1000.0)
        e = e + _helper_that_breaks(y)
    return e


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (0,), (2,), (2, 3)])
def test_an_elementwise_graph_under_the_callers_raising_errstate_warns_once(dtype, shape):
    # exp overflows (a warning) and underflows (FloatingPointError under the caller's errstate) in one call:
    # the graph raised after warning and the eager re-run warned again (found by the fuzzer, seed 594)
    compiled = md.compile(exp_plus_one, options={"suppress_errors": False})
    rows = [np.full(shape, v, dtype) for v in (1.0, -3.0)]
    mixed = np.resize(np.array([1.0, -3.0], dtype), shape)
    for x in rows + [mixed, mixed]:
        with np.errstate(under="raise"):
            _same(_outcome(exp_plus_one, x), _outcome(compiled, x))
        _same(_outcome(exp_plus_one, x), _outcome(compiled, x), places=False)      # the default state after
    captured(compiled).assert_graph_ran()


def test_the_error_state_set_by_seterr_between_calls_is_read_on_each_call():
    # np.seterr changes the state with no `with` block; a warm entry calls an elementwise graph directly only
    # while the state is the last one seen to make nothing raise (guarded_call._unless_raising)
    compiled = md.compile(exp_plus_one, options={"suppress_errors": False})
    x = np.array([1.0, -3.0])
    before = np.seterr()
    try:
        for state in ({}, {"under": "raise"}, {}, {"under": "raise", "over": "warn"}, {"under": "raise"}, {}):
            np.seterr(**{**before, **state})
            for _ in range(2):
                _same(_outcome(exp_plus_one, x), _outcome(compiled, x), places="under" in state)
    finally:
        np.seterr(**before)
    captured(compiled).assert_graph_ran()


def test_a_thread_in_a_raising_error_state_raises_while_another_calls_directly():
    # the error state is per thread (a context variable): one thread's quiet state lets only itself skip the
    # check. Warnings are ignored here (the filters are shared by the threads; other tests compare them).
    import threading
    compiled = md.compile(exp_plus_one, options={"suppress_errors": False})
    x = np.array([1.0, -3.0])
    outcomes, go = {}, threading.Barrier(2)

    def outcome(fn):
        try:
            return "value", fn(x.copy())
        except FloatingPointError as e:
            return "raised", str(e)

    def run(raising):
        go.wait()
        with np.errstate(under="raise") if raising else np.errstate():
            for k in range(50):
                outcomes[raising, k] = outcome(exp_plus_one), outcome(compiled)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled(x.copy())
        threads = [threading.Thread(target=run, args=(r,)) for r in (True, False)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(outcomes) == 100
    for (raising, _), (eager, comp) in outcomes.items():
        assert eager[0] == comp[0] == ("raised" if raising else "value")
        assert eager[1] == comp[1] if raising else np.array_equal(eager[1], comp[1])
    captured(compiled).assert_graph_ran()


def test_a_warm_elementwise_graph_is_called_without_a_wrapper_frame():
    # a wrapper's frame, *args and error-state check cost ~0.2 us of a 1.4 us call (benchmarks/overhead.py)
    import sys
    from minidynamo.stitch import held_warnings
    compiled = md.compile(exp_plus_one)
    x = np.array([1.0, 2.0])
    compiled(x)
    compiled(x)
    seen = []
    sys.setprofile(lambda frame, event, arg: seen.append(frame.f_code.co_filename) if event == "call" else None)
    try:
        compiled(x)
    finally:
        sys.setprofile(None)
    assert held_warnings.__file__ not in seen and any("minidynamo-graph" in f for f in seen), seen
    captured(compiled).assert_graph_ran()


def test_a_resumed_errstate_block_around_an_elementwise_graph_warns_once():
    compiled = md.compile(exp_in_errstate_around_a_break, options={"suppress_errors": False})
    for x in [np.array([[-3.0, 0.9, -0.1], [-0.2, -1.2, -0.1]], dtype) for dtype in (np.float32, np.float64)] * 2:
        y = np.ones(x.shape)
        _same(_outcome(exp_in_errstate_around_a_break, x, y), _outcome(compiled, x, y))
    captured(compiled).assert_graph_ran()


def overflow_then_add_then_inverse(x):
    a = x * 1e308           # warns (overflow) on this line
    b = a + 1.0             # ... read once here: generated code writes both in one expression
    return np.linalg.inv(b)


def log_sqrt_then_slice_inverse(x):
    a = np.log(x)           # divide by zero
    b = np.sqrt(a)          # invalid value: its one reader is the slice on the next line
    return np.linalg.inv(b[:2, :2] + 1)


@pytest.mark.parametrize("fn, x", [(overflow_then_add_then_inverse, np.full((2, 2), 10.0)),
                                   (log_sqrt_then_slice_inverse, np.array([[0.0, 1.0], [2.0, 3.0]]))])
def test_a_warning_of_an_operand_written_inside_a_later_line_comes_from_its_own_line(fn, x):
    # failed before: the operand's place was looked up from the column span where its frame stood after the
    # graph returned, so the warning came from its reader's line (4 instead of 3, 9 instead of 8)
    compiled = md.compile(fn)
    for _ in range(2):
        _same(_outcome(fn, x), _outcome(compiled, x))
    captured(compiled).assert_graph_ran()
