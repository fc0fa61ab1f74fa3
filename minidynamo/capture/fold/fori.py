"""Loops as graph nodes: `for i in range(...)` whose body is graph code becomes one `fori_loop` node.
Imports fold.branches, fold.loop_ends, fold.loops, fold.loop_tests, capture.variables and graph
(the interpreter loop is passed in: frame.run_until).

At the loop's FOR_ITER, when the loop would otherwise be run by a loop driver (more iterations than capture
unrolls, bounds that depend on an enclosing folded loop's index) or has a `break` or a loop in its body,
`fold_for` captures the body once: the index is a *loop index* symbol of the shape env (capture takes a decision on
it only when it holds for the whole range, graph/symbolic.py), the locals the loop carries are placeholders
(arrays of a fixed spec, Python ints and floats known only at run time), and the body may write into arrays
(in eager's order; the node is then a writing node of the graph). The body ends where control comes back
to the header (the iteration is over, a `continue` too) or pops the loop's iterator (a `break`). A
data-dependent `if` whose arms leave the iteration (`if x.sum() > t: break`) is a cond whose arms run the
rest of the iteration and say whether the loop stops (`fold_iteration_end`). Anything else (a print, a
list append, a call that breaks, a decision that differs between iterations, a carried value whose spec
changes) puts everything back and the loop runs as before: unrolled, then driven. A carried value whose
spec changes in the first iteration only (`acc = 0.0; acc += np.tanh(...)` makes a float64) gets the loop
peeled: the first iteration is unrolled and the fold is tried once more at the second.
"""

from __future__ import annotations

import types
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ... import pyversion
from ...errors import GraphBreak
from ...graph import control, passes
from ...graph.ir import Node, PyScalarSpec, iter_nodes
from ...graph.symbolic import Sym
from .branches import ARM_STEP_BUDGET, AtLoopTest, NotFoldable, _restore, _save, _subgraph, _truncate
from ..breaks import BreakCategory
from .loop_ends import AtIterationEnd, check_body, result_var, run_iteration
from .loop_region import loop_region
from .loop_tests import truth
from .loops import _body_var, _carried_names, _carried_node, _drop, _placeholder
from ..variables.base import unsupported
from ..variables.const import ConstVar
from ..variables.containers import RangeIteratorVar
from ..variables.scalar import ScalarVar
from ..variables.sym_range import SymRangeIteratorVar, _hint, _sym
from ..stops import LoopBack

if TYPE_CHECKING:
    from ..frame import Frame

_PEEL = "changes type or spec in the body"
# (the exit may check a local the copy after a `break` knows is bound: the same load for capture)
_LOADS = {"LOAD_FAST_CHECK": "LOAD_FAST"}      # a NotFoldable that one peeled iteration may cure


# Folds refused where no enclosing fold or branch arm was being captured, per code object and FOR_ITER index,
# with why: a later pass over the same code (the restart, a recompile, a resume function's next variant, the
# next iteration of an enclosing loop) does not run the body again only to be refused again (issue 28). A
# refusal only keeps the loop unrolled or driven, as it ran before folding existed. reset() clears it.
_REFUSED: "weakref.WeakKeyDictionary[types.CodeType, dict[int, str]]" = weakref.WeakKeyDictionary()


def forget_refusals() -> None:
    _REFUSED.clear()


class ForiState:
    """One capture's folding of for loops: how many bodies are being captured (their code may write into
    arrays, branch arms in them too), and the loops that get a second try after one peeled iteration."""

    def __init__(self) -> None:
        self.depth = 0
        self.retry: set[tuple[int, int]] = set()


@dataclass
class _Loop:
    """A for loop whose body is being captured: its header (FOR_ITER), back edge, exit, the stack at the
    header (its iterator on top), the locals it carries and the instructions its iterations run (`region`:
    the span and blocks laid out after it, capture/fold/loop_region.py)."""

    header: int
    end: int
    exit: int
    stack: list
    region: frozenset[int] = frozenset()
    names: list[str] = field(default_factory=list)

    @property
    def floor(self) -> int:
        """The stack's depth once a `break` popped the iterator's slots (pyversion.ITER_SLOTS)."""
        return len(self.stack) - pyversion.ITER_SLOTS


@dataclass
class _Range:
    args: tuple         # (start, stop, step) of the node: ints or py_int nodes
    lo: Any             # the smallest and largest index (ints or Syms), when the range is not empty
    hi: Any
    hint: int           # the first index at capture time
    count: int          # iterations at capture time
    varies: bool        # a bound depends on an enclosing folded loop's index


def _varying(text: str) -> None:
    raise unsupported(BreakCategory.DATA_DEPENDENT, f"`{text}` does not hold for every index of the loop being "
                      "folded")


def _refuse_effect() -> None:
    raise unsupported(BreakCategory.SIDE_EFFECT, "the body of the loop being folded writes into a list, dict, "
                      "object, global or cell (its fold is refused before the write is recorded)")


def fold_for(frame: "Frame", it: Any) -> bool:
    """At FOR_ITER (its iterator `it` on the stack): replace the loop by a fori_loop node when it qualifies;
    True when done (the frame then stands at the loop's exit with the carried locals as the node's results)."""
    ctx = frame.ctx
    if ctx.fori is None or not ctx.auto_cond or not isinstance(it, (RangeIteratorVar, SymRangeIteratorVar)):
        return False
    header = frame.current
    key = (id(frame), header)
    if it.pos > 1 or (it.pos == 1 and key not in ctx.fori.retry) or frame.ins.in_try[header] \
            or ctx.arm_steps > ARM_STEP_BUDGET:
        return False
    span = next(((s, e) for s, e in frame.ins.loops if s == header), None)
    region = loop_region(frame.code, span) if span is not None else None
    if span is not None and region is None:
        frame.ctx.folded_log.append(f"line {frame.location()[1]}: for not folded: code outside the loop jumps "
                                    "into its body")
        return False
    rng = _range_of(frame, it) if span is not None else None
    if rng is None or not _worth_folding(frame, span, region, rng):
        return False
    refused = _REFUSED.get(frame.code, {}).get(header)
    if refused is None and _try_fold(frame, it, span, region, rng, key):
        return True
    if refused is not None:
        ctx.folded_log.append(f"line {frame.location()[1]}: for not folded: {refused} (refused before)")
    _doomed(frame, span, rng)
    return False


def _doomed(frame: "Frame", span: tuple[int, int], rng: _Range) -> None:
    """Inside the body of a loop being folded, an inner loop left unfolded that may run past unroll_limit
    breaks the enclosing fold, but only once it has been unrolled that far: refuse the enclosing fold now
    (even where a `break` might end the inner loop sooner: the loops then run as without folding)."""
    if frame.ctx.fori.depth and frame.visits.get(span[0], 0) + rng.count > frame.ctx.unroll_limit:
        raise NotFoldable(f"an inner loop (line {frame.location()[1]}) is not folded and runs past "
                          f"unroll_limit ({frame.ctx.unroll_limit})")


def _try_fold(frame: "Frame", it: Any, span: tuple[int, int], region: frozenset[int], rng: _Range,
              key: tuple) -> bool:
    ctx = frame.ctx
    ctx.shape_env.on_varying = _varying
    ctx.fold_attempts += 1
    loop = _Loop(span[0], span[1], frame.ins.targets[span[0]] + pyversion.FOR_ITER_EXIT_SKIP, list(frame.stack),
                 region)
    state = _save(frame)
    where = frame.location()
    saved_stop, frame.stop_at = frame.stop_at, None
    known = ctx.known.forget()    # a value known before the loop may be written by an earlier iteration
    refuse, ctx.side_effects.refuse = ctx.side_effects.refuse, _refuse_effect
    ctx.arm_depth += 1
    ctx.fori.depth += 1
    frame.fori.append(loop)
    hoisted: list[Node] = []
    placeholders: list[Node] = []
    node = None
    try:
        loop.names = _carried_names(frame, loop.header, loop.end, loop.exit, exceptions=True, region=region)
        node = _fold(frame, loop, rng, hoisted, placeholders, where)
    except (NotFoldable, GraphBreak, LoopBack, AtLoopTest, AtIterationEnd) as e:
        _drop(frame, placeholders)
        _restore(frame, state, hoisted)
        ctx.folded_log.append(f"line {where[1]}: for not folded: {e}")
        if _PEEL in str(e) and it.pos == 0 and isinstance(it, RangeIteratorVar):
            ctx.fori.retry.add(key)
        elif ctx.fori.depth == 1 and ctx.arm_depth == 1:    # (not inside another fold: its context differs)
            _REFUSED.setdefault(frame.code, {})[loop.header] = str(e).split("\n")[0]
        return False
    finally:
        frame.fori.pop()
        ctx.side_effects.refuse = refuse
        ctx.fori.depth -= 1
        ctx.arm_depth -= 1
        frame.stop_at = saved_stop
        frame.visits = dict(state.visits)
        wrote = tidy_effects(ctx, node)
        if node is None or not wrote:
            ctx.known.restore(known)
    return True


def tidy_effects(ctx: Any, node: Node | None) -> bool:
    """Nodes cut out of the graph (into a subgraph, or dropped with a fold that failed) leave the lists of
    writing nodes and nodes in try regions; `node`, holding them, takes their place. True if any wrote."""
    present = {id(n) for n in ctx.graph.nodes}
    wrote = False
    for nodes in (ctx.mutating_nodes, ctx.nodes_in_try):
        kept = [n for n in nodes if id(n) in present]
        cut = len(kept) != len(nodes)
        nodes[:] = kept + ([node] if cut and node is not None and all(n is not node for n in kept) else [])
        wrote = wrote or (cut and nodes is ctx.mutating_nodes)
    return wrote


def _range_of(frame: "Frame", it: Any) -> _Range | None:
    """The rest of the range `it` iterates, or None when it cannot be a fori_loop's."""
    if isinstance(it, RangeIteratorVar):
        rest = it.range[it.pos:]
        if not rest:
            return None
        return _Range((rest.start, rest.stop, rest.step), min(rest[0], rest[-1]), max(rest[0], rest[-1]),
                      rest[0], len(rest), False)
    if it.pos:
        return None
    r, env = it.range, frame.ctx.shape_env
    step = r.step.as_constant()
    if abs(step) != 1:      # (other steps: the last index is an opaque term, decided nowhere)
        return None
    first, stop = _sym(r.start), _sym(r.stop)
    lo, hi = (first, stop - 1) if step > 0 else (stop + 1, first)
    count = len(range(_hint(r.start), _hint(r.stop), step))
    args = (frame.ctx.to_arg(r.start), frame.ctx.to_arg(r.stop), step)
    return _Range(args, lo, hi, _hint(r.start), count, env.varies(lo) or env.varies(hi))


def _worth_folding(frame: "Frame", span: tuple[int, int], region: frozenset[int], rng: _Range) -> bool:
    """Where capture would hand the loop to a driver (it runs past unroll_limit: each visit of the header
    counts), it cannot unroll it (its bounds vary), its body has a `break` (data-dependent, it breaks) or a
    loop of its own (unrolled, every copy of the inner loop counts against unroll_limit)."""
    if rng.varies or frame.visits.get(span[0], 0) + rng.count > frame.ctx.unroll_limit:
        return True
    return rng.count >= 2 and (_has_break(frame, span[0], region) or _has_inner_loop(frame, span[0], region))


def _has_inner_loop(frame: "Frame", header: int, region: frozenset[int]) -> bool:
    return any(s != header and s in region for s, _ in frame.ins.loops)


def _has_break(frame: "Frame", header: int, region: frozenset[int]) -> bool:
    ins = frame.ins
    for k in sorted(region - {header}):
        if ins.instrs[k].name in ("RETURN_VALUE", "RETURN_CONST"):
            return True     # (3.12+ copies a short exit block into a `break`)
        if k in ins.targets and ins.targets[k] not in region:
            return True
    return False


def _fold(frame: "Frame", loop: _Loop, rng: _Range, hoisted: list[Node], placeholders: list[Node],
          where: tuple) -> Node:
    ctx, graph = frame.ctx, frame.ctx.graph
    initial = [_initial(frame, loop, rng, name) for name in loop.names]
    state = _save(frame)               # after the initial values, which stay
    version = ctx.side_effects.version
    index = _index_var(frame, rng, placeholders)
    for i, (name, node) in enumerate(zip(loop.names, initial)):
        p = _placeholder(frame, node.spec, i)
        placeholders.append(p)
        frame.locals[name] = _body_var(p, node, "for")
    narrowed = _narrow(ctx.shape_env, rng)
    try:
        frame.push(index)
        frame.ip = loop.header + 1
        broke = run_iteration(frame, loop)
        ends = [_carried_node(frame, name, frame.locals.get(name)) for name in loop.names]
        flag = None if broke is False else truth(graph, broke)
    finally:
        if narrowed is not None:
            ctx.shape_env.restore_ends(narrowed)
    for name, v, end in zip(loop.names, initial, ends):
        if end.spec != v.spec:
            raise NotFoldable(f"loop variable {name!r} {_PEEL}")
    nodes = _truncate(graph, state.n_nodes, hoisted)
    check_body(ctx, state, version, nodes)
    _drop(frame, placeholders)
    outs = ends + ([flag] if flag is not None else [])
    invariants = _invariants(graph, nodes, placeholders, outs)
    body = _subgraph(f"{graph.name}_body", [n for n in nodes if not n.meta.get("placeholder")],
                     placeholders + invariants, outs)
    try:
        node = control.add_fori_loop(graph, rng.args, body, tuple(initial), tuple(invariants), flag is not None)
    except ValueError as e:
        raise NotFoldable(str(e)) from None
    filename, lineno, text = where
    node.meta.update(folded="for", filename=filename, lineno=lineno, source_line=text, function=frame.qualname,
                     writes=tuple(k + 2 for k in written_inputs(body, len(initial))))
    ctx.folded.append(node)
    frame.locals = dict(state.locals)       # after the loop: each carried local is one of the node's results
    for i, name in enumerate(loop.names):
        frame.locals[name] = result_var(graph, node, i, initial[i], f"`{name}` after a folded `for` loop")
    frame.stack = state.stack[:-pyversion.ITER_SLOTS]        # the iterator is gone, as after the loop
    frame.ip = loop.exit
    return node


def _initial(frame: "Frame", loop: _Loop, rng: _Range, name: str) -> Node:
    """The value a carried local has before the loop; the loop variable itself may be unbound then when the
    loop runs at least once (its value before the first iteration is never read)."""
    value = frame.locals.get(name)
    target = frame.ins.instrs[loop.header + 1]
    if value is None and target.name == "STORE_FAST" and target.arg == name and type(rng.args[0]) is int \
            and type(rng.args[1]) is int and rng.count > 0:
        value = ConstVar(rng.hint)
    if value is None:
        raise NotFoldable(f"{name!r} is unbound before the loop and read after it")
    return _carried_node(frame, name, value)


def _index_var(frame: "Frame", rng: _Range, placeholders: list[Node]) -> ScalarVar:
    """The loop index inside the body: a py_int input of the body, a loop index of the shape env."""
    p = _placeholder(frame, PyScalarSpec(int), len(frame.ctx.graph.nodes))
    placeholders.append(p)
    p.meta.update(value=rng.hint, sym=frame.ctx.shape_env.create_index(rng.lo, rng.hi, rng.hint))
    index = ScalarVar(p, rng.hint)
    index.loop_index = True
    return index


def _narrow(env: Any, rng: _Range) -> tuple | None:
    """An inner loop whose range depends on an enclosing loop's index (`for j in range(i)`) runs only for the
    indices where its range is not empty (i >= 1): while its body is captured, that index has those ends."""
    size = rng.hi - rng.lo
    if not isinstance(size, Sym) or not env.varies(size):
        return None
    atoms = {a for m in size.poly for a in m}
    rest = {m: c for m, c in size.poly.items() if m}
    if len(atoms) != 1 or len(rest) != 1 or len(next(iter(rest))) != 1:
        return None
    (mono, coeff), = rest.items()
    atom = env.atoms[mono[0]]
    if not atom.ends:
        return None
    const = size.poly.get((), 0)            # coeff * index + const >= 0
    lo, hi = atom.ends
    if coeff > 0:
        bound = -(const // coeff)           # ceil(-const / coeff)
        return env.narrow(Sym(env, {mono: 1}), bound if bool(bound > lo) else lo, hi)
    bound = const // -coeff
    return env.narrow(Sym(env, {mono: 1}), lo, bound if bool(bound < hi) else hi)


def written_inputs(body: Any, n_carried: int) -> list[int]:
    """Positions of a fori body's inputs (index, carried..., invariants...) whose arrays its writes may
    reach (stitch/snapshots.py saves those): reached backwards from every write's target, and through a
    written carried value from whatever the body carries into it (a view made one iteration is written
    the next)."""
    position = {id(n): k for k, n in enumerate(body.inputs)}

    def reach(values: Any) -> set[int]:
        """The inputs whose memory `values` may share: a subscript's base, anything an op returns but
        for the fresh results of ufuncs and operators."""
        found, seen, stack = set(), set(), list(iter_nodes(values))
        while stack:
            n = stack.pop()
            if id(n) not in seen:
                seen.add(id(n))
                found |= {position[id(n)]} if id(n) in position else set()
                if n.op == "getitem" and len(n.args) == 2:
                    stack.extend(iter_nodes(n.args[0]))
                elif n.is_call and not (passes.returns_fresh(n.target) and not passes.is_impure(n)):
                    stack.extend(n.inputs())        # (a ufunc given out= returns that array)
        return found

    written: set[int] = set()
    for n in body.nodes:
        if n.is_call and passes.is_impure(n):
            spots = n.meta.get("writes", range(len(n.args)))
            written |= reach([n.args[i] for i in spots if i < len(n.args)] + list(iter_nodes(n.kwargs.get("out"))))
    grown = True
    while grown:
        before = len(written)
        for j in range(n_carried):
            if 1 + j in written:
                written |= reach(body.outputs[j])
        grown = len(written) != before
    return sorted(k for k in written if k > 0)


def _invariants(graph: Any, nodes: list[Node], placeholders: list[Node], outs: list[Node]) -> list[Node]:
    """The values from before the loop that the body reads: the node's operands after the carried ones."""
    inside = set(map(id, nodes)) | set(map(id, placeholders))
    outer = set(map(id, graph.nodes))
    found: list[Node] = []
    for node in [a for n in nodes for a in n.inputs()] + outs:
        if id(node) in inside or any(node is o for o in found):
            continue
        if id(node) not in outer:
            raise NotFoldable("the body reads a value from outside the graph")
        found.append(node)
    return found
