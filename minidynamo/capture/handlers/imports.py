"""Import statements inside functions (IMPORT_NAME, IMPORT_FROM).

An import whose modules are all in `sys.modules` already, fully initialised, only looks them up: capture
resolves it at capture time and guards that `sys.modules` still holds the same module objects (a missing or
replaced entry would make eager import again, running module code). An import that would load or initialise
a module, a replaced `__import__`, or a name the module does not hold in its own namespace is a graph break:
the entry runs the import as plain Python and capture resumes after it.
"""

from __future__ import annotations

import builtins
import importlib.util
import sys
import types

from bytecode import Instr

from ... import guards as G, pyversion
from ...errors import CannotResume
from ..breaks import BreakCategory
from ..frame import Frame
from ..sources import ItemSource, NamespaceSource
from ..variables.base import unsupported
from .registry import Plain, handler, plain_form

_BUILTIN_IMPORT = builtins.__dict__["__import__"]


def builtins_dict(frame: Frame) -> dict:
    """The builtins namespace the frame's code looks names up in (IMPORT_NAME, LOAD_BUILD_CLASS): the
    function's own `__builtins__` (capture/builtin_scope.py), guarded where it is not fixed."""
    return frame.builtins.namespace(frame.ctx)


def _absolute_name(frame: Frame, name: str, level: int) -> str:
    """The module name the statement imports, resolved as `__import__` does for the function's globals."""
    if level == 0:
        return name
    package = frame.globals.get("__package__")
    spec = frame.globals.get("__spec__")
    if not isinstance(package, str) or not package or (spec is not None and spec.parent != package):
        raise unsupported(BreakCategory.SIDE_EFFECT, "relative import without a consistent __package__")
    try:
        return importlib.util.resolve_name("." * level + name, package)
    except ImportError as e:
        raise unsupported(BreakCategory.EXCEPTION, f"import: {e}") from None


def _loaded(name: str) -> types.ModuleType:
    module = sys.modules.get(name)
    if not isinstance(module, types.ModuleType) or getattr(getattr(module, "__spec__", None), "_initializing", False):
        raise unsupported(BreakCategory.SIDE_EFFECT, f"import of {name!r} would load or initialise a module")
    return module


@handler("IMPORT_NAME", until=(3, 14))
def import_name_3_11(frame: Frame, inst: Instr) -> None:
    # (level, fromlist -- module)
    _import(frame, inst.arg)


# https://docs.python.org/3.15/library/dis.html#opcode-IMPORT_NAME
@handler("IMPORT_NAME", since=(3, 15))
def import_name(frame: Frame, inst: Instr) -> None:
    # (level, fromlist -- module)   3.15's argument (lazy, eager, name): a lazy import binds a proxy
    lazy, _eager, name = inst.arg
    if lazy:
        raise unsupported(BreakCategory.UNSUPPORTED, "a lazy import (PEP 810) runs eagerly")
    _import(frame, name)


def _module_name(inst: Instr) -> str:
    """IMPORT_NAME's module name; CannotResume for 3.15's lazy form, which no call spells."""
    if not pyversion.IMPORT_NAME_HAS_LAZY_FLAG:
        return inst.arg
    lazy, _eager, name = inst.arg
    if lazy:
        raise CannotResume("a lazy import (PEP 810) in plain Python")
    return name


def _import(frame: Frame, module_name: str) -> None:
    """IMPORT_NAME of `module_name` (relative to the frame's package when the level says so), resolved at
    capture time when the modules are loaded already."""
    level_var, fromlist_var = frame.stack[-2], frame.stack[-1]
    if not (level_var.is_constant() and fromlist_var.is_constant()):
        raise unsupported(BreakCategory.UNSUPPORTED, "import with computed level or names")
    level, fromlist = level_var.as_constant(), fromlist_var.as_constant()
    ns = builtins_dict(frame)
    if ns.get("__import__") is not _BUILTIN_IMPORT:
        raise unsupported(BreakCategory.CALL, "__import__ is not the builtin one")
    absolute = _absolute_name(frame, module_name, level)
    if not absolute or (fromlist and "*" in fromlist):
        raise unsupported(BreakCategory.UNSUPPORTED, "import form left to plain Python")
    result = absolute if fromlist else absolute.partition(".")[0]
    needed = {n: _loaded(n) for n in dict.fromkeys((absolute, result))}
    if fromlist and hasattr(needed[result], "__path__"):
        # a package imports missing names as submodules: only names it already holds are lookups
        missing = [n for n in fromlist if n not in vars(needed[result])]
        if missing:
            raise unsupported(BreakCategory.SIDE_EFFECT, f"import of {missing[0]!r} from {result!r} may load a submodule")
    ctx = frame.ctx
    ctx.guard([G.Guard(f"{ctx.bind(ns, 'B')}['__import__']", G.GuardKind.ID, _BUILTIN_IMPORT, "builtin __import__")])
    modules = NamespaceSource(ctx.bind(sys.modules, "mods"), "sys.modules")
    for n, module in needed.items():
        if n != result:
            ctx.guard([G.Guard(ItemSource(modules, n).expr(), G.GuardKind.ID, module, f"sys.modules[{n!r}]")])
    frame.popn(2)
    frame.push(ctx.wrap(needed[result], ItemSource(modules, result)))


@plain_form("IMPORT_NAME")
def import_name_plain(frame: Frame, inst: Instr, em) -> Plain:
    # What CPython does for a function frame: the frame's builtins' __import__ with its globals, no locals.
    level, fromlist = em.value(frame.stack[-2]), em.value(frame.stack[-1])
    call = f"{em.constant(frame.builtins.ns)}['__import__']({_module_name(inst)!r}, {frame.globals_key}, None, " \
           f"{fromlist}, {level})"
    return Plain(2, ["___r"], [f"___r = {call}"])


@handler("IMPORT_FROM")
def import_from(frame: Frame, inst: Instr) -> None:
    # (module -- module, attr)   a name missing from the module's namespace falls back to sys.modules in
    # CPython (or raises ImportError): left to plain Python.
    module_var = frame.stack[-1]
    module = getattr(module_var, "value", getattr(module_var, "module", None))   # UserObjectVar, LibraryModuleVar
    if not isinstance(module, types.ModuleType) or inst.arg not in vars(module):
        raise unsupported(BreakCategory.UNSUPPORTED, f"import of {inst.arg!r}: not a name the module holds")
    frame.push(module_var.getattr(frame, inst.arg))
