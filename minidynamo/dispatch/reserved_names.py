"""Keeps the user's parameter names out of the generated names' space. Imports capture.signatures,
capture.builtin_scope and cache.

Every name minidynamo generates (dispatcher locals, namespace globals, stack slots of resume functions)
starts with three underscores. The dispatcher has the user's parameters as its locals, so a parameter called
`___hit` or `___miss` would shadow a generated name. Such a function is captured through a copy whose code
names those parameters differently (`hit_p`); the function the user holds is a thin wrapper with the
original signature that forwards to the copy's dispatcher by position (keyword-only parameters by their new
names), so argument binding, defaults and error messages stay the original's.
"""

from __future__ import annotations

import inspect
import re
import types
from typing import Any

from ..capture.signatures import code_signature
from ..capture.builtin_scope import function_with_builtins

RESERVED_PREFIX = "___"
# The stack parameters of a resume function (stitch/resume.py; marked `__minidynamo_resume__`) are generated
# and never used as names by dispatcher or entry code: they need no new name (and no forwarding wrapper).
_RESUME_PARAMETER = re.compile(r"___stack_*\d+|___local_\w*")


def renamed_parameters(fn: types.FunctionType) -> dict[str, str]:
    """{parameter: new name} for the parameters of fn's code that start with the reserved prefix."""
    code = fn.__code__
    taken = set(code.co_varnames) | set(code.co_cellvars) | set(code.co_freevars) | set(code.co_names)
    renames: dict[str, str] = {}
    resume = getattr(fn, "__minidynamo_resume__", None) is not None
    for name in code_signature(fn).parameters:
        if name.startswith(RESERVED_PREFIX) and not (resume and _RESUME_PARAMETER.fullmatch(name)):
            base = name.lstrip("_") + "_p"
            new, i = base, 1
            while new in taken:
                new, i = f"{base}{i}", i + 1
            taken.add(new)
            renames[name] = new
    return renames


def with_parameters_renamed(fn: types.FunctionType, renames: dict[str, str]) -> types.FunctionType:
    """A copy of fn whose code calls its parameters by the new names (cells of those parameters too)."""
    code = fn.__code__
    rename = lambda names: tuple(renames.get(n, n) for n in names)  # noqa: E731
    new_code = code.replace(co_varnames=rename(code.co_varnames), co_cellvars=rename(code.co_cellvars))
    copy = function_with_builtins(new_code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__,
                                  fn.__builtins__)
    copy.__kwdefaults__ = {renames.get(k, k): v for k, v in (fn.__kwdefaults__ or {}).items()} or None
    copy.__qualname__, copy.__module__, copy.__doc__ = fn.__qualname__, fn.__module__, fn.__doc__
    copy.__dict__.update(fn.__dict__)
    return copy


def forwarding_wrapper(fn: types.FunctionType, target: Any, renames: dict[str, str]) -> types.FunctionType:
    """`def fn(<fn's parameters>): return <target>(<them, keyword-only ones under their new names>)`."""
    from .cache import signature_text
    sig = code_signature(fn)
    params, _ = signature_text(sig)
    taken = set(sig.parameters)
    target_name = "_target"
    while target_name in taken:
        target_name += "_"
    fn_name, code_name = target_name + "fn", target_name + "code"
    call, plain = [], []
    for p in sig.parameters.values():
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            call.append(f"*{p.name}")
        elif p.kind is inspect.Parameter.VAR_KEYWORD:
            call.append(f"**{p.name}")
        elif p.kind is inspect.Parameter.KEYWORD_ONLY:
            call.append(f"{renames.get(p.name, p.name)}={p.name}")
        else:
            call.append(p.name)
        plain.append(f"{p.name}={p.name}" if p.kind is inspect.Parameter.KEYWORD_ONLY else call[-1])
    name = fn.__name__ if fn.__name__.isidentifier() else "compiled"
    # The captured copy keeps fn's code of compile() time: once fn.__code__ is replaced, fn runs as Python.
    source = (f"def {name}({params}):\n    if {fn_name}.__code__ is not {code_name}:\n"
              f"        return {fn_name}({', '.join(plain)})\n    return {target_name}({', '.join(call)})\n")
    scope: dict[str, Any] = {target_name: target, fn_name: fn, code_name: fn.__code__}
    exec(compile(source, f"<minidynamo forwarder {fn.__qualname__}>", "exec"), scope)
    wrapper = scope[name]
    wrapper.__defaults__, wrapper.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__
    return wrapper
