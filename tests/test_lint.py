"""minidynamo.lint (minidynamo/lint.py): the breaks of every path, listed without running the function, and
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


@pytest.mark.parametrize("name", ["mlp_block", "sign_switch", "loud_switch", "fit_logistic"])
def test_the_tour_every_break_a_run_finds(name):
    fn = getattr(tour, name)
    x, params = tour.make_inputs()
    args = {"mlp_block": (x, params), "sign_switch": (x,), "loud_switch": (x,),
            "fit_logistic": (*tour.make_regression(), 1e-3)}[name]
    report = md.lint(fn, copy.deepcopy(args))
    assert _run_breaks(fn, *args) <= _codes(report.breaks)
    if name == "loud_switch":
        assert _run_breaks(fn, -x) <= _codes(report.breaks)        # the other way too, from one example


def test_the_benchmark_corpus_every_break_a_run_finds():
    """Each model's run (on its inputs, and on its inputs that take the other branch) breaks only where lint
    says, except on paths lint could not follow past a call's unknown result (it says how many)."""
    from benchmarks.corpus import MODELS
    missed = []
    for m in MODELS:
        fn = m.function("small")
        sets = [m.build("small", 0)] + ([m.other("small", 0)] if m.other else [])
        report = md.lint(fn, copy.deepcopy(sets[0]))
        for args in sets:
            extra = _run_breaks(fn, *args) - _codes(report.breaks)
            if extra:
                missed.append((m.name, report.unknown, sorted(extra)))
    assert len(MODELS) > 50
    assert [(name, extra) for name, unknown, extra in missed if not unknown] == []
    assert [name for name, _, _ in missed] == ["random_jitter"]   # rnd.uniform on random.Random(seed)'s result


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
