"""Adversarial graph-break tests: breaks placed where the stack, the locals, side effects, loops and
exceptions make resuming hard. Every test is differential (`check`): eager and compiled must agree on
results (bit-identical, types included), exceptions, printed output, argument mutation and aliasing."""

from __future__ import annotations

import json

import numpy as np

import minidynamo as md
from tests.conftest import check

RNG = np.random.default_rng(11)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((3, 4))
POS = np.abs(A) + 0.1
NEG = -POS


# ---- placement: start, end, between side effects -----------------------------------------------------

def break_first(x):
    print("first")
    return x * 2.0


def break_last(x):
    y = x * 2.0
    print("last", y.shape)


def break_in_return(x):
    y = np.tanh(x)
    return y.sum().item()


def test_break_at_start_and_end():
    check(break_first, A, calls=[(B,), (A[:2],)])
    check(break_last, A, calls=[(B,), (A[:2],)])
    check(break_in_return, A, calls=[(B,), (A[:2],)])


def between_side_effects(x, log, d, ns):
    log.append(x.shape[0])
    d["a"] = x * 2.0
    ns.v = x.sum()
    print("mid", len(log), sorted(d))
    log.append("after")
    d["b"] = x.mean().item()
    ns.w = ns.v + 1
    return log, d


class NS:
    pass


def _ns(**kw):
    ns = NS()
    ns.__dict__.update(kw)
    return ns


def test_break_between_side_effects_on_lists_dicts_attributes():
    check(between_side_effects, A, [], {}, _ns(), calls=[(B, [1], {"z": 1}, _ns(q=1)), (A[:2], [], {}, _ns())])


COUNTER = [0]
GVAL = 0.0


def global_side_effects(x):
    global GVAL
    GVAL = x.sum().item()
    COUNTER.append(1)
    print("g", GVAL)
    GVAL = GVAL + 1.0
    return x + GVAL


def test_break_between_global_writes():
    check(global_side_effects, A, calls=[(B,), (A,)], globals_to_check=["GVAL", "COUNTER"])


def after_inplace_write(x):
    x[0] = 5.0
    print("after write", x[0, 0])
    x[1] += x[0]
    return x


def test_break_right_after_in_place_write():
    check(after_inplace_write, A.copy(), calls=[(B.copy(),)])


# ---- nested helpers ------------------------------------------------------------------------------------

def inner_breaks(h):
    h = h + 1.0
    s = h.sum().item()
    return h * s


def middle(h):
    g = inner_breaks(h * 2.0)
    return g - 1.0


def outer(x):
    y = np.exp(x)
    z = middle(y)
    return z + y


def test_two_levels_of_inlining_with_a_break_in_the_innermost():
    check(outer, A, calls=[(B,), (A[:1],)])


# ---- stack values below the break ----------------------------------------------------------------------

def and_or(x, a):
    y = a + (x.sum() > 0 and 1 or 2)
    return y


def ternary(x):
    return x * (2.0 if x.sum() > 0 else -3.0) + 1.0


def call_with_break_in_arg(x, y):
    return np.add(x, y.sum().item())


def print_in_arg(x):
    return id_(print("a"), x)


def id_(a, b):
    return b


def kwarg_break(x, k):
    return np.sum(x, axis=int(k.sum()))


def fstring_break(x):
    s = f"v={x.sum().item():.3f} n={x.shape[0]}"
    return s, x * 2


def list_with_break(x):
    return [x + 1.0, x.sum().item(), x * 2.0]


def dict_with_break(x):
    return {"a": x, "s": x.sum().item(), "b": x - 1.0}


def test_break_with_values_below_it_on_the_stack():
    check(and_or, A, 3, calls=[(B, 3), (-np.abs(A), 4), (A, 5.5)])
    check(ternary, POS, calls=[(NEG,), (POS,)])
    check(call_with_break_in_arg, A, B, calls=[(B, A)])
    check(print_in_arg, A, calls=[(B,)], expect_graph=False)
    check(kwarg_break, A, np.array([1]), calls=[(A, np.array([0])), (A, np.array([1]))])
    check(fstring_break, A, calls=[(B,)])
    check(list_with_break, A, calls=[(B,)])
    check(dict_with_break, A, calls=[(B,)])


def comprehension_break(xs):
    return [x.sum().item() for x in xs]


def comprehension_break_arrays(xs):
    y = [x * 2.0 for x in xs if x.sum() > 0]
    return y


def test_break_inside_comprehensions():
    xs = [A, B, POS, NEG]
    check(comprehension_break, xs, calls=[(xs[:2],), (xs[::-1],)],
          expect_graph=False).assert_broke("x.item() needs the array's values")   # (3.11: no graph)
    check(comprehension_break_arrays, xs, calls=[(xs[:2],), (xs[::-1],)],
          expect_graph=False).assert_broke("branch on the value of a NumPy bool")   # (3.11: no graph)


def unknown_library(x):
    y = x * 2.0
    s = json.dumps({"n": int(y.shape[0])})
    return s, y + 1.0


def c_function(x):
    y = x + 1.0
    r = np.random.default_rng(0).random(3)
    return y, r


def test_unknown_library_and_c_function_calls():
    check(unknown_library, A, calls=[(B,), (A[:1],)])
    check(c_function, A, calls=[(B,)])


def varargs(x, *rest, **kw):
    s = x.sum().item()
    return x * s, len(rest), sorted(kw), rest


def defaults(x, scale=2.0, *, shift=1.0):
    print("d", scale)
    return x * scale + shift


def test_break_in_functions_with_varargs_and_defaults():
    check(varargs, A, 1, 2, k=3, calls=[(B,), (A, B, {"z": 1})])
    check(defaults, A, calls=[(B, 3.0), (A, 2.0), {"x": A, "shift": 5.0}])


class Model:
    def __init__(self, w):
        self.w = w
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        h = x @ self.w
        print("forward", self.calls)
        self.calls += 1
        return h * h.sum().item()


def method_call(m, x):
    return m.forward(x)


def test_break_in_a_method():
    w = RNG.standard_normal((4, 2))
    check(method_call, Model(w), A, calls=[(Model(w), B), (Model(w * 2), A)])
    check(Model.forward, Model(w), A, calls=[(Model(w), B)])


SCALE = 3.0


def make_closure(k):
    def f(x):
        y = x * k
        print("closure")
        return y + k
    return f


def with_lambda(x):
    h = x * 2.0
    g = lambda t: t + h  # noqa: E731
    print("lam")
    h = h + 1.0
    return g(x)


def generator_user(x):
    def gen(n):
        for i in range(n):
            print("gen", i)
            yield x * i
    return sum(gen(3))


def test_break_in_closures_cellvars_generators():
    check(make_closure(2.0), A, calls=[(B,)])
    check(with_lambda, A, calls=[(B,)])
    check(generator_user, A, calls=[(B,)], expect_graph=False)


# ---- loops ---------------------------------------------------------------------------------------------

def nested_inner_break(xs, n):
    acc = np.zeros(4)
    for i in range(n):
        for x in xs:
            if x.sum() > i:
                acc = acc + x
            else:
                acc = acc - 1.0
    return acc


def nested_outer_break(xs, n):
    acc = np.zeros(4)
    for i in range(n):
        print("outer", i)
        for x in xs:
            acc = acc + x * i
    return acc


def test_breaks_in_nested_loops():
    xs = [RNG.standard_normal(4) for _ in range(3)]
    check(nested_inner_break, xs, 3, calls=[(xs, 4), (xs[:2], 3), (xs, 0)])
    check(nested_outer_break, xs, 3, calls=[(xs, 4), (xs[:2], 3), (xs, 0)])


def for_else(xs):
    for i, x in enumerate(xs):
        if x.sum() > 1.0:
            found = i
            break
    else:
        found = -1
    return found


def while_break_continue(x, n):
    i = 0
    out = []
    while i < n:
        i += 1
        if x[i % x.shape[0]].sum() > 0:
            continue
        out.append(i)
        if len(out) > 3:
            break
    return out, i


def early_return_in_loop(xs):
    total = 0.0
    for x in xs:
        s = x.sum().item()
        if s > 2.0:
            return total, s
        total += s
    return total, None


def test_for_else_while_break_continue_early_return():
    xs = [RNG.standard_normal(4) for _ in range(10)]
    check(for_else, xs, calls=[(xs[:1],), ([-np.ones(4)] * 3,), (xs[::-1],)])
    check(while_break_continue, A, 10, calls=[(B, 10), (A, 3), (NEG, 200)])
    check(early_return_in_loop, xs, calls=[(xs[::-1],), ([np.zeros(4)] * 5,)])


def loop_kinds(xs, ys, d, m):
    acc = 0.0
    for a, b in zip(xs, ys):
        acc = acc + (a * b).sum().item()
    for k, v in d.items():
        print(k, v.shape)
        acc = acc + v.sum()
    for row in m:
        if row.sum() > 0:
            acc = acc + row[0]
    return acc


def test_loops_over_zip_dict_items_array_rows():
    xs = [RNG.standard_normal(4) for _ in range(3)]
    ys = [RNG.standard_normal(4) for _ in range(3)]
    d = {"p": A, "q": B}
    check(loop_kinds, xs, ys, d, A, calls=[(ys, xs, {"q": B}, B), (xs[:1], ys, d, A[:2])])


def long_loop(x, n):
    for i in range(n):
        x = x * 0.99 + i
    return x


def long_loop_with_break(x, n):
    for i in range(n):
        x = x * 0.99 + i
        if i % 10 == 0:
            print("at", i, float(x.sum()))
    return x, i


def test_loops_longer_than_the_unroll_limit():
    check(long_loop, A, 100, calls=[(B, 100), (A, 150), (A, 3)])
    check(long_loop_with_break, A, 100, calls=[(B, 100), (A, 150), (A, 3)])


def sometimes_bound(xs):
    for i, x in enumerate(xs):
        if x.sum() > 0:
            last_pos = i
    return last_pos


def test_local_bound_only_in_some_iterations():
    xs = [RNG.standard_normal(4) for _ in range(8)]
    xs[0] = np.ones(4)
    # no positive item leaves last_pos unbound: that read raises at capture and its piece runs eagerly
    # (LOAD_FAST on 3.11, LOAD_FAST_CHECK on 3.12+); the branches before it are breaks stitched around
    r = check(sometimes_bound, xs, calls=[(xs[::-1],), ([-np.ones(4)] + xs,), ([-np.ones(4)],)],
              expect_fallback="local variable 'last_pos' is unbound")
    assert any("branch on the value of a NumPy bool" in str(c.reason) for c in r.all_records if c.reason)


def loop_var_after(xs, log):
    for i, x in enumerate(xs):
        log.append(i)
        print("item", i, x.shape)
    return i, x, log


def test_loop_variable_after_loop_and_list_appends_and_print_order():
    xs = [A, B, POS]
    # an empty xs leaves i unbound: that read raises at capture and the frame runs eagerly (LOAD_FAST on 3.11,
    # LOAD_FAST_CHECK on 3.12+); the other calls break at the print and resume
    r = check(loop_var_after, xs, [], calls=[(xs[:1], ["a"]), (xs * 30, []), ([], [])],
              expect_fallback="local variable 'i' is unbound")
    assert any("print()" in str(c.reason) and not c.reason.fallback for c in r.all_records if c.reason)


def loop_in_try(xs):
    total = np.zeros(4)
    try:
        for x in xs:
            if x.sum() > 0:
                total = total + x
            else:
                total = total - x
            if x[0] > 1.5:
                raise ValueError("big")
    except ValueError as e:
        return total, str(e)
    return total, "ok"


def test_loop_inside_try_except():
    xs = [RNG.standard_normal(4) for _ in range(10)]
    check(loop_in_try, xs, calls=[(xs[::-1],), ([np.full(4, 2.0)] * 2,)])


def long_loop_lists(xs, log):
    acc = xs[0] * 0.0
    for i in range(len(xs)):
        log.append(i)
        acc = acc + xs[i]
    return acc, log


def test_long_loop_appending_to_an_input_list():
    xs = [RNG.standard_normal(2) for _ in range(100)]
    check(long_loop_lists, xs, [], calls=[(xs[:70], [1]), (xs, [])])


def counter_as_index(x, n):
    for i in range(n):
        s = x[i].sum().item()
        x = x + s
    k = i + 1
    return x[:k], np.zeros(k), list(range(k)), x[i]


def test_unspecialized_counter_used_as_index_bound_shape():
    x = RNG.standard_normal((6, 2))
    check(counter_as_index, x, 3, calls=[(x, 4), (x, 5), (x, 2)])


def bool_vs_int(x, flag):
    b = x.sum() > 0
    print("b")
    c = bool(b)
    return c, flag, flag + 1, type(b)


def np_scalar_types(x):
    s = x.sum()          # np.float64
    f = float(s)          # float
    i = x.shape[0]
    print("types")
    return s, f, i, s + 1, f + 1


def test_types_preserved_across_breaks():
    check(bool_vs_int, A, True, calls=[(NEG, 1), (POS, False)])
    check(np_scalar_types, A, calls=[(B,), (A.astype(np.float32),)])


def aliasing(x, lst):
    a = lst
    b = lst
    t = (x, lst)
    d = {"x": x}
    print("alias")
    a.append(x)
    return b, t, d, x, a is b, t[1] is lst, d["x"] is x


def test_aliasing_and_identity_across_breaks():
    check(aliasing, A, [A], calls=[(B, []), (A, [1, 2])], expect_graph=False).assert_broke("print()")


def array_in_list_alias(x):
    lst = [x, x * 2.0]
    print("p")
    lst[0] += 1.0
    return lst, x


def test_array_in_a_fresh_list_that_is_also_a_local():
    check(array_in_list_alias, A.copy(), calls=[(B.copy(),)])


def flip_branch(x, n, flag):
    y = x * n
    print("flip")
    if flag:
        y = y + 1
    if n > 2:
        y = y * 2
    return y


def test_changing_inputs_flip_guards_of_resume_functions():
    check(flip_branch, A, 1, True, calls=[(A, 3, True), (A, 3, False), (B[:2], 1, False),
                                          (A.astype(np.float32), 5, 0), (A, 2.5, 1)])


# ---- exceptions ----------------------------------------------------------------------------------------

class BadStr:
    def __str__(self):
        raise RuntimeError("no str for you")


def breaking_call_raises(x, log, obj):
    log.append("before")
    y = x * 2.0
    print(obj)
    log.append("after")
    return y


def float_of_vector(x, log):
    log.append(1)
    y = x + 1.0
    v = float(y)
    log.append(2)
    return v


def test_the_breaking_call_raises():
    check(breaking_call_raises, A, [], BadStr(), calls=[(B, [0], "fine"), (A, [], BadStr())])
    check(float_of_vector, np.ones(1), [], calls=[(np.ones(2), []), (np.ones(1), [3])])


def raise_after_break(x, log):
    log.append("a")
    x += 1.0
    print("mid")
    log.append("b")
    if x.shape[0] > 2:
        raise KeyError("late")
    return x


def test_exception_in_the_resume_part_after_side_effects():
    check(raise_after_break, A.copy(), [], calls=[(A[:2].copy(), []), (B.copy(), [1])],
          expect_fallback='cannot continue after RAISE_VARARGS in plain Python yet')


def graph_raises_before_break(x, idx, log):
    log.append(0)
    y = x[idx]
    print("p")
    return y


def graph_raises_after_break(x, idx, log):
    log.append(0)
    print("p")
    log.append(1)
    y = x[idx] * 2.0
    return y


def inv_after_break(m, log):
    log.append(0)
    print("before inv")
    log.append(1)
    return np.linalg.inv(m)


def test_graph_ops_that_raise_around_a_break():
    idx_ok, idx_bad = np.array([0, 1]), np.array([0, 7])
    check(graph_raises_before_break, A, idx_ok, [], calls=[(A, idx_bad, []), (B, idx_ok, [1])])
    check(graph_raises_after_break, A, idx_ok, [], calls=[(A, idx_bad, []), (B, idx_ok, [1])])
    check(inv_after_break, np.eye(2), [], calls=[(np.zeros((2, 2)), []), (np.eye(2) * 2, [])])


def int_div_zero(x, d):
    y = x // d
    print("div")
    return y + x % d


def test_integer_division_by_zero_warns_only():
    with np.errstate(divide="ignore"):
        check(int_div_zero, np.arange(4), np.array([1, 0, 2, 0]), calls=[(np.arange(4), np.array([0, 0, 0, 0]))])


# ---- values read from a source, then overwritten by a write-back ----------------------------------------
# The function read obj.v / lst[0] / d["k"] / a global, then stored a new value there. The value it read
# must survive the write-back: the entry reads every source once, before any write-back.

def attr_read_then_written(x, obj):
    a = obj.v
    obj.v = x * 2.0
    print("b")
    return a


def global_read_then_written(x):
    global GVAL
    a = GVAL
    GVAL = x[0, 0].item()
    print("g")
    return a


def item_read_then_written(x, lst, d):
    a = lst[0]
    b = d["k"]
    lst[0] = 9
    d["k"] = x
    print(a)
    return a, b


def nested_list_replaced(x, lst):
    inner = lst[0]
    lst[0] = [5]
    print("n")
    inner.append(1)
    return lst, inner


def attr_read_then_written_no_break(x, obj):
    a = obj.v
    obj.v = x * 2.0
    return a


def item_replaced_then_old_one_mutated_no_break(x, lst):
    inner = lst[0]
    lst[0] = [5]
    inner.append(x.shape[0])
    return lst, inner


def test_values_read_before_a_write_back_keep_their_old_value():
    check(attr_read_then_written, A, _ns(v=np.zeros(2)), calls=[(B, _ns(v=3)), (A, _ns(v=[1]))])
    check(global_read_then_written, A, calls=[(B,)], globals_to_check=["GVAL"])
    check(item_read_then_written, A, [1, 2], {"k": 5}, calls=[(A, [np.ones(2)], {"k": np.zeros(3)})],
          expect_graph=False)
    check(nested_list_replaced, A, [[1], 2], calls=[(B, [[], 3])], expect_graph=False)
    check(attr_read_then_written_no_break, A, _ns(v=np.zeros(2)), calls=[(B, _ns(v=3))])
    check(item_replaced_then_old_one_mutated_no_break, A, [[1], 2], calls=[(B, [[], 3])], expect_graph=False)


# ---- identity of fresh containers ----------------------------------------------------------------------

def tuple_identity_across_break(x):
    a = (x, 1)
    b = a
    print("t")
    return a is b, a


def same_list_twice(x):
    lst = [x * 2.0]
    t = (x, 1)
    return lst, lst, t, t


def fresh_list_into_input(x, log):
    lst = [x + 1.0]
    log.append(lst)
    return lst


def test_fresh_containers_are_built_once():
    check(tuple_identity_across_break, A, calls=[(B,)], expect_graph=False)
    for fn in (same_list_twice,):
        c = md.compile(fn)
        r = c(A)
        assert r[0] is r[1] and r[2] is r[3], "one list (one tuple) returned twice must be one object"
    log = []
    r = md.compile(fresh_list_into_input)(A, log)
    assert log[0] is r, "the list stored into the caller's list is the list returned"
    check(fresh_list_into_input, A, [], calls=[(B, [1])])


# ---- breaks inside methods called from the frame that breaks ---------------------------------------------

class Block:
    def __init__(self, w):
        self.w = w

    def inner(self, h):
        h = h @ self.w
        print("inner", h.shape)
        return h * 2.0

    def forward(self, x):
        y = self.inner(x + 1.0)
        return y - 1.0


def block_forward(m, x):
    return m.forward(x)


def append_of_a_break(x, lst):
    lst.append(x.sum().item())
    return lst, x * 2.0


def test_a_method_that_breaks_keeps_the_callers_graphs():
    w = RNG.standard_normal((4, 2))
    check(block_forward, Block(w), A, calls=[(Block(w * 2), B)])
    out = md.explain(block_forward)(Block(w), A)
    assert out.graph_count >= 3 and not any(r.fallback for r in out.break_reasons), str(out)
    check(append_of_a_break, A, [1], calls=[(B, [])])


# ---- locals whose names are not identifiers (pytest's assertion rewriting names them `@py_assert1`) ------

def _with_odd_local_names():
    src = (
        "def f(x, log):\n"
        "    y = x * 2.0\n"
        "    z = y.sum()\n"
        "    print('p', z > 0)\n"
        "    log.append(1)\n"
        "    for i in range(3):\n"
        "        print('i', i)\n"
        "        y = y + z\n"
        "    return y, z\n")
    ns = {"np": np}
    exec(src, ns)
    f = ns["f"]
    names = tuple("@" + n if n in ("z", "i") else n for n in f.__code__.co_varnames)
    return type(f)(f.__code__.replace(co_varnames=names), ns, "f")


def test_locals_that_are_not_identifiers_are_resumed():
    fn = _with_odd_local_names()
    check(fn, np.ones(3), [], calls=[(-np.ones(3), [1])])
    out = md.explain(fn)(np.ones(3), [])
    assert out.graph_break_count >= 2 and not any(r.fallback for r in out.break_reasons), str(out)


# ---- known wrong behaviour outside the break machinery ----------------------------------------------------

def list_appended_while_iterated(lst, x):
    for v in lst:
        x = x + v
        if v < 3:
            lst.append(v + 10)
    return lst, x


def dict_grown_while_iterated(d):
    for k in d:
        if k == "a":
            d["z"] = 1
    return d


def test_list_appended_while_iterated():
    check(list_appended_while_iterated, [1, 2, 5], np.ones(2))


def test_dict_grown_while_iterated():
    check(dict_grown_while_iterated, {"a": 1, "b": 2},
          expect_fallback='cannot continue after FOR_ITER in plain Python yet')


def mutating_graph_raises(x, idx, log):
    log.append(1)
    x[0] = 5.0
    return x[idx]


def test_mutating_graph_that_raises_keeps_earlier_list_appends():
    check(mutating_graph_raises, np.ones(3), np.array([0]), [], calls=[(np.ones(3), np.array([9]), [])])


class LoudEq:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        print("eq")
        return self.v == other.v

    __hash__ = object.__hash__


def user_eq(x, a, b):
    y = x + 1.0
    if a == b:
        return y
    return -y


def test_argument_with_a_user_eq_is_not_compared_during_capture():
    check(user_eq, A, LoudEq(1), LoudEq(1), calls=[(A, LoudEq(1), LoudEq(2))])


# ---- more loop shapes --------------------------------------------------------------------------------------

def product_loop(x, n):
    acc = x[0] * 0.0
    for i, j in __import__("itertools").product(range(n), range(n)):
        acc = acc + x[i % 3] * j
    return acc


def comprehension_shadowing(x):
    v = 5
    out = [float(v) for v in x[0]]
    return v, out


def while_on_a_float(x):
    n = 0
    while float(x.sum()) > 0:
        x = x - 1.0
        n += 1
    return x, n


def rows_past_the_unroll_limit(m):
    acc = m[0] * 0.0
    for row in m:
        if row.sum() > 0:
            acc = acc + row
        else:
            acc = acc - row
    return acc


def outer_prints_inner_long(x, n):
    acc = 0.0
    for i in range(3):
        print("outer", i)
        for j in range(n):
            acc = acc + j
    return acc


def mutations_in_a_long_loop(d, o, x, n):
    global GVAL
    for i in range(n):
        d[i % 3] = d.get(i % 3, 0) + 1
        o.count = o.count + 1
        o.last = x * i
        GVAL = GVAL + i
        print(i)
    return d, o.count, GVAL


def test_more_loop_shapes():
    check(product_loop, A, 10, calls=[(A, 11), (B, 2)])
    check(comprehension_shadowing, A, calls=[(B,)])
    check(while_on_a_float, np.abs(A), calls=[(np.abs(A) * 30,), (-np.abs(A),)])
    m = RNG.standard_normal((100, 3))
    check(rows_past_the_unroll_limit, m, calls=[(m[:70],), (m[:5],)])
    check(outer_prints_inner_long, A, 80, calls=[(A, 90)])
    check(mutations_in_a_long_loop, {}, _ns(count=0), A, 70, calls=[({0: 5}, _ns(count=3), B, 100)],
          globals_to_check=["GVAL"])
