"""BUILD_TUPLE/LIST/MAP/CONST_KEY_MAP/SLICE, LIST_EXTEND/APPEND, MAP_ADD, DICT_UPDATE, LIST_TO_TUPLE,
UNPACK_SEQUENCE/UNPACK_EX: containers of arrays built, unpacked and returned."""

from __future__ import annotations

import numpy as np

from tests.conftest import assert_uses, check


def x23():
    return np.linspace(-1.0, 1.0, 6).reshape(2, 3)


def test_build_tuple_and_unpack():
    def f(x, y):
        t = (x + 1.0, y * 2.0)
        a, b = t
        return b, a, (a, (b, 1))
    assert_uses(f, "BUILD_TUPLE", "UNPACK_SEQUENCE")
    check(f, x23(), np.ones(3)).assert_no_breaks()


def test_swap_via_tuple_assignment():
    def f(x, y):
        x, y = y, x
        a, b, c = y, x, 3
        return x - y, a, b, c
    check(f, x23(), np.ones(3)).assert_no_breaks()


def test_build_list_and_extend():
    def f(x):
        xs = [x, x * 2.0]
        xs.extend([x + 1.0])
        ys = [*xs, 5]
        return xs, ys, [1, 2, 3]
    assert_uses(f, "BUILD_LIST", "LIST_EXTEND")
    check(f, x23()).assert_no_breaks()


def test_build_map_and_const_key_map():
    def f(x, k):
        d1 = {"a": x, "b": x * 2.0}
        d2 = {k: x + 1.0}
        d3 = {**d1, "c": 3, **d2}
        return d1, d2, d3
    assert_uses(f, "BUILD_CONST_KEY_MAP", "BUILD_MAP", any_of=True)
    assert_uses(f, "DICT_UPDATE")
    check(f, x23(), "z").assert_no_breaks()


def test_unpack_ex():
    def f(xs, x):
        first, *middle, last = xs
        a, *rest = (x, x * 2.0, 3)
        return first, middle, last, a, rest
    assert_uses(f, "UNPACK_EX")
    check(f, [1, 2, 3, 4], x23()).assert_no_breaks()


def test_unpack_array_rows():
    def f(x):
        a, b = x
        return a * b
    check(f, x23()).assert_no_breaks()


def test_unpack_wrong_count_raises_like_eager():
    def f(xs):
        a, b = xs
        return a
    check(f, [1, 2, 3], expect_graph=False).assert_broke("cannot unpack 3 values into 2")


def test_tuple_of_star_args():
    def f(x, xs):
        return (*xs, x), tuple(xs)
    assert_uses(f, "LIST_TO_TUPLE", "CALL_INTRINSIC_1", any_of=True)
    check(f, x23(), [1, 2], expect_graph=False).assert_no_breaks()


def test_return_input_containers_and_new_ones():
    def f(xs, d, x):
        return xs, d, [xs, d], {"x": x}
    check(f, [1, 2], {"a": 1}, x23(), expect_graph=False).assert_no_breaks()


def test_list_methods_on_new_list():
    def f(x):
        xs = []
        xs.append(x)
        xs.insert(0, x * 2.0)
        last = xs.pop()
        xs.reverse()
        return xs, last
    check(f, x23()).assert_no_breaks()


def test_dict_methods():
    def f(p, x):
        q = p.copy()
        q.update({"c": x})
        return q.get("a", 0.0) + q.get("zz", 1.0) * x, q
    check(f, {"a": 2.0}, x23()).assert_no_breaks()


def test_list_concat_and_repeat():
    def f(x, xs):
        return xs + [x], (x,) * 2, xs * 2
    check(f, x23(), [1], expect_graph=False).assert_no_breaks()


def _collect(*args, **kwargs):
    return args, kwargs


def test_additions_to_a_container_passed_on_a_resume_functions_stack_are_written_back():
    # A break (print) while a call's ** dict or a display list is half built: the resume function gets
    # the caller's object on its stack, and its DICT_MERGE / LIST_EXTEND / LIST_APPEND must reach it
    # (NumPy's test_signature_dtype_instances_allowed lost `dtype=` this way and DID NOT RAISE).
    def merges(x):
        return _collect(3, x, **{"dtype": print("a")}, **{"b": x + 1.0})

    def extends(x):
        return [1, *[print("a")], x * 2.0, *(x, x)]

    def appends(x):
        return [print(i) or x + i for i in range(2)], {i: print(i) or x for i in range(2)}
    for fn in (merges, extends, appends):
        check(fn, x23(), expect_graph=fn is not appends)     # (3.11: a comprehension is its own frame)


def test_a_repeated_keyword_in_double_star_arguments_raises_as_eagerly():
    def f(x):
        return _collect(x, **{"a": 1}, **{"a": 2})

    def g(x):
        d = {"a": x}
        return _collect(**d, **{"b": print("b")}, **{"a": 3})
    check(f, x23(), expect_fallback='cannot continue after DICT_MERGE in plain Python yet')
    check(g, x23(), expect_fallback='cannot continue after DICT_MERGE in plain Python yet')


# ---- sets: of constants captured (variables/sets.py); a display of other items breaks and runs as Python --

def set_display(x, a, b):
    y = x * 2.0
    s = {a, b, a}                       # BUILD_SET
    return y + 1.0, s


def set_literal_of_constants(x):
    kinds = {"f", "c", "i"}             # 3.11+: BUILD_SET 0, a frozenset constant, SET_UPDATE
    return x * 3.0, kinds, list(kinds)


def starred_set(x, a, b):
    s = {*a, b}                         # BUILD_SET 0, SET_UPDATE, SET_ADD
    return x - 1.0, s


def array_item_set(x):
    y = x * 2.0
    s = {y[0, 0], 3.0}                  # an item that is a graph value: a break at BUILD_SET
    return y + 1.0, s


def unhashable_item(x):
    y = x + 1.0
    return {y}                          # TypeError: unhashable type, raised by plain Python


def set_comprehension(x, names):
    seen = {n for n in names}           # SET_ADD in a loop (3.11: in its own function)
    return x * 2.0, seen, list(seen)


class Cases:
    def check(self, x, require=frozenset(), exclude=frozenset()):
        return x * 2.0 if "square" in require and "size-0" not in exclude else x

    def run(self, x):                   # NumPy's linalg tests: self.check_cases(require={'square'}, ...)
        return self.check(x, require={"square"}, exclude={"generalized", "size-0"}) + 1.0


def test_sets_of_constants_are_captured():
    assert_uses(set_display, "BUILD_SET")
    check(set_display, x23(), 1, 2, calls=[(x23(), "a", "a")]).assert_no_breaks()
    check(set_literal_of_constants, x23()).assert_no_breaks()
    check(starred_set, x23(), [1, 2], 3, calls=[(x23(), (), None)]).assert_no_breaks()
    check(Cases.run, Cases(), x23()).assert_no_breaks()


def test_a_break_at_build_set_resumes_after_it():
    check(array_item_set, x23()).assert_resumed_after("BUILD_SET")


def test_set_additions_and_errors_run_as_eagerly():
    assert_uses(starred_set, "SET_UPDATE")
    assert_uses(set_comprehension, "SET_ADD")
    check(unhashable_item, x23())
    check(set_comprehension, x23(), ["a", "b", "a"], calls=[(np.ones(2), [])])
