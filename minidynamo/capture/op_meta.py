"""Calling an op's meta rule during capture: specs in, the result's spec out, the rule's errors as break
reasons. Imports graph.meta, graph.ops and capture's dynamic_shapes, breaks and variables.base.

A rule raises DataDependentShape (the result's shape is data: a data-dependent break), MetaUnsupported (the
rule does not model these arguments: an unsupported break, a limitation of capture) or MetaError (NumPy
itself would raise: the program's exception, raised again by the eager run). Rules that know no symbols get
concrete sizes first, each guarded (dynamic_shapes.specialize).
"""

from __future__ import annotations

from typing import Any

from ..graph import ops
from ..graph.meta import DataDependentShape, MetaError, MetaUnsupported
from ..graph.symbolic import ShapeEnv
from .breaks import BreakCategory
from .dynamic_shapes import specialize
from .variables.base import unsupported


def meta_spec(opdef: ops.OpDef, env: ShapeEnv, args: list, kwargs: dict) -> Any:
    """`opdef.meta(*args, **kwargs)` over specs, or the break its error stands for."""
    if not opdef.symbolic:
        args, kwargs = specialize(env, args), specialize(env, kwargs)
    try:
        return opdef.meta(*args, **kwargs)
    except DataDependentShape as e:
        raise unsupported(BreakCategory.DATA_DEPENDENT, _named(opdef.name, e)) from None
    except MetaUnsupported as e:     # a limitation of the rule, not the program's exception
        raise unsupported(BreakCategory.UNSUPPORTED, _named(opdef.name, e)) from None
    except MetaError as e:
        raise unsupported(BreakCategory.EXCEPTION, _named(opdef.name, e)) from None
    except (TypeError, ValueError, NotImplementedError) as e:
        raise unsupported(BreakCategory.UNSUPPORTED, f"{opdef.name} with these arguments: {e}") from None


def _named(name: str, error: Exception) -> str:
    """A meta rule's message under its op's name, once (most rules already start with it)."""
    text = str(error)
    return text if text.startswith(f"{name}:") or text.startswith(f"{name}(") else f"{name}: {text}"
