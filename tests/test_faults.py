"""Internal errors: a fault injected at each stage of a capture (symbolic execution, an opcode handler, guard
rendering, entry-body emission, the backend, resume-function creation, compiling the dispatcher) must
never reach the user while `config.suppress_errors` is on: that function runs eagerly from then on, the
reason is logged once and counted (`stats(fn).fallbacks`, `api.GLOBAL_STATS["fallbacks"]`). The user's
code runs exactly once per call, never twice (a replayed side effect) and never zero times. With
`suppress_errors` off the fault surfaces as an `InternalError` naming the function, and, when it escaped
symbolic execution, the line and instruction; the user's code has not run at all.
"""

from __future__ import annotations

import logging

import numpy as np
import pytest

import minidynamo as md
from minidynamo import api
from minidynamo.capture import handlers, interpreter
from minidynamo.errors import InternalError
from minidynamo.guards import GuardSet
from minidynamo.stitch.entry import Code
from minidynamo.stitch.partial import resume_info
from minidynamo.stitch import resume

EVENTS: list[str] = []


def whole(x):
    EVENTS.append("start")
    y = np.tanh(x) * 2.0
    EVENTS.append("end")
    return y + 1.0


def broken(x):
    EVENTS.append("start")
    y = np.tanh(x) * 2.0
    print("middle")                  # graph break: the rest runs in a resume function
    EVENTS.append("end")
    return y + 1.0


class Fault(RuntimeError):
    pass


def boom(*args, **kwargs):
    raise Fault("injected")


def _graph_breaking_stage(monkeypatch):
    monkeypatch.setattr(resume, "resume_code", boom)


def _bad_source(monkeypatch):
    real = api.build_body

    def build(ctx, result):
        body = real(ctx, result)
        body.statements.append(Code("this is not (python"))
        return body
    monkeypatch.setattr(api, "build_body", build)


def _backend_at_compile(monkeypatch):
    return boom


STAGES = {
    # stage: (function to compile, how to inject the fault; returns a backend or None)
    "symbolic execution": (whole, lambda mp: mp.setattr(interpreter, "run_frame", boom)),
    "opcode handler": (whole, lambda mp: mp.setitem(handlers.HANDLERS, "BINARY_OP", boom)),
    "guard rendering": (whole, lambda mp: mp.setattr(GuardSet, "expression", boom)),
    "distinctness guards": (whole, lambda mp: mp.setattr(interpreter.CaptureContext, "distinctness_guards", boom)),
    "entry body emission": (whole, lambda mp: mp.setattr(api, "build_body", boom)),
    "dispatcher source": (whole, _bad_source),
    "backend": (whole, _backend_at_compile),
    "resume function": (broken, _graph_breaking_stage),
    "break emission": (broken, lambda mp: mp.setattr("minidynamo.stitch.partial.entry_body", boom)),
}


def _compile(fn, backend, **options):
    return md.compile(fn, backend=backend or "numpy", options=options or None)


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_fault_runs_eagerly_once_and_is_counted(stage, monkeypatch, caplog, capsys):
    fn, inject = STAGES[stage]
    backend = inject(monkeypatch)
    cfn = _compile(fn, backend)
    before = api.GLOBAL_STATS["fallbacks"]
    x = np.linspace(-1.0, 1.0, 5)
    with caplog.at_level(logging.WARNING, logger="minidynamo"):
        for n in range(3):
            EVENTS.clear()
            out = cfn(x)
            assert np.array_equal(out, np.tanh(x) * 2.0 + 1.0)
            assert EVENTS == ["start", "end"], (n, EVENTS)     # ran once: no replay, no skipped part
    stats = md.stats(cfn)
    assert stats.fallbacks == 1, stats
    assert stats.captures == 0 and cfn._minidynamo.cache.entries == [], stats
    assert api.GLOBAL_STATS["fallbacks"] == before + 1
    logged = [r for r in caplog.records if "runs eagerly" in r.getMessage()]
    assert len(logged) == 1 and ("Fault: injected" in logged[0].getMessage() or "SyntaxError" in
                                 logged[0].getMessage())
    if fn is broken:
        assert capsys.readouterr().out == "middle\n" * 3


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_fault_raises_internal_error_when_not_suppressed(stage, monkeypatch):
    fn, inject = STAGES[stage]
    backend = inject(monkeypatch)
    cfn = _compile(fn, backend, suppress_errors=False)
    EVENTS.clear()
    with pytest.raises(InternalError) as info:
        cfn(np.ones(3))
    assert EVENTS == []                  # nothing of the user's code ran before the error
    err = info.value
    assert err.function == fn.__qualname__ and fn.__qualname__ in str(err)
    assert isinstance(err.__cause__, (Fault, SyntaxError))


def test_internal_error_names_line_and_instruction(monkeypatch):
    monkeypatch.setitem(handlers.HANDLERS, "BINARY_OP", boom)
    cfn = md.compile(whole, options={"suppress_errors": False})
    with pytest.raises(InternalError) as info:
        cfn(np.ones(3))
    err = info.value
    line = whole.__code__.co_firstlineno + 2           # y = np.tanh(x) * 2.0
    assert (err.lineno, err.instruction) == (line, "BINARY_OP")
    assert err.filename == __file__
    assert f"{__file__.rsplit('/', 1)[-1]}:{line}" in str(err) and "BINARY_OP" in str(err)
    assert "np.tanh(x) * 2.0" in str(err)


def test_internal_error_inside_inlined_helper_names_the_helper(monkeypatch):
    def helper(v):
        return v * 3.0

    def outer(x):
        return helper(x + 1.0)
    calls = {"n": 0}
    real = handlers.HANDLERS["BINARY_OP"]

    def second_binary_op(frame, inst):
        calls["n"] += 1
        if calls["n"] == 2:
            raise Fault("in the helper")
        return real(frame, inst)
    monkeypatch.setitem(handlers.HANDLERS, "BINARY_OP", second_binary_op)
    with pytest.raises(InternalError) as info:
        md.compile(outer, options={"suppress_errors": False})(np.ones(2))
    assert info.value.inlined.endswith("helper") and info.value.function.endswith("outer")
    assert info.value.lineno == helper.__code__.co_firstlineno + 1


def test_fault_only_in_resume_capture_keeps_first_graph(monkeypatch, capsys):
    """The resume function falls back alone: the graph before the break still runs compiled."""
    real = interpreter.run_frame

    def fail_in_resume(frame):
        if frame.parent is None and "__resume" in frame.qualname:
            raise Fault("resume capture")
        return real(frame)
    monkeypatch.setattr(interpreter, "run_frame", fail_in_resume)
    cfn = md.compile(broken)
    x = np.linspace(-1.0, 1.0, 4)
    for _ in range(3):
        EVENTS.clear()
        assert np.array_equal(cfn(x), np.tanh(x) * 2.0 + 1.0)
        assert EVENTS == ["start", "end"]
    s = md.stats(cfn)                    # the function's own piece kept its graph; the resume piece fell back
    assert (s.pieces[0].captures, s.pieces[0].fallbacks, s.fallbacks) == (1, 0, 1)
    assert capsys.readouterr().out == "middle\n" * 3


def test_fault_on_recompile_keeps_earlier_entries(monkeypatch):
    cfn = md.compile(whole)
    a, b = np.ones(3), np.ones(4)
    EVENTS.clear()                       # (the entry guards the length of EVENTS)
    cfn(a)
    monkeypatch.setattr(GuardSet, "expression", boom)
    EVENTS.clear()
    assert np.array_equal(cfn(b), whole(b.copy())) and EVENTS == ["start", "end", "start", "end"]
    monkeypatch.undo()
    entries = cfn._minidynamo.cache.entries
    assert len(entries) == 1                               # the failed capture left nothing half-added
    EVENTS.clear()
    hits = md.stats(cfn).hits
    cfn(a)
    assert md.stats(cfn).hits == hits + 1 and EVENTS == ["start", "end"]


def test_reset_lifts_a_fallback(monkeypatch):
    monkeypatch.setattr(interpreter, "run_frame", boom)
    cfn = md.compile(whole)
    cfn(np.ones(2))
    assert md.stats(cfn).fallbacks == 1
    monkeypatch.undo()
    md.reset()
    cfn(np.ones(2))
    assert md.stats(cfn).captures == 1


def test_graph_break_is_not_an_internal_error():
    cfn = md.compile(broken, options={"suppress_errors": False})
    EVENTS.clear()
    cfn(np.ones(2))
    assert EVENTS == ["start", "end"] and md.stats(cfn).fallbacks == 0


_ = resume_info
