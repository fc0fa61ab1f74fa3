"""Functions made per call (closures, nested defs, lambdas) are guarded by their code, globals, the defaults
a call used and their cells' contents, not by the function object: a closure made on every call and then a
graph break is captured once (variables/function_sources.py)."""

import numpy as np
import pytest

import minidynamo as md
from minidynamo.api import _state_of
from tests.conftest import check


def _resume_stats(compiled):
    """Stats of every resume function of a compiled function, by qualname."""
    children = _state_of(compiled).children
    return [md.stats(c) for key, c in children.items() if key[0] == "resume"]


def _captures(result) -> int:
    """Captures of the function and of all its resume functions."""
    return result.stats.pieces[0].captures + sum(s.captures for s in _resume_stats(result.compiled))


def closure_then_print(x, k):
    def tick(y):
        return y * k + x
    z = np.sin(x)
    print(f"{z.sum():.3f}")
    return tick(z)


def closure_then_branch(x, k):
    scale = lambda y: y * k    # noqa: E731
    z = np.sin(x)
    if z.sum() > 0:
        print("positive")     # an arm with a side effect: a real break, not a cond node
        return scale(z) + 1
    return scale(z) - 1


def test_closure_per_call_then_print_is_captured_once():
    calls = [(np.arange(3.0) + i, 2) for i in range(6)]
    r = check(closure_then_print, *calls[0], calls=calls[1:])
    assert r.stats.pieces[0].captures == 1
    resumes = _resume_stats(r.compiled)
    assert [s.captures for s in resumes] == [1] and resumes[0].hits == 5


def test_closure_per_call_then_branch_is_captured_once_per_arm():
    calls = [(np.arange(3.0) * (-1) ** i, 3) for i in range(6)]
    r = check(closure_then_branch, *calls[0], calls=calls[1:])
    assert r.stats.pieces[0].captures == 1
    resumes = _resume_stats(r.compiled)
    # the branch's resume function once per truth value, the arm after the print once
    assert resumes and sum(s.captures for s in resumes) <= 3 and sum(s.hits for s in resumes) >= 6


def test_cell_int_constant_changes():
    # k changes: the cell's int is guarded by value, then kept unspecialized (automatic dynamic), never stale
    calls = [(np.arange(3.0), k) for k in (1, 2, 3, 4, 5, 6)]
    r = check(closure_then_print, np.arange(3.0), 0, calls=calls)
    assert _captures(r) <= 3


def test_cell_array_is_read_at_call_time():
    calls = [(np.full(3, float(i)), 2) for i in range(6)]
    r = check(closure_then_print, np.zeros(3), 2, calls=calls)
    assert _captures(r) == 2


def rebinds_nonlocal(x, n):
    total = x * 0

    def add(v):
        nonlocal total
        total = total + v
    add(x)
    print(f"{float(total.sum()):.2f}")
    add(x * n)
    return total


def test_rebound_nonlocal_cell_is_reread():
    calls = [(np.arange(4.0) + i, i) for i in range(6)]
    r = check(rebinds_nonlocal, *calls[0], calls=calls[1:])
    assert _captures(r) <= 3


def apply(fn, x):
    y = np.tanh(x)
    print(f"{y.sum():.3f}")
    return fn(y)


def make_scaler(a, b=2.0, *, c=1.0):
    def scale(y, bb=b, *, cc=c):
        return y * a * bb + cc
    return scale


def test_fresh_closure_argument_with_same_code_different_cells():
    x = np.linspace(-1, 1, 5)
    calls = [(make_scaler(np.full(5, float(i))), x) for i in range(6)]
    r = check(apply, make_scaler(np.ones(5)), x, calls=calls)
    assert _captures(r) == 2


def test_changed_defaults_give_eager_results():
    x = np.linspace(-1, 1, 5)
    calls = [(make_scaler(1.0, b), x) for b in (2.0, 3.0, -1.0)] + \
        [(make_scaler(1.0, c=c), x) for c in (1.0, 5.0)]
    check(apply, make_scaler(1.0), x, calls=calls)


def test_mutated_function_object_fails_a_guard():
    x = np.linspace(-1, 1, 5)
    fn = make_scaler(2.0)
    compiled = md.compile(apply)
    np.testing.assert_array_equal(compiled(fn, x), apply(fn, x))
    fn.__defaults__ = (10.0,)
    np.testing.assert_array_equal(compiled(fn, x), apply(fn, x))
    fn.__kwdefaults__ = {"cc": -3.0}
    np.testing.assert_array_equal(compiled(fn, x), apply(fn, x))
    fn.__code__ = _double_code(fn)
    np.testing.assert_array_equal(compiled(fn, x), apply(fn, x))
    fn.tag = "irrelevant"       # an attribute an inlined call never reads
    np.testing.assert_array_equal(compiled(fn, x), apply(fn, x))
    assert md.stats(compiled).recompiles == 3           # defaults, keyword defaults, code; not the tag


def _double_code(like):
    a = bb = cc = None    # same free variables as `scale`, a different body

    def scale(y, bb=1.0, *, cc=0.0):
        return (y * a) * 2 + bb + cc
    del a, bb, cc
    assert scale.__code__.co_freevars == like.__code__.co_freevars
    return scale.__code__


def make_offset(a):
    def offset(y, bb=2.0, *, cc=1.0):
        return y + a - bb - cc
    return offset


def test_different_code_object_recaptures():
    x = np.linspace(-1, 1, 5)
    calls = [(make_offset(1.0), x), (make_scaler(1.0), x), (make_offset(2.0), x), (lambda y: y, x)]
    check(apply, make_scaler(1.0), x, calls=calls)


def test_function_read_from_an_object():
    import types
    x = np.arange(4.0)
    calls = [(types.SimpleNamespace(act=make_scaler(float(i))), x) for i in range(5)]

    def layer(obj, x):
        h = np.exp(x)
        print(f"{h.max():.2f}")
        return obj.act(h)
    r = check(layer, types.SimpleNamespace(act=make_scaler(3.0)), x, calls=calls)
    assert _captures(r) <= 3


def test_optional_callback_is_not_pinned():
    def f(x, cb=None):
        y = x + 1
        if cb is not None:
            y = cb(y)
        return y
    x = np.arange(3.0)
    calls = [(x, make_scaler(float(i))) for i in range(6)] + [(x, None)]
    r = check(f, x, make_scaler(1.0), calls=calls)
    assert r.stats.captures <= 3


def _pair():
    state = np.zeros(3)

    def bump(v):
        nonlocal state
        state = state + v

    def read():
        return state
    return bump, read


def bump_then_read(bump, read, x):
    bump(x)
    return read() * 2


def test_shared_cell_relation_is_guarded():
    # A bump and a read sharing a cell, then pairs that do not share one (and back): the write through
    # bump's cell must reach read exactly when they share it. check() would share the cells between the
    # eager and the compiled run, so each run gets its own pairs here.
    x = np.arange(3.0)
    plan = [(0, 0), (1, 1), (2, 1), (1, 2), (0, 0), (3, 3)]
    eager_pairs, compiled_pairs = [_pair() for _ in range(4)], [_pair() for _ in range(4)]
    compiled = md.compile(bump_then_read)
    for b, r in plan:
        want = bump_then_read(eager_pairs[b][0], eager_pairs[r][1], x)
        got = compiled(compiled_pairs[b][0], compiled_pairs[r][1], x)
        np.testing.assert_array_equal(got, want)
    for (eb, er), (cb, cr) in zip(eager_pairs, compiled_pairs):
        np.testing.assert_array_equal(cr(), er())
    stats = md.stats(compiled)                  # one capture for shared cells, one for distinct ones
    assert (stats.captures, stats.hits) == (2, 4)
    assert stats.guard_failures == [["read.__closure__[0] and bump.__closure__[0] are two distinct objects now "
                                     "(captured as one object)"]]


@pytest.mark.parametrize("make", [lambda: (lambda y: y * 2), lambda: make_scaler(2.0)])
def test_identity_pinned_when_used_as_a_value(make):
    def f(fn, x):
        y = np.sqrt(x)
        print(f"{y.sum():.2f}")
        return [fn, y]
    x = np.arange(3.0)
    fns = [make() for _ in range(4)]
    check(f, fns[0], x, calls=[(g, x) for g in fns[1:]])


def make_printing(a):
    def act(y):
        print(f"act {a}")
        return y * a
    return act


def call_then_add(fn, x):
    y = np.tanh(x)
    return fn(y) + 1


def test_breaking_call_of_a_fresh_closure_calls_that_closure():
    # The break is inside the closure. The first capture calls its compiled form, guarded by identity; a
    # second function object with the same code marks the argument as made per call, and from then on the
    # entry calls the very function it is given (never the first one seen).
    x = np.arange(3.0)
    r = check(call_then_add, make_printing(0.0), x, calls=[(make_printing(float(i)), x) for i in range(1, 6)])
    assert r.stats.pieces[0].captures == 2 and r.stats.pieces[0].hits == 4


def test_breaking_call_of_fresh_closures_with_dynamic_false():
    # dynamic=False keeps numbers and sizes specialized, not function objects
    x = np.arange(3.0)
    compiled = md.compile(call_then_add, dynamic=False)
    check(call_then_add, make_printing(0.0), x, calls=[(make_printing(float(i)), x) for i in range(1, 6)],
          compiled=compiled)
    assert md.stats(compiled).pieces[0].captures == 2


def test_breaking_call_of_a_closure_made_once_is_compiled():
    x = np.arange(3.0)
    act = make_printing(2.0)
    r = check(call_then_add, act, x, calls=[(act, x + i) for i in range(1, 6)])
    assert r.stats.pieces[0].captures == 1
    callees = [md.stats(c) for key, c in _state_of(r.compiled).children.items() if key[0] == "callee"]
    assert len(callees) == 1 and callees[0].hits == 5     # the closure's body is captured too


def same_function(cb, x, other):
    return x * (cb is other)


def test_identity_of_two_fresh_functions_is_a_relation():
    x = np.arange(3.0)
    g = make_scaler(2.0)
    r = check(same_function, g, x, g, calls=[(make_scaler(1.0), x, make_scaler(1.0)), (g, x, g)])
    assert r.reasons == [] and r.stats.captures == 2     # `is` True, then `is` False: no identity pinned


def test_method_code_and_defaults_changes_fail_a_guard():
    # A method is one object for its class's lifetime, but its __code__ and __defaults__ are writable.
    class Layer:
        def __init__(self, s):
            self.s = s

        def act(self, y, b=1.0):
            return y * self.s + b

        def __call__(self, x):
            return self.act(np.tanh(x))

    def minus(self, y, b=1.0):
        return y - self.s - b

    def run(layer, x):
        return layer(x)
    compiled, x, layer = md.compile(run), np.arange(3.0), Layer(2.0)
    np.testing.assert_array_equal(compiled(layer, x), run(layer, x))
    Layer.act.__defaults__ = (5.0,)
    np.testing.assert_array_equal(compiled(layer, x), run(layer, x))
    Layer.act.__code__ = minus.__code__
    np.testing.assert_array_equal(compiled(layer, x), run(layer, x))
    assert md.stats(compiled).captures == 3


def module_helper(y, b=1.0, *, c=2.0):
    return y * b + c


def calls_module_helper(x):
    return module_helper(np.cos(x))


def test_module_level_function_defaults_and_code_changes_fail_a_guard():
    saved = module_helper.__defaults__, module_helper.__kwdefaults__, module_helper.__code__
    compiled, x = md.compile(calls_module_helper), np.arange(3.0)
    try:
        for change in [lambda: None, lambda: setattr(module_helper, "__defaults__", (3.0,)),
                       lambda: setattr(module_helper, "__kwdefaults__", {"c": -1.0}),
                       lambda: setattr(module_helper, "__code__", (lambda y, b=1.0, *, c=2.0: y - b - c).__code__)]:
            change()
            np.testing.assert_array_equal(compiled(x), calls_module_helper(x))
        assert md.stats(compiled).captures == 4
    finally:
        module_helper.__defaults__, module_helper.__kwdefaults__, module_helper.__code__ = saved


class Regressor:
    """A model whose regularizer is a lambda carrying its gradient as a function attribute."""

    def __init__(self, alpha):
        self.regularization = lambda w: alpha * (w @ w)
        self.regularization.grad = lambda w: 2 * alpha * w
        self.w = np.ones(3)

    def step(self, X, y):
        residual = X @ self.w - y
        loss = np.mean(residual ** 2) + self.regularization(self.w)
        self.w = self.w - 0.01 * (X.T @ residual + self.regularization.grad(self.w))
        return loss


def scaled(x):
    return x * module_helper.scale


def test_an_attribute_set_on_a_function_is_read_through_its_source():
    X, y = np.arange(12.0).reshape(4, 3), np.arange(4.0)
    r = check(Regressor.step, Regressor(0.1), X, y, calls=[(Regressor(0.1), X, y + 1)]).assert_no_breaks()
    assert r.stats.captures == 1        # a new lambda per object: guarded by code and cells, not identity
    other = Regressor(0.1)
    other.regularization.grad = lambda w: -w          # another function in the attribute: captured again
    check(Regressor.step, other, X, y, compiled=r.compiled)
    module_helper.scale = 2.0
    try:
        compiled = md.compile(scaled)
        np.testing.assert_array_equal(compiled(X), X * 2.0)
        module_helper.scale = 3.0                     # a float read by value: its guard fails, recaptured
        np.testing.assert_array_equal(compiled(X), X * 3.0)
        del module_helper.scale
        with pytest.raises(AttributeError):
            compiled(X)
    finally:
        module_helper.__dict__.pop("scale", None)


@md.compile
def compiled_act(x, slope=0.1):
    return np.where(x >= 0, x, slope * x)


class DecoratedLayer:
    """Every method compiled, as a user decorating a model's methods would."""

    def __init__(self, w):
        self.w = w

    @md.compile
    def forward(self, x, training=True):
        h = compiled_act(x @ self.w)
        return self.noisy(h) if training else h

    @md.compile
    def noisy(self, h):
        print("noisy", h.shape)            # breaks inside the callee: it runs compiled on its own
        return h * 2


def test_a_compiled_function_called_from_compiled_code_inlines_what_it_compiled():
    x, w = np.linspace(-1, 1, 6).reshape(2, 3), np.ones((3, 3))
    compiled_act(x)                        # its own cache has an entry: never inlined as dispatcher code
    r = check(DecoratedLayer.forward.__wrapped__, DecoratedLayer(w), x, False,
              calls=[(DecoratedLayer(w), x, True), (DecoratedLayer(w * 2), x, False)])
    assert r.graphs[0].ops() == {"matmul": 1, "greater_equal": 1, "multiply": 1, "where": 1}
    r = check(DecoratedLayer.forward.__wrapped__, DecoratedLayer(w), x, True)
    assert [reason.opname for reason in r.reasons] == ["CALL"]      # only the print inside noisy
    assert "api.py" not in str(r.reasons)    # never minidynamo's own miss path
    layer = DecoratedLayer(w)
    np.testing.assert_array_equal(layer.forward(x), DecoratedLayer.forward.__wrapped__(DecoratedLayer(w), x))
