"""Per-function cache of captured variants and the generated dispatcher that checks them.

Imports guards only (entries arrive as source lines and namespaces). The dispatcher is Python source with
the function's own signature, so Python binds the arguments; each entry's guard expression is inlined
and checked in order, and its body runs on the first hit. Adding an entry regenerates the source and swaps
the dispatcher's `__code__`, so the function object the user holds stays the same.
"""

from __future__ import annotations

import inspect
import itertools
import linecache
import types
from dataclasses import dataclass, field
from typing import Any, Callable

from .guards import GuardSet

_counter = itertools.count()


@dataclass
class Entry:
    """One captured variant: guards, body lines (a `return` at the end), and the names they use."""

    guards: GuardSet
    body: list[str]
    namespace: dict[str, Any]
    tag: str
    info: Any = None                    # what explain()/stats show: graph, break reason, ...
    hits: list[int] = field(default_factory=lambda: [0])


@dataclass
class Stats:
    captures: int = 0
    hits: int = 0
    misses: int = 0
    recompiles: int = 0
    guard_failures: list[list[str]] = field(default_factory=list)   # per recompile: why each entry failed
    fallbacks: int = 0


def signature_text(sig: inspect.Signature) -> tuple[str, str]:
    """(parameter list without defaults, call expression forwarding every parameter)."""
    params, call = [], []
    seen_star = False
    kinds = inspect.Parameter
    for p in sig.parameters.values():
        if p.kind is kinds.VAR_POSITIONAL:
            params.append(f"*{p.name}"); call.append(f"*{p.name}"); seen_star = True
        elif p.kind is kinds.VAR_KEYWORD:
            params.append(f"**{p.name}"); call.append(f"**{p.name}")
        elif p.kind is kinds.KEYWORD_ONLY:
            if not seen_star:
                params.append("*"); seen_star = True
            params.append(p.name); call.append(f"{p.name}={p.name}")
        else:
            params.append(p.name); call.append(p.name)
    posonly = [p for p in sig.parameters.values() if p.kind is kinds.POSITIONAL_ONLY]
    if posonly:
        params.insert(len(posonly), "/")
    return ", ".join(params), ", ".join(call)


class FunctionCache:
    """Entries of one compiled function plus its dispatcher (a real function object)."""

    def __init__(self, fn: types.FunctionType, on_miss: Callable[..., Any], count_hits: bool = True) -> None:
        self.fn = fn
        self.entries: list[Entry] = []
        self.stats = Stats()
        self.count_hits = count_hits
        self.params, self.forward = signature_text(inspect.signature(fn))
        self.namespace: dict[str, Any] = {"___miss": on_miss, "___eager": fn, "___stats": self.stats}
        self.dispatcher = self._compile(self._source())
        self.dispatcher.__defaults__ = fn.__defaults__
        self.dispatcher.__kwdefaults__ = fn.__kwdefaults__

    def new_tag(self) -> str:
        return f"e{next(_counter)}_"

    def add(self, entry: Entry) -> None:
        self.entries.append(entry)
        self.namespace.update(entry.namespace)
        self.namespace.update(entry.guards.namespace(entry.tag))
        self.namespace[f"___{entry.tag}hits"] = entry.hits
        self.dispatcher.__code__ = self._compile(self._source()).__code__

    def clear(self) -> None:
        self.entries.clear()
        self.dispatcher.__code__ = self._compile(self._source()).__code__

    def source(self) -> str:
        return self._source()

    def _source(self) -> str:
        name = self.fn.__name__ if self.fn.__name__.isidentifier() else "compiled"
        lines = [f"def {name}({self.params}):"]
        for e in self.entries:
            expr = e.guards.expression(e.tag) or "True"
            lines += ["    try:", f"        ___hit = {expr}", "    except Exception:  # a guard that cannot be "
                      "evaluated (missing global, wrong type) is a miss", "        ___hit = False", "    if ___hit:"]
            if self.count_hits:
                lines.append(f"        ___{e.tag}hits[0] += 1")
            lines += [f"        {line}" for line in e.body]
        lines.append(f"    return ___miss({self.forward})")
        return "\n".join(lines) + "\n"

    def _compile(self, source: str) -> types.FunctionType:
        filename = f"<minidynamo dispatcher {self.fn.__qualname__} #{next(_counter)}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        code = compile(source, filename, "exec")
        scratch: dict[str, Any] = {}
        exec(code, self.namespace, scratch)
        fn = next(iter(scratch.values()))
        fn.__minidynamo_source__ = source
        return fn
