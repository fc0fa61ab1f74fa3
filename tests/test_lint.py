"""minidynamo.lint (minidynamo/lint/): the breaks of every path, listed without running the function, and
never fewer than a run on the same inputs finds; `python -m minidynamo lint` exits 1 on breaks."""

from __future__ import annotations

import contextlib
import copy
import io
import textwrap
import warnings

import numpy as np
import pytest

import minidynamo as md
from minidynamo.__main__ import main
from minidynamo.examples import tour_programs as tour

CALLS: list = []


def both_arms(x):
    if x.sum() > 0:
        print("positive")
        y = x * 2
    else:
        y = x.tolist()
    return y


def in_a_loop(x):
    for i in range(3):
        if x[i] > 0:
            print("up", i)
        x = x + 1
    return x


def in_try(x):
    try:
        print("trying")
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        y = x
    return y


def shout(y):
    if y.max() > 1:
        print("big")
    return y * 2


def calls_helper(x):
    return shout(x) + 1


def pure(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = -x
    return y


def counting(x):
    CALLS.append(1)
    print("called")
    return x


def _codes(items) -> set:
    return {(i.lineno, str(i.code)) for i in items}


def _run_breaks(fn, *args) -> set:
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = md.explain(fn)(*copy.deepcopy(args))
    return {(r.lineno, str(r.code)) for r in out.break_reasons}


def _line(fn, text: str) -> int:
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


def test_both_arms_are_listed_and_each_run_finds_a_subset():
    pos, neg = np.ones(3), -np.ones(3)
    report = md.lint(both_arms, (pos,))
    found = _codes(report.breaks)
    assert (_line(both_arms, "if x.sum()"), "MD0009") in found
    assert (_line(both_arms, 'print("positive")'), "MD0012") in found
    assert (_line(both_arms, "x.tolist()"), "MD0010") in found       # the arm the example does not take
    assert _run_breaks(both_arms, pos) <= found and _run_breaks(both_arms, neg) <= found
    assert report.paths == 3 and "MD0010" in str(report) and "hint:" in str(report)


def test_a_branch_in_a_loop_and_a_print_in_a_try_body():
    found = _codes(md.lint(in_a_loop, (np.array([1.0, -5.0, 2.0]),)).breaks)
    assert {(_line(in_a_loop, "if x[i] > 0"), "MD0009"), (_line(in_a_loop, 'print("up"'), "MD0012")} <= found
    assert _run_breaks(in_a_loop, np.array([1.0, -5.0, 2.0])) <= found
    found = _codes(md.lint(in_try, (np.eye(2),)).breaks)
    assert (_line(in_try, 'print("trying")'), "MD0012") in found
    assert _run_breaks(in_try, np.eye(2)) <= found


def test_breaks_in_helpers_are_listed_with_their_function():
    report = md.lint(calls_helper, (np.zeros(2),))
    assert {(i.function, i.code) for i in report.breaks} == {("shout", "MD0009"), ("shout", "MD0012")}


def test_pure_arms_fold_and_lint_says_no_break():
    report = md.lint(pure, (np.ones(3),))
    assert report.breaks == [] and not report and str(report).startswith("lint(pure): 0 graph breaks")


def test_lint_does_not_run_the_function(capsys):
    CALLS.clear()
    report = md.lint(counting, (np.ones(2),))
    assert CALLS == [] and capsys.readouterr().out == ""
    assert _codes(report.breaks) == {(_line(counting, 'print("called")'), "MD0012")}


def _run_reasons(fn, *args) -> set:
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = md.explain(fn)(*copy.deepcopy(args))
    md.reset()
    return {(r.lineno, str(r.code), r.message) for r in out.break_reasons}


def _tour_cases() -> list:
    x, params = tour.make_inputs()
    return [("tour." + name, getattr(tour, name), sets) for name, sets in
            [("mlp_block", [(x, params)]), ("sign_switch", [(x,), (-x,)]), ("loud_switch", [(x,), (-x,)]),
             ("fit_logistic", [(*tour.make_regression(), 1e-3)])]]


def _corpus_cases() -> list:
    from benchmarks.corpus import MODELS
    return [(m.name, m.function("small"), [m.build("small", 0)] + ([m.other("small", 0)] if m.other else []))
            for m in MODELS]


def test_the_tour_and_the_corpus_lint_lists_exactly_what_runs_find():
    """issue 25's done-when, both ways: on each benchmark model and tour program, lint at its example inputs
    lists every break (place, code and reason) a run finds, on those inputs and on the inputs that take the
    other branch, and no break that none of those runs finds."""
    cases = _corpus_cases() + _tour_cases()
    differ = []
    for name, fn, sets in cases:
        with contextlib.redirect_stdout(io.StringIO()):
            report = md.lint(fn, copy.deepcopy(sets[0]))
        linted = {(i.lineno, i.code, i.reason) for i in report.breaks}
        ran = set().union(*(_run_reasons(fn, *args) for args in sets))
        if linted != ran:
            differ.append((name, sorted(linted - ran, key=str), sorted(ran - linted, key=str)))
    assert len(cases) > 80
    assert differ == []


def test_a_method_of_a_standard_library_object_made_in_the_function():
    # random.Random(seed) breaks, and lint knows its result's class without running it: the method call a run
    # meets next (rnd.uniform, plain Python) is listed with the run's own words
    from benchmarks.corpus.python_style import random_jitter
    report = md.lint(random_jitter, (np.ones(3),))
    assert _run_reasons(random_jitter, np.ones(3)) == {(i.lineno, i.code, i.reason) for i in report.breaks}
    assert any(i.reason.startswith("random.Random.uniform() runs as plain Python") for i in report.breaks)


def test_the_command_line_exits_1_on_breaks_and_0_without(tmp_path, capsys):
    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent("""
        import numpy as np

        def clean(x):
            return np.tanh(x) * 2

        def loud(x):
            if x.sum() > 0:
                print("positive")
            return x
    """))
    assert main(["lint", f"{path}:clean", "--args", "(np.ones(3),)"]) == 0
    assert "lint(clean): 0 graph breaks" in capsys.readouterr().out
    assert main(["lint", str(path)]) == 1
    out = capsys.readouterr().out
    assert "inputs assumed" in out and "[MD0009 data_dependent]" in out and "[MD0012 call]" in out


def reshaped(x, n, scale=2.0):
    y = x.reshape(n, -1) * scale
    if y.sum() > 0:
        print("positive")
    return y


def test_lint_lists_what_a_capture_would_guard():
    # the guards of every path followed: what makes a later call capture again (issue 25: "plus what
    # would be guarded"); they are the capture's own, so a run on the same inputs guards the same values
    report = md.lint(reshaped, (np.ones((4, 6), np.float32), 3))
    words = [w for w, _ in report.guards]
    assert "`x` is an ndarray of shape (4, 6) and dtype float32" in words
    assert "`n` is the int 3" in words
    assert "guarded (a call where one of these changes captures again):" in str(report)
    compiled = md.compile(reshaped)
    with contextlib.redirect_stdout(io.StringIO()):
        compiled(np.ones((4, 6), np.float32), 3)
        compiled(np.ones((4, 6), np.float32), 3)
        assert md.stats(compiled).recompiles == 0
        compiled(np.ones((4, 6), np.float32), 2)             # n changed: a guard lint listed fails
    failures = [f for fs in md.stats(compiled).guard_failures for f in fs]
    assert md.stats(compiled).recompiles >= 1 and any(f.startswith("n") for f in failures), failures


def scaled(x, n: int, gain: float, shift=0.5):
    if x.sum() > n:
        print("large")
    return x * gain + shift


def uses_a_dict(x, params):
    h = x @ params["w"]
    print("h done")
    return h


def test_without_example_arguments_the_signature_says_what_stands_in():
    # an array of unknown shape (sizes symbolic) where nothing says otherwise, a value of the annotated type,
    # the default; the breaks of both arms are listed as with a real example
    report = md.lint(scaled)
    assert report.assumed == ["x: a float64 array of unknown shape", "n: the int 4", "gain: the float 1.0",
                              "shift: its default 0.5"]
    assert _codes(report.breaks) == _codes(md.lint(scaled, (np.ones(3), 2, 1.5)).breaks) == \
        {(_line(scaled, "if x.sum()"), "MD0009"), (_line(scaled, 'print("large")'), "MD0012")}
    assert "(inputs assumed: x: a float64 array of unknown shape; n: the int 4" in str(report)
    assert _codes(md.lint(both_arms).breaks) == _codes(md.lint(both_arms, (np.ones(3),)).breaks)


def test_a_stand_in_that_does_not_fit_is_said_not_listed_as_a_break():
    # params is a dict; the stand-in array makes params["w"] raise: that path is not followed (no break
    # listed for it), and the report says so
    report = md.lint(uses_a_dict)
    assert report.breaks == [] and [m.lineno for m in report.misfits] == [_line(uses_a_dict, 'params["w"]')]
    assert "not followed where the assumed inputs do not fit" in str(report)
    given = md.lint(uses_a_dict, (np.ones((2, 3)), {"w": np.ones((3, 2))}))
    assert _codes(given.breaks) == {(_line(uses_a_dict, 'print("h done")'), "MD0012")} and given.misfits == []


def handled(x):
    try:
        print("trying")
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        print("singular")
        y = x.tolist()
    except ValueError as err:
        y = float(len(str(err)))
    finally:
        x = x + 1
    with np.errstate(divide="ignore"):
        z = x / 0
    return y, z


def test_except_handlers_are_followed_and_their_breaks_kept_apart():
    # each except clause is followed (matching, and not: the next clause, then the exception leaving);
    # what breaks there is listed apart, since a handler runs as plain Python and a run lists no break there
    report = md.lint(handled, (np.eye(2),))
    assert _codes(report.breaks) == {(_line(handled, 'print("trying")'), "MD0012")}
    assert _codes(report.in_handlers) == {(_line(handled, 'print("singular")'), "MD0012"),
                                          (_line(handled, "x.tolist()"), "MD0010")}
    assert all(any("the try body raises: true" in a for a in i.assuming) for i in report.in_handlers)
    assert "in except handlers (capture never enters one" in str(report)
    for x in (np.eye(2), np.zeros((2, 2))):          # the second raises LinAlgError: the handler runs
        ran = _run_breaks(handled, x)
        assert ran <= _codes(report.breaks) and not ran & _codes(report.in_handlers)
    assert not any("np.errstate" in a or "ValueError" in str(g) for i in report.breaks for a in i.assuming
                   for g in report.guards)      # a handler guards nothing; a `with` block does not fork
