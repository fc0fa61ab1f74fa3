"""Shadow verification (minidynamo/verify.py, `verify_every`): a compiled call made wrong on purpose (a
perturbing backend, a graph replaced in the cache) is caught and named; right calls pass silently; off, the
dispatcher has no verification code at all."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

import minidynamo as md
from minidynamo.backends import register_backend
from minidynamo.backends.registry import get_backend


def _perturbing(graph, example_inputs):
    """The numpy backend, but each float array output has 1.0 added to its element [1] (flat)."""
    run = get_backend("numpy")(graph, example_inputs)

    def perturbed(*args):
        out = run(*args)
        if out is None:
            return out
        fixed = []
        for o in out:
            if isinstance(o, np.ndarray) and o.dtype.kind == "f" and o.size > 1:
                o = o.copy()
                o.flat[1] += 1.0
            fixed.append(o)
        return tuple(fixed)
    return perturbed


register_backend("test_perturbing", _perturbing)


def block(x, w):
    return np.tanh(x @ w) + x


def loud(x):
    y = np.sin(x) * 2
    if y.sum() > 0:
        print("positive")
    return y + 1


def scale_into(out, x):
    out[...] = x * 3


def _inputs():
    rng = np.random.default_rng(0)
    return rng.random((4, 8)), rng.random((8, 8))


def test_a_perturbing_backend_is_caught_and_named():
    with md.config.patch(verify_every=1):
        f = md.compile(block, backend="test_perturbing")
    x, w = _inputs()
    f(x, w)                       # the capturing call is not compared (not warm)
    with pytest.raises(md.VerificationError) as info:
        f(x, w)
    e = info.value
    assert e.function == "block" and e.output == "the result" and e.pieces == ["block"]
    assert e.detail.startswith("the result[0, 1]: compiled ")
    assert f"eager {block(x, w)[0, 1]!r}" in e.detail
    assert "verify block: the compiled call differs from eager in the result" in str(e)


def test_a_replaced_graph_in_a_resume_piece_is_caught_naming_the_piece(capsys):
    with md.config.patch(verify_every=1):
        f = md.compile(loud)
    x = np.linspace(0.1, 1, 5)
    f(x)
    f(x)                           # warm, right: silent
    state = f._minidynamo
    assert state.cache.verifier.checked == 1
    resumed = [s for s in map(md.api._state_of, state.children.values()) if s is not None and s is not state]
    graphs = [(s.cache.namespace, n) for s in resumed for n in s.cache.namespace if n.endswith("_graph")]
    ns, name = graphs[-1]              # the piece after the print: `return y + 1`
    ns[name] = _off_by_one(ns[name])
    with pytest.raises(md.VerificationError) as info:
        f(x)
    assert info.value.output == "the result" and any("resumed at line" in p for p in info.value.pieces)
    assert "positive\n" * 2 + "positive\n" in capsys.readouterr().out    # printed once per call


def _off_by_one(graph):
    """A compiled graph made wrong: its float array outputs, and the arrays it was given, 1.0 lower at [1]."""
    def wrong(*args):
        out = graph(*args)
        for a in [*args, *(out or ())]:
            if isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.size > 1 and a.flags.writeable:
                a.flat[1] -= 1.0
        return out
    return wrong


def _graph_names(f):
    return [n for n in f._minidynamo.cache.namespace if n.endswith("_graph")]


def test_a_wrong_write_into_an_argument_is_caught():
    with md.config.patch(verify_every=1):
        f = md.compile(scale_into)
    out, x = np.zeros(6), np.arange(6.0)
    f(out, x)
    ns = f._minidynamo.cache.namespace
    (name,) = _graph_names(f)
    ns[name] = _off_by_one(ns[name])
    with pytest.raises(md.VerificationError) as info:
        f(out, x)
    assert info.value.output == "argument 0 after the call"
    assert info.value.detail == "argument 0[1]: compiled np.float64(2.0), eager np.float64(3.0)"


def test_warn_returns_the_eager_result_and_eager_writes():
    with md.config.patch(verify_every=1, verify_action="warn"):
        f = md.compile(block, backend="test_perturbing")
        g = md.compile(scale_into)
    x, w = _inputs()
    f(x, w)
    with pytest.warns(md.VerificationWarning, match="in the result"):
        got = f(x, w)
    assert np.array_equal(got, block(x, w))
    out, y = np.zeros(6), np.arange(6.0)
    g(out, y)
    ns = g._minidynamo.cache.namespace
    (name,) = _graph_names(g)
    ns[name] = _off_by_one(ns[name])
    with pytest.warns(md.VerificationWarning, match="argument 0 after the call"):
        assert g(out, y) is None
    assert np.array_equal(out, y * 3)           # eager's writes, not the wrong ones


def test_every_nth_warm_call_is_compared():
    with md.config.patch(verify_every=3):
        f = md.compile(block, backend="test_perturbing")
    x, w = _inputs()
    f(x, w)
    f(x, w)
    with pytest.raises(md.VerificationError):
        f(x, w)
    f(x, w)
    f(x, w)
    with pytest.raises(md.VerificationError):
        f(x, w)


def test_differences_in_exceptions_printed_output_and_random_state_are_named(monkeypatch):
    from minidynamo import verify
    from minidynamo.verify import Verifier
    monkeypatch.setattr(verify, "other_threads", lambda: False)   # (threads earlier tests left may run)

    def same(*a):
        return 1

    def check(compiled, eager, expected):
        v = Verifier(eager, 1, "raise", True, warm=iter(range(1, 100)).__next__, pieces=dict)
        v.dispatcher = compiled
        with pytest.raises(md.VerificationError) as info:
            v()
        assert info.value.output == expected, info.value

    def raises():
        raise ValueError("x")

    def prints():
        print("a")
        return 1

    def draws():
        np.random.random()
        return 1

    def draws_py():
        random.random()
        return 1

    check(raises, same, "the exception")
    check(prints, same, "the printed output")
    check(draws, same, "the global random state")
    check(draws_py, same, "the global random state")


def test_right_calls_pass_silently_through_breaks_mutation_prints_and_draws(capsys):
    def program(x, log, rng):
        y = x * 2 + rng.normal(size=x.shape)
        log.append(float(y.sum()))
        x[0] = -1.0
        if y.sum() > 0:
            print("up")
        return y, np.random.random()

    with md.config.patch(verify_every=1):
        f = md.compile(program)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            np.random.seed(1)
            f(np.arange(4.0), [], np.random.default_rng(2))
    assert f._minidynamo.cache.verifier.checked == 2
    assert capsys.readouterr().out == "up\n" * 3


def test_off_the_dispatcher_has_no_verification_code():
    with md.config.patch(verify_every=0):       # (also under `pytest --verify-every=N`)
        f = md.compile(block)
    f(*_inputs())
    assert "___verify" not in f.__minidynamo_source__ and f._minidynamo.cache.verifier is None
    with md.config.patch(verify_every=2):
        g = md.compile(block)
    assert "___verify" in g.__minidynamo_source__


def test_bad_verify_options_raise_at_the_call():
    with pytest.raises(TypeError, match="verify_action"):
        md.config.patch(verify_action="loud")
    with pytest.raises(TypeError, match="verify_every"):
        md.compile(block, options={"verify_every": -1})


TOTAL = 0
HISTORY: list = []


def accumulate(x):
    global TOTAL
    TOTAL = TOTAL + 1
    HISTORY.append(TOTAL)
    return x * TOTAL


def test_globals_the_function_writes_are_put_back_between_the_runs():
    """Both runs start from the same globals, and the caller sees them changed once (before, the eager
    run saw the compiled call's TOTAL and HISTORY: a false difference, and a double append)."""
    global TOTAL
    TOTAL = 0
    HISTORY.clear()
    with md.config.patch(verify_every=1):
        f = md.compile(accumulate)
    for n in range(1, 6):        # TOTAL changes per call: captured again once, then unspecialized (warm)
        assert np.array_equal(f(np.ones(2)), np.full(2, float(n)))
    assert TOTAL == 5 and HISTORY == [1, 2, 3, 4, 5] and f._minidynamo.cache.verifier.checked >= 2


SENTINEL = object()


def marked(x, marker=SENTINEL):
    return x * 2.0 if marker is SENTINEL else x - 1.0


def counter():
    n = 0

    def bump():
        nonlocal n
        n += 1
        return n
    return bump


def bumps(bump, x):
    return x * bump()


def test_sentinels_stay_themselves_and_cells_of_passed_functions_are_put_back():
    """A global sentinel passed in is the same object in the eager run, and a closure passed in counts once
    per call (before: the copy was another object, and the eager run bumped the shared cell again)."""
    with md.config.patch(verify_every=1):
        f, g = md.compile(marked), md.compile(bumps)
    x = np.ones(2)
    for _ in range(3):
        assert np.array_equal(f(x, SENTINEL), x * 2.0)
    bump = counter()
    for n in range(1, 4):
        assert np.array_equal(g(bump, x), x * n)
    assert bump() == 4 and f._minidynamo.cache.verifier.checked == 2 and g._minidynamo.cache.verifier.checked >= 1


def near_zero(x):
    m = x.mean()
    print("mean", m)
    return x - m


def _rounding(graph, example_inputs):
    """The numpy backend, each float output changed in its last bits (as an engine's rounding may)."""
    run = get_backend("numpy")(graph, example_inputs)

    def rounded(*args):
        out = run(*args)
        return out if out is None else tuple(np.nextafter(o, np.inf) if isinstance(o, np.ndarray) and
                                             o.dtype.kind == "f" else o for o in out)
    return rounded


register_backend("test_rounding", _rounding)


def test_engine_backends_are_compared_within_tolerance_results_near_zero_and_printed_numbers_too(capsys):
    """Not the numpy backend: a last-bit difference in a value near 0 after cancellation, or in a printed
    number, is no difference (before: atol 0 and exact text flagged both)."""
    with md.config.patch(verify_every=1):
        f = md.compile(near_zero, backend="test_rounding")
    x = np.array([1.0, 2.0, 3.0])          # x - mean has a 0, which the backend makes 5e-324
    for _ in range(3):
        f(x)
    assert f._minidynamo.cache.verifier.checked == 2


def write_into(x):
    x[0] = 1.0
    return x * 2


def test_a_read_only_argument_stays_read_only_in_the_eager_run():
    """The write raises in both runs (before: the deep copy was writeable, the eager run returned, and
    verification reported a difference in the exception)."""
    with md.config.patch(verify_every=1):
        f = md.compile(write_into)
    x = np.zeros(3)
    x.flags.writeable = False
    for _ in range(3):
        with pytest.raises(ValueError, match="read-only"):
            f(x)
    assert f._minidynamo.cache.verifier.checked >= 1


def test_random_streams_are_not_compared_while_another_thread_runs():
    import threading
    from minidynamo.verify import Verifier, other_threads

    def draws():
        np.random.random()
        return 1

    stop = threading.Event()
    t = threading.Thread(target=stop.wait, name="someone-elses")
    t.start()
    try:
        assert other_threads()
        v = Verifier(lambda: 1, 1, "raise", True, warm=iter(range(1, 100)).__next__, pieces=dict)
        v.dispatcher = draws
        assert v() == 1 and v.checked == 1
    finally:
        stop.set()
        t.join()


def write_scalar(out, v):
    out[...] = v * 2
    return out


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32, np.bool_, np.complex128])
def test_a_zero_d_argument_is_compared_bit_for_bit(dtype):
    # the comparison viewed a 0-d array as uint8, which NumPy refuses ("Changing the dtype of a 0d array is
    # only supported if the itemsize is unchanged"): every verified call with a 0-d argument raised that
    with md.config.patch(verify_every=1):
        f = md.compile(write_scalar)
    for _ in range(3):
        out = np.zeros((), dtype)
        assert f(out, 3) == write_scalar(np.zeros((), dtype), 3)
    ns = f._minidynamo.cache.namespace
    (name,) = _graph_names(f)
    graph = ns[name]

    def flipped(*args):                     # a wrong graph: the 0-d argument's lowest bit flipped
        out = graph(*args)
        a = args[0]
        a.reshape(1).view(np.uint8)[0] ^= 1
        return out
    ns[name] = flipped
    with pytest.raises(md.VerificationError, match="differs from eager in the result"):
        f(np.zeros((), dtype), 3)


class CountingLayer:
    def __init__(self, gain):
        self.gain, self.calls = gain, 0

    def __call__(self, z):
        self.calls += 1
        return z * self.gain


LAYER = CountingLayer(1.5)
LAYERS = [CountingLayer(0.5), CountingLayer(2.0)]
SHUFFLER = np.random.default_rng(23)


def through_layers(x):
    return LAYER(x) + sum(layer(x) for layer in LAYERS)


def _shuffle_copy(y):
    out = y * 1.0
    SHUFFLER.shuffle(out)
    return out


def shuffled(x):
    return _shuffle_copy(x) + 1


CALL_LOG: list = []


@md.disable
def _logged(x):
    CALL_LOG.append(x.shape)
    return x * 2


def through_a_disabled_helper(x):
    return _logged(x + 1) - 1


def test_verification_runs_leave_the_program_state_as_eager_leaves_it():
    # the eager re-run's effects are put back, also on a callable global object, on objects inside a global
    # list, and on a global generator a helper of the module draws from: the program sees one run per call
    # (the verified program counted LAYER.calls 5 and LAYERS[0].calls 3 after 3 calls, and shuffled twice)
    x = np.arange(4.0)
    eager = [(through_layers(x), shuffled(x)) for _ in range(3)]
    state = LAYER.calls, [layer.calls for layer in LAYERS], SHUFFLER.bit_generator.state
    LAYER.calls = 0
    for layer in LAYERS:
        layer.calls = 0
    SHUFFLER.bit_generator.state = np.random.default_rng(23).bit_generator.state
    with md.config.patch(verify_every=1):
        compiled = [md.compile(through_layers), md.compile(shuffled)]
        got = [(compiled[0](x), compiled[1](x)) for _ in range(3)]
    assert all(np.array_equal(a, b) for pair in zip(eager, got) for a, b in zip(*pair))
    assert (LAYER.calls, [layer.calls for layer in LAYERS], SHUFFLER.bit_generator.state) == state
    assert all(c._minidynamo.cache.verifier.checked >= 1 for c in compiled)


def test_a_disabled_helper_logs_once_per_verified_call():
    # the helper is minidynamo.disable's wrapper of a function of this module: the globals the function it
    # wraps names (CALL_LOG) are put back too, so the log has one line per call (two before)
    CALL_LOG.clear()
    with md.config.patch(verify_every=1):
        compiled = md.compile(through_a_disabled_helper)
        for _ in range(3):
            compiled(np.ones(2))
    assert len(CALL_LOG) == 3 and compiled._minidynamo.cache.verifier.checked == 2


def test_a_call_that_loads_a_module_is_not_compared(tmp_path, monkeypatch, capsys):
    # the module's top level prints as it loads; eager's re-run would find it loaded and print nothing: not a
    # difference of the compiled code (VerificationError before), so that call is not compared
    import sys
    (tmp_path / "verify_loaded_mod.py").write_text("print('loading')\nSCALE = 3.0\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    ns: dict = {}
    exec("def f(x):\n    y = x + 1\n    import verify_loaded_mod as m\n    return y * m.SCALE\n", ns)
    with md.config.patch(verify_every=1):
        cf = md.compile(ns["f"])
        x = np.arange(3.0)
        for loads in (True, False, True):
            if loads:
                sys.modules.pop("verify_loaded_mod", None)
            assert np.array_equal(cf(x), (x + 1) * 3.0)
            assert capsys.readouterr().out == ("loading\n" if loads else "")
    assert cf._minidynamo.cache.verifier.checked >= 1
    sys.modules.pop("verify_loaded_mod", None)


def warns_once(x):
    return np.log(x)


def test_a_default_action_warning_still_shows_once_across_verified_calls():
    # the eager run's warnings are hidden without warnings.catch_warnings, whose exit resets the registry of
    # places already warned about (so 'default' showed the same warning again on the next call)
    compiled = md.compile(warns_once)
    with md.config.patch(verify_every=1):
        verified = md.compile(warns_once)
    for fn in (warns_once, compiled, verified):
        with warnings.catch_warnings(record=True) as shown:
            warnings.simplefilter("default")
            for _ in range(4):
                fn(np.zeros(2))
        assert len(shown) == 1, (fn, [str(w.message) for w in shown])
    assert verified._minidynamo.cache.verifier.checked == 3
