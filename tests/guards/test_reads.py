"""guards/reads.py and its use by the dispatcher (dispatch/cache.py): a path the guard check reads is read once
per call, the graph call takes its inputs from the check's locals, and those locals are dropped on every way out of
the call, before any of the function's own code runs (a reference too many shows in sys.getrefcount and makes
ndarray.resize refuse). Differential: each function observes the reference count eagerly and compiled."""

from __future__ import annotations

import re
import sys

import numpy as np

import minidynamo as md
from minidynamo.guards.reads import Reads

from tests.conftest import check


class Holder:
    def __init__(self, **attrs) -> None:
        self.__dict__.update(attrs)


def step(o, x):
    o.h = np.tanh(x @ o.w + o.h)
    o.state["n"] += 1
    return o.h


def test_the_graph_takes_its_inputs_from_the_checks_locals():
    compiled = md.compile(step)
    o = Holder(w=np.eye(3), h=np.zeros((1, 3)), state={"n": 0})
    for _ in range(4):              # the counter's value guard fails once: then it is an unspecialized int
        compiled(o, np.ones((1, 3)))
    source = compiled._minidynamo.cache.source()        # every entry inline (the dispatcher may be chained)
    entry = re.split(r"\n *try:\n *___hit", source[:source.index("return ___miss")])[1]   # the newest entry
    check_line, body = entry.split("\n", 1)
    assert check_line.count("o.w") == check_line.count("o.h") == check_line.count("o.state") == 1
    call = next(line for line in body.splitlines() if "_graph(" in line)
    assert "o." not in call and call.count("_r") >= 3          # o.w, o.h, o.state['n'] from the locals
    # dropped right after the call (and before the eager re-run if it raises), and on the miss path
    drops = re.findall(r"___e\d+_r\d+ = (?:___e\d+_r\d+ = )*None", body)
    assert len(drops) == 3 and "o.state" in body               # write-backs read their targets afresh
    assert md.stats(compiled).hits == 2 and o.state["n"] == 4


def held_reads() -> list[str]:
    """The dispatcher locals of guard checks (`___e0_r1`) still holding an object in any calling frame. Eager
    Python has none; a compiled function must have none left once its own code runs."""
    out, frame = [], sys._getframe(1)
    while frame is not None:
        out += [k for k, v in frame.f_locals.items() if re.fullmatch(r"___e\d+_r\d+", k) and v is not None]
        frame = frame.f_back
    return out


def after_graph(o):
    y = o.w * 2.0 + o.b
    held = held_reads()            # reads its caller's frame: the function runs as plain Python, after the guards
    return y, held


def test_the_checks_locals_are_dropped_before_the_functions_own_code_runs():
    r = check(after_graph, Holder(w=np.ones(3), b=1.0),
              calls=[(Holder(w=np.zeros(3), b=1.0),), (Holder(w=np.arange(3.0), b=1.0),)],
              expect_fallback="sys._getframe() reads the function's own frame")
    assert r.stats.pieces[0].hits == 2 and r.reasons


def reruns(o):
    try:
        return np.linalg.inv(o.w)
    except np.linalg.LinAlgError:
        pass
    return held_reads()            # only in the eager re-run of a graph that raised


def test_the_checks_locals_are_dropped_before_the_eager_rerun_of_a_graph_that_raised():
    fine, singular = Holder(w=np.eye(2) * 2.0), Holder(w=np.zeros((2, 2)))
    r = check(reruns, fine, calls=[(singular,), (fine,), (singular,)])
    assert r.stats.captures == 1 and r.stats.hits == 3


def writes_then_raises(o, log):
    o.w[0, 0] += 1.0                # writes into o.w: the graph snapshots it and restores it before a re-run
    log.append(1)
    try:
        return np.linalg.inv(o.w)
    except np.linalg.LinAlgError:
        pass
    return held_reads(), log


def test_the_checks_locals_are_dropped_before_a_snapshot_restore_and_rerun():
    singular = Holder(w=np.array([[-1.0, 0.0], [0.0, 0.0]]))
    r = check(writes_then_raises, Holder(w=np.eye(2)), [],
              calls=[(singular, []), (Holder(w=np.eye(2) * 3.0), [5]), (singular, [])])
    assert r.stats.captures == 1 and r.stats.hits == 3
    source = r.compiled.__minidynamo_source__
    assert "___snap = (___take(___e0_r" in source    # the snapshot reads o.w from the check's local too


def test_reads_rewrite_only_bound_paths_and_never_a_write_target():
    reads = Reads("e0_", ["self.W", "self.W", "self.d['k']", "self.d"])
    assert reads.rewrite("self.W", gate=True) == "___e0_r0 := self.W"
    assert reads.rewrite("self.d", gate=True) == "___e0_r1 := self.d"
    assert reads.reuse("___o = g(x, self.W, self.d['k'], self.U)") == "___o = g(x, ___e0_r0, ___e0_r1['k'], self.U)"
    assert reads.reuse("self.W = self.W.copy()") == "self.W = ___e0_r0.copy()"
    assert reads.reuse("self.W[...] = 0") == "___e0_r0[...] = 0"          # a write *into* the object read
    assert Reads("e0_", ["x"]).reuse("x.y = 1") == "x.y = 1"             # nothing bound: the code as it was


def _reference_rewrite(reads: Reads, expr: str, gate: bool) -> str:
    """Reads.rewrite as first written: every read path found by walking the parsed expression."""
    import ast
    from minidynamo.guards.reads import _is_read, _Substitute
    if not reads.bound and not gate:
        return expr
    tree = ast.parse(expr.strip(), mode="eval")
    canon = ast.unparse(tree)
    tree = _Substitute(reads.bound).visit(tree)
    text = ast.unparse(tree)
    if gate and canon not in reads.bound and reads._count.get(canon, 0) > 1 and _is_read(tree.body):
        local = reads.bound[canon] = f"___{reads.tag}r{len(reads.bound)}"
        return f"{local} := {text}"
    return text


def test_rewrite_by_text_agrees_with_the_tree_walk():
    """The plain-path fast path gives what the tree walk gives, binding the same locals in the same order."""
    exprs = ["self", "self.W", "self.W.shape", "self.d['C']", "self.d['C'][0]", "self.d[\"n\"]", "x",
             "self.layers[0].W", "self.layers[0].W.T", "self.layers[-1].W", "d[k].w", "d[a.b].w", "(a + b).c",
             "f(self.W).x", "self.W.shape[0] == x.shape[1]", "len(self.d['C'])", "self.d['C'] is not None",
             "___G['np']", "___G['np'].linalg", "g.__closure__[0].cell_contents", "t[0, 1].x",
             "validation_data[0] is X_val", "'forward' in self.layers[0].__dict__", "self.d['C'] is self.W",
             "self.layers[1].prev is self.layers[0]", "x.shape[0] + self.W.shape[1] > 2", "self.f(self.W).y",
             "not self.d['é']", "(self.W, self.d['C'])[0]", "self.W.sum(axis=self.d['C'])",
             "___e0_f1(idx)", "___e0_f1(idx).shape[0] >= 2", "___e0_f1(idx).dtype", "f(idx).dtype"]
    for gates in (lambda i: True, lambda i: i % 2 == 0, lambda i: i % 3 != 1):
        fast, slow = Reads("e0_", exprs, exprs[:6]), Reads("e0_", exprs, exprs[:6])
        texts = []
        for i, e in enumerate(exprs * 2):
            texts.append(fast.rewrite(e, gates(i)))
            assert texts[-1] == _reference_rewrite(slow, e, gates(i)), e
        assert fast.bound == slow.bound and len(fast.bound) >= 2
        assert any("___e0_r" in t and (" is " in t or " > " in t) for t in texts)     # relations substituted
