"""ScalarVar: an unspecialized Python int or float. Imports graph.ir and variables.base/const.

A loop counter handed from one iteration to the next, or a float computed in plain Python between two
graphs (`loss = float(...)`), changes on every call; guarding its value would capture again each time. A
ScalarVar is instead a graph value (an input, or the result of Python arithmetic recorded as an operator
node): arithmetic with arrays or other scalars goes into the graph with Python's own semantics. It still
knows its value at capture time, and specializes (guards the inputs it was computed from) only where
capture needs a constant: range() bounds, indices, shapes. A branch on it is a data-dependent break.
A number carried through a folded while loop (a counter), or one the graph computes (int()/float()/math of a
0-d array value, a draw without a size) is *runtime-only*: its value exists only when the
graph runs, so everything derived from it refuses to specialize (capture breaks instead). The index of a
loop being folded into a fori_loop node (capture/fold/fori.py) takes every value of its range: it is a symbolic
int (a loop index of the shape env) that *varies*: never a constant either, while symbolic ops (indexing,
slicing, sizes) use its symbol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ...graph.ir import Node
from ...guards import Guard, GuardKind
from .base import Var, unsupported
from ..breaks import BreakCategory
from .const import ConstVar

if TYPE_CHECKING:
    from ..frame import Frame

SCALAR_TYPES = (int, float)


class ScalarVar(Var):
    """`node` computes the value in the graph; `value` is its value at capture time; `roots` are the input
    ScalarVars whose value guards make `value` a constant when capture specializes on it."""

    runtime_only = False     # True for loop-carried numbers: `value` is a stand-in of the right type only
    origin = ""              # for a runtime-only number: where it comes from, in words (for break reasons)
    loop_index = False       # True for the index of a loop being folded: `value` is its first value only

    def __init__(self, node: Node, value: Any, source=None, install_guard: Callable[[], None] | None = None,
                 roots: tuple["ScalarVar", ...] | None = None) -> None:
        self.node, self.value, self.source = node, value, source
        self._install_guard = install_guard
        self._roots = roots

    @property
    def roots(self) -> tuple["ScalarVar", ...]:
        # (not stored as `(self,)`: that cycle would keep the Var, and what its guard callback reaches, the
        # caller's objects among them, alive past the capture until a garbage collection)
        return (self,) if self._roots is None else self._roots

    @classmethod
    def runtime(cls, node: Node, example: Any, origin: str) -> "ScalarVar":
        """A number known only when the graph runs (of `example`'s type): it never becomes a constant. Meta
        rules of the ops that use it see `example`, a stand-in of the right type. `origin` says where it
        comes from ("`float()` of an array value"), for the break reasons of what needs its value."""
        node.meta.setdefault("value", example)
        var = cls(node, example)
        var.runtime_only, var.origin = True, origin
        return var

    def is_runtime_only(self) -> bool:
        return any(root.runtime_only for root in self.roots)

    def runtime_origin(self) -> str:
        """Where a runtime-only number comes from (its first runtime-only root's origin)."""
        return next((r.origin for r in self.roots if r.runtime_only and r.origin), "computed by the graph")
    def varies(self) -> bool:
        """Computed from the index of a loop being folded: one value per iteration."""
        return any(root.loop_index for root in self.roots)

    def describe(self) -> str:
        kind = f"a Python {type(self.value).__name__}"
        return f"{kind} known only when the graph runs" if self.is_runtime_only() else kind

    def python_type(self) -> type:
        return type(self.value)

    def is_constant(self) -> bool:
        # a value is known; as_constant() pays for it with guards
        return not self.is_runtime_only() and not self.varies()

    def as_constant(self) -> Any:
        if self.varies():
            raise unsupported(BreakCategory.DATA_DEPENDENT, "the index of a loop folded into a fori_loop has "
                              "a value per iteration: code that needs one value keeps the loop unfolded")
        if self.is_runtime_only():
            raise unsupported(BreakCategory.DATA_DEPENDENT, f"a Python number the graph computes "
                              f"({self.runtime_origin()}) is known only at run time")
        for root in self.roots:
            if root._install_guard is not None:
                install, root._install_guard = root._install_guard, None
                install()
        return self.value

    def expr(self) -> str | None:
        """This value as a Python expression over its inputs' sources (`(steps < n)`), or None."""
        if self.source is not None:
            return self.source.expr()
        return self.node.meta.get("expr")

    def as_bool(self, frame: "Frame") -> bool:
        # A branch guards the condition itself, as Dynamo guards `n > 0` on a symbolic int: the capture
        # stays valid for every input that takes the same branch, without guarding the exact values.
        expr = self.expr()
        sym = self.node.meta.get("sym")
        if sym is not None and not isinstance(sym, int):
            return bool(sym)          # `if n:` on a symbolic int: the shape env guards n != 0 (or == 0)
        if type(self.value) is bool and expr is not None:
            frame.ctx.guard([Guard(expr, GuardKind.EQUALS, self.value, f"condition {expr}")])
            return self.value
        relation = self.node.meta.get("relation")
        if relation is not None and self.varies():
            # `if j == 68:` on the index of a loop being folded: one answer for the whole range, or on_varying
            return frame.ctx.shape_env.decide(*relation)
        return bool(self.as_constant())

    def getattr(self, frame: "Frame", name: str) -> Var:
        return ConstVar(self.as_constant()).getattr(frame, name)

    def length(self, frame: "Frame") -> int:
        raise unsupported(BreakCategory.EXCEPTION, f"object of type {type(self.value).__name__} has no len()")

    def reconstruct(self, out: Any) -> str:
        return out.graph_value(self)


def is_scalar(v: Var) -> bool:
    return isinstance(v, ScalarVar)


def is_symbolic_int(v: Var) -> bool:
    """An unspecialized int that is a symbol of the capture's shape env (a size, a bound, a loop index)."""
    return isinstance(v, ScalarVar) and "sym" in v.node.meta


def is_number_constant(v: Var) -> bool:
    return not is_scalar(v) and v.is_constant() and type(v.as_constant()) in (int, float, bool)
