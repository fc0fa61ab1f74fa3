"""Exceptions raised after capture carry eager's innermost traceback entries (issue 28 item 4): the user's
part of the stack (file, line, function name, source text, columns), on the capturing call and on warm
calls. Cases: a breaking instruction that raises (stitch/breaking._raise_in_place), a graph that raises
and re-runs eagerly (in a resume function too), a writing graph whose exception leaves as it is
(stitch/raisers.py, also from an inlined helper), a loop driver's next(), a compiled callee that broke,
and inside a try block (what the handler sees). Minidynamo's frames may stand above the user's part."""

from __future__ import annotations

import traceback

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import captured

X = np.arange(3.0)


def entries(e: BaseException) -> list[tuple]:
    return [(f.filename, f.lineno, f.name, f.line, f.colno, f.end_colno)
            for f in traceback.extract_tb(e.__traceback__)]


def raised(fn, *args):
    try:
        fn(*args)
    except Exception as e:      # noqa: BLE001
        return e
    raise AssertionError(f"{fn.__name__} did not raise")


def agree(fn, *args, calls=2, fallback=None):
    """fn eagerly and compiled (capturing call, then warm ones): the same exception and the same entries
    from fn's frame down (eager's whole stack below this helper's frame); a graph ran, and no frame fell
    back to eager unless `fallback` names why."""
    expected = raised(fn, *args)
    user = entries(expected)[1:]
    compiled = md.compile(fn, options={"suppress_errors": False})
    for call in range(calls):
        got = raised(compiled, *args)
        assert (type(got), str(got)) == (type(expected), str(expected))
        assert entries(got)[-len(user):] == user, f"call {call}:\n{traceback.format_exception(got)}"
        assert type(got.__context__) is type(expected.__context__)
    result = captured(compiled)                   # (the traceback is the stitched code's, not eager's own)
    result.assert_graph_ran() if fallback is None else result.assert_fallback(fallback)
    return compiled


def bad_index(x):
    y = np.tanh(x)
    return y[int(x[0]) + 5]                  # an int() of a graph value: the subscript breaks, then raises


def test_a_breaking_instruction_that_raises():
    agree(bad_index, X)


def after_a_print(x):
    y = x * 2.0
    print("step")
    return y[[0, 9]]                          # in the resume function's graph: it re-runs eagerly


def test_a_resume_function_whose_graph_raises(capsys):
    agree(after_a_print, X)


def writes_then_indexes(x, idx):
    x *= 2.0
    return x[idx]                             # a writing graph, nothing to undo: its exception leaves


def take(x, idx):
    return np.take(x, idx)


def writes_then_helper(x, idx):
    x *= 2.0
    return take(x, idx) + 1.0                # raised inside an inlined helper, through NumPy's Python frames


def writes_then_inv(x, a):
    x += 1.0
    return np.linalg.inv(a) + x[0]


@pytest.mark.parametrize("fn, args", [(writes_then_indexes, (np.array([0, 5]),)),
                                      (writes_then_helper, (np.array([0, 5]),)),
                                      (writes_then_inv, (np.zeros((2, 2)),))],
                         ids=["subscript", "inlined-helper", "linalg"])
def test_a_writing_graph_whose_exception_leaves_the_function(fn, args):
    compiled = agree(fn, X.copy(), *args)
    assert "___at_user" in compiled.__minidynamo_source__        # (the path under test)


def numbers(n):
    yield from range(n)
    raise ValueError("the generator failed")


def drives_a_generator(x):
    for i in numbers(3):
        print(i)                              # a break in the body: the loop is driven
        x = x + i
    return x


def test_a_loop_drivers_next(capsys):
    agree(drives_a_generator, X, fallback="cannot continue after RETURN_GENERATOR")    # numbers() is eager


def helper_that_breaks(x):
    print("helper")
    return x[[7]]


def calls_a_breaking_helper(x):
    y = x + 1.0
    return helper_that_breaks(y)             # compiled on its own; its frames nest below this one


def test_a_compiled_callee_that_broke(capsys):
    agree(calls_a_breaking_helper, X)


def seen_by_the_handler(x):
    try:
        y = np.tanh(x)
        return y[int(x[0]) + 5]
    except IndexError as e:
        return [(f.lineno, f.name, f.line) for f in traceback.extract_tb(e.__traceback__)]


def test_inside_a_try_block_the_handler_sees_eagers_traceback():
    expected = seen_by_the_handler(X)
    compiled = md.compile(seen_by_the_handler, options={"suppress_errors": False})
    for _ in range(2):
        assert compiled(X)[-len(expected):] == expected
    captured(compiled).assert_graph_ran()


def test_context_of_an_exception_raised_while_handling_another():
    def handles(x):
        try:
            raise KeyError("first")
        except KeyError:
            return bad_index(x)
    agree(handles, X, fallback="cannot continue after RAISE_VARARGS")   # the resume function at the raise


def test_the_printed_traceback_shows_the_users_line_and_carets():
    compiled = md.compile(bad_index)
    for _ in range(2):
        text = "".join(traceback.format_exception(raised(compiled, X)))
        assert "return y[int(x[0]) + 5]" in text.splitlines()[-3] and text.splitlines()[-2].strip().startswith("~")
        assert f'File "{__file__}"' in text.splitlines()[-4]
    captured(compiled).assert_graph_ran()
