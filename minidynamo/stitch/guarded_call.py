"""The entry statements that call a captured graph, and what happens when it raises (a singular matrix, an index
out of range, an overflow). `entry_statements` is what api.capture_once calls: the body's graph call guarded,
the random streams the graph draws from saved around it (rng_state.py).

Imports held_warnings and stitch (entry, snapshots, raisers, rng_state). The graph runs before any Python
side effect is written back, so re-running the original function reproduces the exception, its traceback, the
handler that catches it and the side effects exactly. A graph that wrote into arrays first gets the parts its
writes reach restored from a snapshot before the re-run (stitch/snapshots.py), so each write happens once. A
graph that writes, has no operation inside a try/with region and no write-back the caller could see before one
of its operations (none, or only mutations made after its last one: `W -= lr * dW; history.append(loss)`)
skips that: its exception leaves the function just as eager's does, and its partial writes are what eager
leaves. A graph that re-runs and may raise (any graph, while the caller's error state makes floating-point
errors raise) holds its warnings until it returns (held_warnings.py), so the re-run's are the only ones shown.
"""

from __future__ import annotations

from typing import Any, Callable

from ..guards import RELEASE_READS
from .held_warnings import ERRSTATE_GET, QUIET, call_holding, call_while_raising, may_raise
from . import raisers
from .entry import Block, Code, Exit, Release, Rerun, Stmt, assign
from .rng_state import restoring_rng
from .snapshots import snapshot_lines


def entry_statements(ctx: Any, body: Any, compiled: Callable, forward: str, namespace: dict) -> list[Stmt]:
    """The entry's statements: body.statements, its first (the graph call) guarded, with the random states
    saved before the graph and restored before its eager re-run; binds what they read in `namespace`."""
    stmts = [*_guarded_graph_call(ctx, body, compiled, forward, namespace), *body.statements[1:]]
    return restoring_rng(body.graph_key, stmts, body.graph, ctx.inputs, namespace)


def _guarded_graph_call(ctx: Any, body: Any, compiled: Callable, forward: str, namespace: dict) -> list[Stmt]:
    """The statements that replace the body's first (`___o = <graph>(...)`); binds the graph (held or not)
    and what those statements read in `namespace`."""
    call = body.statements[0]
    # The graph reads its inputs from the locals the guard check bound (guards.RELEASE_READS), and those are
    # dropped on every way out of the call, before any of the function's own code runs.
    inputs = [src.expr() for src, _ in ctx.inputs]
    ctx.guards.read_later(inputs)
    if body.mutates and ctx.side_effects.all_after(len(body.graph.nodes)) and not ctx.nodes_in_try:
        # it leaves as is, raised from where the program stands (stitch/raisers.py; the same object: its
        # context stays); its warnings are eager's as they come
        namespace[body.graph_key] = compiled
        namespace["___at_user"] = raisers.at_user
        return [Block("try:", (call,)), Block("except BaseException as ___e:", (Exit("raise ___at_user(___e)"),)),
                Block("finally:", (Release(),))]
    # (the graph is called by name, through no wrapper's frame: about 0.1 us of a warm call)
    namespace[body.graph_key] = compiled
    if may_raise(body.graph):
        namespace["___hold"] = call_holding
        call = assign("___o", f"___hold({', '.join([body.graph_key, *inputs])})")
    else:
        call = _unless_raising(body.graph_key, inputs, namespace)
    # The re-run happens after the except clause: inside it, the re-run's own exception would carry the
    # graph's as its __context__ ("During handling of the above exception..."), and the graph's traceback
    # would keep the graph's arguments referenced while the function runs again.
    rerun = Block("if ___o is None:", (Rerun(f"return ___eager({forward})"),))
    if not body.mutates:
        return [Block("try:", (call,)), Block("except Exception:", (assign("___o", "None"), Release())), rerun,
                Release()]
    snapshot, restore = snapshot_lines(ctx, namespace)
    return [Code(snapshot, ("___snap",)), Block("try:", (call,)),
            Block("except Exception:", (assign("___o", "None"), Release(), *map(Code, restore))), rerun, Release()]


def _unless_raising(key: str, inputs: list[str], namespace: dict) -> Code:
    """The call of a graph that can only warn: direct while NumPy's error state is the last one seen that
    makes nothing raise (one C call inline), else through call_while_raising, which checks the state and
    remembers a quiet one (always, on a NumPy without the error-state context variable)."""
    namespace["___while_raising"] = call_while_raising
    checked = f"___while_raising({', '.join([key, *inputs])})"
    if ERRSTATE_GET is None:
        return assign("___o", checked)
    namespace["___errstate_get"], namespace["___quiet_errstate"] = ERRSTATE_GET, QUIET
    return assign("___o", f"{key}({', '.join(inputs)}) if ___errstate_get() is ___quiet_errstate[0] else {checked}")
