"""Calls the core Var kinds (base, const, scalar, array, containers, operators) make into the kinds built on
them, passed in rather than imported: each slot is filled by the module that defines it, with
`@HOOKS.provide`, when that module loads (capture/context.py imports every provider, before any capture),
so the core imports nothing above it and the Var modules form no import cycle wider than the core. A leaf.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from ..frame import Frame
    from .base import Var


class Hooks:
    """One slot per upward call; the comment names its provider."""

    dynamic_index: Callable[["Frame", "Var"], "Var"]                       # dynamic_index.py: x[key]'s key
    array_iterator: Callable[["Frame", "Var"], "Var"]                      # lazy_iterators.py: iter(x)
    call_constant: Callable[["Frame", "Var", list, dict], "Var"]          # class_calls.py: cls(...)
    user_class_attribute: Callable[["Frame", "Var", str], "Var | None"]   # descriptors.py: Cls.name
    format_method: Callable[["Frame", str, list, dict], "Var"]            # strings.py: "...".format(...)
    percent_format: Callable[["Frame", str, list], "Var"]                 # strings.py: "..." % values
    concat: Callable[["Var", "Var"], "Var | None"]                        # strings.py: a + b of strings
    sorted_list: Callable[["Frame", "Var", dict], "Var"]                  # stdlib.py: lst.sort()
    set_operation: Callable[["Frame", str, "Var", "Var"], "Var | None"]   # sets.py: a <op> b with a set

    def provide(self, fn: Any) -> Any:
        """Fill the slot named after `fn` (a decorator)."""
        if fn.__name__ not in Hooks.__annotations__:
            raise RuntimeError(f"no hook slot named {fn.__name__}")
        setattr(self, fn.__name__, fn)
        return fn


HOOKS = Hooks()
