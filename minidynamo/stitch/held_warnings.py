"""Warnings of a graph that may raise: held while it runs, then issued from the place eager issues them.

Imports graph and capture.instructions. A graph that raises re-runs its function eagerly
(stitch/guarded_call.py), and the re-run issues again every warning the graph's ops issued before the raise
(`np.log(0)`, then a singular `np.linalg.inv`): eager shows it once. So a graph holding an op that can raise
(`may_raise`: any op but elementwise ufuncs and operators on arrays, which only warn unless an errstate makes
them raise, and shape-checked ops on fixed shapes indexed by constants) runs with every
warning routed past the filters into a list: for the call only, the module's `filters` become one "always"
entry and `showwarning` the collector, so no filter version is bumped and no once-per-location registry is
written. A graph of elementwise ops only is held too while the caller's error state makes a floating-point
error raise (`with np.errstate(under="raise"): f(x)`, or a resume function re-entering such a block around
a graph captured without it: `call_while_raising`), since any ufunc may raise then.
When the graph raises, the list is dropped and the re-run issues the warnings itself. When it
returns, each is issued again with `warnings.warn_explicit` from eager's place: a warning of a graph line
from the user's file, line, module and registry that the node recorded (its meta WHERE, innermost frame),
one attributed elsewhere (a NumPy function warning at its own caller) from that frame. So the filters, the
"default" action's memory and the printed location are eager's. A warning the filters turn into an error
makes the graph's result unusable: `WarningAsError` is raised before any is shown, and the function re-runs
eagerly, raising it where eager does.

Other threads' warnings during the call are issued again after it, from their recorded place (delayed, and
from this thread). Where the filters live in a context variable (pyversion.CONTEXT_AWARE_WARNINGS), the
filters are swapped through `warnings.catch_warnings` instead (context-local; it bumps the filter version).
"""

from __future__ import annotations

import operator
import sys
import threading
import warnings
from typing import Any, Callable

import numpy as np

from .. import pyversion
from ..capture.instructions import decode
from ..graph import codegen, control
from ..graph.errstate import ERRSTATE
from ..graph.ir import WHERE, ArraySpec, Graph, Node, PyScalarSpec

_ALWAYS = [("always", None, Warning, None, 0)]
# Operators that compute a ufunc on NumPy operands (Python numbers may raise: `1 // 0`, `2.0 ** 2000`).
_UFUNC_OPERATORS = frozenset(codegen.BINARY_INFIX) | frozenset(codegen.UNARY_PREFIX)


class WarningAsError(Exception):
    """A held warning the filters make an error: the graph's call counts as raised (the function re-runs)."""


def may_raise(graph: Graph) -> bool:
    """Whether a node of the graph (or of its cond / loop bodies) may raise for a reason other than a
    warning made an error (see _only_warns)."""
    return not all(_only_warns(n) for n in graph.nodes)


def _only_warns(node: Node) -> bool:
    """Reading a result out of a tuple; an elementwise ufunc or operator on NumPy arrays or scalars; an op
    of _STATIC_SAFE_OPS on arrays of fixed shapes (its meta rule accepted exactly these at capture), indexed
    by constants only."""
    if not node.is_call:
        return True
    if any(v in ("raise", "call") for kw in node.meta.get(ERRSTATE, ()) for _, v in kw):
        return False                # under `np.errstate(invalid="raise")` (or a callback) any ufunc may raise
    if control.is_control(node):
        return all(_only_warns(n) for _, g in control.subgraphs(node) for n in g.nodes)
    target, inputs = node.target, node.inputs()
    if target is operator.getitem and isinstance(node.args[0], Node) and isinstance(node.args[0].spec, tuple):
        return len(node.args) == 2 and type(node.args[1]) is int
    if isinstance(target, np.ufunc) or target in _UFUNC_OPERATORS:
        return all(isinstance(i.spec, ArraySpec) for i in inputs) or _exact_on_python_numbers(node)
    if node.op not in _STATIC_SAFE_OPS or not _fixed(node.spec):
        return False
    if node.op in ("getitem", "setitem"):       # the array (and the value written) only: no index from data
        inputs = [a for a in (node.args[0], node.args[2] if node.op == "setitem" else None) if isinstance(a, Node)]
        if len(inputs) != len(node.inputs()):
            return False
    return all(isinstance(i.spec, ArraySpec) and not i.spec.is_symbolic for i in inputs)


# Operators that never raise or warn on Python ints (bools) alone, or on floats alone: exact integers, or a
# float result that is inf at worst. Mixing the two may raise (a huge int converted: OverflowError), and
# `/`, `//`, `%`, `**`, shifts raise on some values.
_EXACT_ON_INTS = frozenset({operator.add, operator.sub, operator.mul, operator.neg, operator.pos, operator.invert,
                            operator.and_, operator.or_, operator.xor, operator.lt, operator.le, operator.eq,
                            operator.ne, operator.gt, operator.ge})
_EXACT_ON_FLOATS = _EXACT_ON_INTS - {operator.invert, operator.and_, operator.or_, operator.xor}


def _exact_on_python_numbers(node: Node) -> bool:
    """A counter's `n + 1` in a graph: an operator of _EXACT_ON_INTS on Python ints only, or of
    _EXACT_ON_FLOATS on Python floats only (graph inputs of PyScalarSpec, or constants)."""
    if node.kwargs:
        return False
    kinds = {(a.spec.type if isinstance(a.spec, PyScalarSpec) else None) if isinstance(a, Node) else type(a)
             for a in node.args}
    if kinds <= {int, bool}:
        return node.target in _EXACT_ON_INTS
    return kinds == {float} and node.target in _EXACT_ON_FLOATS


def _fixed(spec: Any) -> bool:
    if isinstance(spec, tuple):
        return all(_fixed(s) for s in spec)
    return spec is None or (isinstance(spec, ArraySpec) and not spec.is_symbolic)


# Ops that raise only on shapes, axes or dtypes, which capture's meta rules checked for fixed shapes.
_STATIC_SAFE_OPS = frozenset("""
    all any argmax argmin argsort astype atleast_1d atleast_2d atleast_3d broadcast_to clip column_stack
    concatenate copy cumprod cumsum diag diff dot einsum empty empty_like expand_dims eye flatten flip full
    full_like getitem hstack identity imag inner max mean min moveaxis ones ones_like outer prod ravel real
    reshape roll rot90 round setitem sort squeeze stack std sum swapaxes tensordot tile transpose tri tril
    triu var vdot vstack where zeros zeros_like
""".split()) | frozenset(f"{u.__name__}.{m}" for u in vars(np).values() if isinstance(u, np.ufunc)
                         for m in ("reduce", "accumulate", "outer"))


def call_holding(compiled: Callable[..., Any], *args: Any) -> Any:
    """`compiled(*args)` with its warnings held and issued again from eager's places once it has returned."""
    held: list[tuple] = []
    owner = threading.get_ident()

    def collect(message, category, filename, lineno, file=None, line=None):
        # the span of the instruction that warned is read now: once the graph has returned, its frame
        # stands elsewhere, and an operand written inside a line would be taken for the line's node
        frame = _attributed_frame(filename, lineno)
        held.append((message, category, filename, lineno, frame, _columns(frame) if frame else (None, None),
                     threading.get_ident() == owner))

    if pyversion.CONTEXT_AWARE_WARNINGS:
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            shown, warnings.showwarning = warnings.showwarning, collect
            try:
                out = compiled(*args)
            finally:
                warnings.showwarning = shown
    else:
        filters, shown = warnings.filters, warnings.showwarning
        warnings.filters, warnings.showwarning = _ALWAYS, collect
        try:
            out = compiled(*args)
        finally:
            warnings.filters, warnings.showwarning = filters, shown
    if held:
        _issue([_eager_place(*h) for h in held])
    return out


# NumPy keeps the error state (np.errstate, np.seterr) in a context variable whose value is replaced, never
# changed in place; (the last value seen, whether it makes an error raise or call) spares np.geterr() (2.5 us).
_EXTOBJ = getattr(getattr(getattr(np, "_core", None), "_ufunc_config", None), "_extobj_contextvar", None)
_SEEN: tuple = (None, False)
# The last error state seen that makes nothing raise: an entry calls a graph of elementwise ops directly
# while `_EXTOBJ.get() is QUIET[0]` (one C call inline, where a wrapper's frame cost ~0.2 us a call).
# A state object held here is never freed, so no later state can take its identity.
QUIET: list = [object()]
ERRSTATE_GET = _EXTOBJ.get if _EXTOBJ is not None else None


def errors_raise() -> bool:
    """Whether NumPy's current error state makes some floating-point error raise (or call a callback)."""
    global _SEEN
    state = _EXTOBJ.get() if _EXTOBJ is not None else None
    seen = _SEEN
    if state is None or state is not seen[0]:
        raising = any(v in ("raise", "call") for v in np.geterr().values())
        if state is None:
            return raising
        seen = _SEEN = (state, raising)
        if not raising:
            QUIET[0] = state
    return seen[1]


def call_while_raising(compiled: Callable[..., Any], *args: Any) -> Any:
    """`compiled(*args)` (a graph may_raise calls safe), held (call_holding) while the caller's error state
    makes its elementwise ops able to raise; remembers a state that makes nothing raise in QUIET."""
    return call_holding(compiled, *args) if errors_raise() else compiled(*args)


def _attributed_frame(filename: str, lineno: int) -> Any:
    """The frame a warning was attributed to (its stack level's), found on the issuing thread's stack."""
    frame = sys._getframe(2)
    while frame is not None and (frame.f_code.co_filename != filename or frame.f_lineno != lineno):
        frame = frame.f_back
    return frame


def _eager_place(message: Any, category: type, filename: str, lineno: int, frame: Any,
                 columns: tuple[Any, Any], mine: bool) -> tuple:
    """(message, category, filename, lineno, globals) of the warning as eager issues it."""
    if frame is None:
        return message, category, filename, lineno, None
    if mine:                    # (node_at: None for a line that is not generated graph code)
        node = codegen.node_at(filename, lineno, columns)
        where = node.meta.get(WHERE) if node is not None else None
        if where:
            code, index, globals_ = where[-1]
            line = decode(code).lineno(index)
            if line is not None:
                return message, category, code.co_filename, line, globals_
    return message, category, filename, lineno, frame.f_globals


def _columns(frame: Any) -> tuple[Any, Any]:
    positions = list(frame.f_code.co_positions())
    index = frame.f_lasti // 2
    return positions[index][2:] if 0 <= index < len(positions) else (None, None)


def _issue(places: list[tuple]) -> None:
    if any(_is_error(*p) for p in places):
        raise WarningAsError(places[0][0])
    for message, category, filename, lineno, globals_ in places:
        if globals_ is None:
            warnings.warn_explicit(message, category, filename, lineno)
            continue
        module = globals_.get("__name__")
        registry = globals_.setdefault("__warningregistry__", {})    # as a warning's frame gets one eagerly
        warnings.warn_explicit(message, category, filename, lineno,
                               module if isinstance(module, str) else "<string>", registry)


def _is_error(message: Any, category: type, filename: str, lineno: int, globals_: dict | None) -> bool:
    """Whether the filters turn this warning into an exception (first matching filter, as warn_explicit)."""
    if isinstance(message, Warning):
        text, category = str(message), type(message)
    else:
        text = str(message)
    module = globals_.get("__name__") if globals_ is not None else None
    if not isinstance(module, str):
        module = "<string>" if globals_ is not None else (filename[:-3] if filename.endswith(".py") else filename)
    for action, msg, cat, mod, ln in warnings.filters:
        if ((msg is None or msg.match(text)) and issubclass(category, cat)
                and (mod is None or mod.match(module)) and (ln == 0 or lineno == ln)):
            return action == "error"
    return warnings.defaultaction == "error"
