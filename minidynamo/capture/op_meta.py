"""Calling an op's meta rule during capture: specs in, the result's spec out, the rule's errors as break
reasons. Imports graph.meta, graph.ops and capture's dynamic_shapes, breaks and variables.

A rule raises DataDependentShape (the result's shape is data: a data-dependent break), MetaUnsupported (the
rule does not model these arguments: an unsupported break, a limitation of capture) or MetaError (NumPy
itself would raise: the program's exception, raised again by the eager run). Rules that know no symbols get
concrete sizes first, each guarded (dynamic_shapes.specialize).
"""

from __future__ import annotations

from typing import Any

from ..graph import ops
from ..graph.ir import PyScalarSpec
from ..graph.meta import DataDependentShape, MetaError, MetaUnsupported
from ..graph.symbolic import ShapeEnv
from ..graph.user_ops import UserMetaFailed
from . import break_codes as codes
from .breaks import BreakCategory
from .dynamic_shapes import specialize
from .variables.base import Var, unsupported
from .variables.containers import ListVar, TupleVar
from .variables.scalar import ScalarVar


def meta_spec(opdef: ops.OpDef, env: ShapeEnv, args: list, kwargs: dict) -> Any:
    """`opdef.meta(*args, **kwargs)` over specs, or the break its error stands for."""
    if not opdef.symbolic:
        args, kwargs = specialize(env, args), specialize(env, kwargs)
    try:
        return opdef.meta(*args, **kwargs)
    except DataDependentShape as e:
        raise unsupported(codes.VALUE_SHAPE, _named(opdef.name, e)) from None
    except UserMetaFailed as e:      # a registered function's rule (graph/user_ops.py)
        raise unsupported(codes.USER_META, str(e)) from None
    except MetaUnsupported as e:     # a limitation of the rule, not the program's exception
        raise unsupported(codes.META_UNMODELLED, _named(opdef.name, e)) from None
    except MetaError as e:
        raise unsupported(BreakCategory.EXCEPTION, _named(opdef.name, e)) from None
    except (TypeError, ValueError, NotImplementedError) as e:
        raise unsupported(codes.META_UNMODELLED, f"{opdef.name} with these arguments: {e}") from None


def _named(name: str, error: Exception) -> str:
    """A meta rule's message under its op's name, once (most rules already start with it)."""
    text = str(error)
    return text if text.startswith(f"{name}:") or text.startswith(f"{name}(") else f"{name}: {text}"


PY_INT = PyScalarSpec(int)


def value_ints(op: str, args: list[Var], kwargs: dict[str, Var]) -> set[int]:
    """The ids of nodes of Python ints known only at run time (`k = int(np.argmax(v))`) that the op reads as
    values which change no shape: an int index of getitem/setitem (`x[:, k]`; not a slice bound), roll's shift.
    Their rules see PyScalarSpec(int), checked when the graph runs (an index out of range raises there, and
    the function re-runs eagerly), instead of a break."""
    if op in ("getitem", "setitem") and len(args) > 1:
        items = args[1].items if isinstance(args[1], TupleVar) else (args[1],)
    elif op == "roll":
        shift = args[1] if len(args) > 1 else kwargs.get("shift")
        items = shift.items if isinstance(shift, (TupleVar, ListVar)) else (shift,)
    else:
        return set()
    return {id(v.node) for v in items if isinstance(v, ScalarVar) and v.is_runtime_only() and type(v.value) is int}
