"""Per-function cache of captured variants and the generated dispatcher that checks them.

Imports guards, live_defaults, capture.signatures and the leaves stitch.moving and stitch.entry (entries arrive as
statements, stitch/entry.py, and namespaces). The dispatcher is Python source with the function's own
signature, so Python binds the arguments; each entry's guard expression is inlined and checked, newest entry
first, and its body runs on the first hit. Adding an entry renders only that entry's block (the others' are
kept: _block, where the passes over its statements run and it is rendered once), compiles the joined
source and swaps the dispatcher's `__code__`, so the function object the user holds stays the same. Each
older entry sits in the `else:` of the newer one's hit test, so every entry whose graph raised reaches one
shared eager re-run after the chain: the forwarding call is compiled once per rebuild, not once per entry
(the executed instructions of every hit stay as they were; the compile is what a new entry costs, about
half of it the checks). While entries are being added, the dispatcher holds the newest entry only and calls
the older ones' chain functions (each compiled once), and is rebuilt flat once it settles (FunctionCache.add).
"""

from __future__ import annotations

import enum
import functools
import inspect
import itertools
import linecache
import threading
import types
import weakref
from dataclasses import replace
from dataclasses import dataclass, field
from typing import Any, Callable

from ..guards import GuardSet
from ..capture.signatures import code_signature
from ..stitch.entry import Block, Code, Exit, Release, Rerun, Stmt, render, walk
from ..stitch.moving import moved
from . import live_defaults

_counter = itertools.count()


@dataclass
class Entry:
    """One captured variant: guards, body statements (stitch/entry.py; a `return` at the end; a string is
    one simple statement), and the names they use."""

    guards: GuardSet
    statements: list[Stmt]
    namespace: dict[str, Any]
    tag: str
    hits: list[int] = field(default_factory=lambda: [0])

    def __post_init__(self) -> None:
        self.statements = [Code(s) if isinstance(s, str) else s for s in self.statements]

    @property
    def body(self) -> list[str]:
        """The body's source lines, with the markers (entry.Release) where the check's locals are dropped."""
        return render(self.statements)

    @property
    def code(self) -> list[str]:
        """The body as people read it: without the markers. In the dispatcher the statements before the
        first marker (the graph call) read the paths the check bound from its locals, and each marker drops
        those locals; a body without one gets them dropped before it starts."""
        return render(_reusing_reads(self, None)[0])


class Mode(enum.Enum):
    """What the dispatcher does when no entry's guards pass."""

    CAPTURE = "capture"          # call ___miss: capture a new entry (under the function's lock)
    PAST_LIMIT = "past_limit"    # the cache is full: run the original function; every WINDOW-th miss
                                 # calls ___miss so it can decide whether to stop checking guards at all
    EAGER = "eager"              # misses only, for a whole window, or a trial found the guards cost more than
                                 # the hits save: no guards, just the original function
    TIMING = "timing"            # past the limit, a trial (mode_trial.py): calls alternate by blocks between
                                 # the PAST_LIMIT code (as ___guarded) and the original function, each timed


WINDOW = 64   # misses past the limit between two decisions (counted by the dispatcher in stats.misses)
NESTED_MAX = 32   # entries nested one `else:` deeper each (Python's tokenizer allows 100 indentation levels)
SETTLE = 16   # calls that pass a chained dispatcher's newest entry before it is rebuilt flat (FunctionCache.add)


@dataclass
class Stats:
    """Counters of one compiled piece (its own cache), or, from api.stats() of a compiled function, summed
    over the function and all its pieces (resume functions, loop bodies, helpers), each in `pieces`."""

    captures: int = 0
    hits: int = 0
    misses: int = 0
    recompiles: int = 0                 # captures because a guard failed; in a sum, once per cause
    guard_failures: list[list[str]] = field(default_factory=list)   # per recompile: why each entry failed
    fallbacks: int = 0
    mode: Mode = Mode.CAPTURE           # EAGER: past the cache limit with no hits; calls run fn directly
    dynamic_dims: dict[str, str] = field(default_factory=dict)   # `x.shape[0]` -> why it became symbolic
    new_paths: int = 0                  # captures for a branch outcome at a break not seen before: not recompiles
    name: str = ""                      # what is counted: the function, or "f (resumed at line 23)"
    calls: int = 0                      # calls of this piece (hits + misses)
    pieces: list["Stats"] = field(default_factory=list)   # in a sum: the function first, then each piece

    def __str__(self) -> str:
        """What print(stats(f)) shows: the counts, why each recompile happened, then one line per piece."""
        def n(k: int, word: str) -> str:
            return f"{k} {word}{'' if k == 1 else 's'}"

        def counts(s: "Stats") -> str:
            return ", ".join([n(s.calls, "call"), n(s.captures, "capture"), n(s.hits, "cache hit"),
                              n(s.recompiles, "recompile")] + [n(s.new_paths, "new path")] * bool(s.new_paths)
                             + [n(s.fallbacks, "fallback")] * bool(s.fallbacks))
        lines = [f"{self.name or 'stats'}: {counts(self)}" + (f"; {self.mode.value}" if self.mode is not
                                                                Mode.CAPTURE else "")]
        lines += [f"  recompile {i}: {'; '.join(why)}" for i, why in enumerate(self.guard_failures, 1)]
        lines += [f"  dynamic: {dim} ({why})" for dim, why in self.dynamic_dims.items()]
        if len(self.pieces) > 1:
            lines += ["  pieces:"] + [f"    {p.name}: {counts(p)}" for p in self.pieces]
        return "\n".join(lines)


def signature_text(sig: inspect.Signature) -> tuple[str, str]:
    """(parameter list without defaults, call expression forwarding every parameter). The call moves each
    named parameter (`moved`): the dispatcher forwards them only in its last call, and the frame it calls
    then sees the references an eager call gives it."""
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
            params.append(p.name); call.append(f"{p.name}={moved(p.name)}")
        else:
            params.append(p.name); call.append(moved(p.name))
    posonly = [p for p in sig.parameters.values() if p.kind is kinds.POSITIONAL_ONLY]
    if posonly:
        params.insert(len(posonly), "/")
    return ", ".join(params), ", ".join(call)


class FunctionCache:
    """Entries of one compiled function plus its dispatcher (a real function object).

    Threads: the dispatcher runs without a lock while `add` swaps its code, so `add` puts every name a new
    entry uses into the namespace before installing code that reads it, and changes nothing if building
    the code fails. `generation` counts code swaps; the dispatcher passes its own to `on_miss`, so a miss
    can tell that the cache changed since that call checked it (another thread captured meanwhile).
    """

    def __init__(self, fn: types.FunctionType, on_miss: Callable[..., Any], count_hits: bool = True,
                 verifier: Any = None, lock: Any = None) -> None:
        self.fn = fn
        self._lock = lock if lock is not None else threading.RLock()   # the one add() is called under
        self._chained = False             # the dispatcher holds the newest entry only (add)
        self.verifier = verifier          # verify.Verifier (verify_every > 0): the dispatcher starts with its lines
        self.entries: list[Entry] = []
        self.stats = Stats()
        self.count_hits = count_hits
        self.generation = 0
        self._tags = itertools.count()
        self._blocks: dict[tuple, tuple] = {}   # (entry tag, nested) -> its dispatcher lines (_block)
        self.params, self.forward = signature_text(code_signature(fn))
        self.namespace: dict[str, Any] = {"___miss": on_miss, "___eager": fn, "___stats": self.stats,
                                          "___flatten": self.flatten, "___settle": [0]}
        positional, keyword = live_defaults.markers(fn)
        names = {p: f"___default{i}" for i, p in enumerate([*positional, *keyword])}
        self.namespace.update({names[p]: m for p, m in [*positional.items(), *keyword.items()]})
        self._prologue, used = live_defaults.prologue(fn, names)
        if self._prologue:
            self.namespace.update(used, ___fill_defaults=functools.partial(live_defaults.fill, fn))
        if verifier is not None:
            self.namespace.update(verifier.namespace())
        self._files: list[str] = []       # the linecache name of the current code (one at a time)
        self._chain_files: list[str] = []   # those of the entries' chain functions, kept while they are
        weakref.finalize(self, _forget_lines, self._files)
        weakref.finalize(self, _forget_lines, self._chain_files)
        self.dispatcher = self._compile(self._source(self.entries, 0))
        self._base_names = frozenset(self.namespace)
        self.dispatcher.__defaults__ = tuple(positional.values()) or None     # markers: live_defaults.py
        self.dispatcher.__kwdefaults__ = keyword or None
        if verifier is not None:
            verifier.dispatcher = self.dispatcher

    def new_tag(self) -> str:
        # Unique within this cache only (never reused, even after clear(): a call still inside old code
        # must not find a new entry's values under its names). Counting per cache rather than per process
        # keeps the set of generated identifiers small: CPython interns them, and interned strings stay.
        return f"e{next(self._tags)}_"

    def add(self, entry: Entry) -> None:
        """Append an entry. Everything that can fail (guard rendering, compiling the source) happens before
        the cache changes; then names first, code last.

        While capturing, the new dispatcher holds only the new entry's check and body, and on a miss
        calls the previous newest entry's chain function (that entry's block alone, compiled once, calling
        the next older one's in turn): an add compiles two blocks instead of every entry's, which made a
        cache filling up to its limit compile 36 blocks for 8 entries. A hit on the newest entry runs
        what a flat dispatcher runs; the chain costs a call per entry passed. Once SETTLE calls have passed
        the newest entry without a new capture (hits on older entries), the dispatcher is rebuilt flat
        (flatten); a mode switch (past the limit) builds it flat too."""
        with self._lock:        # (the caller's lock, api.py: flatten() takes it too)
            names = {**entry.namespace, **entry.guards.namespace(entry.tag), f"___{entry.tag}hits": entry.hits}
            entries = self.entries + [entry]
            chained = self._chains(entries)
            if chained:
                names.update(self._chain_functions(entries[:-1]))
            new = self._compile(self._source(entries, self.generation + 1, chained=chained))
            self.namespace.update(names)
            self.namespace["___settle"] = [0]
            self.entries.append(entry)
            self.generation += 1
            self._chained = chained
            self.dispatcher.__code__ = new.__code__
            self.dispatcher.__minidynamo_source__ = new.__minidynamo_source__

    def flatten(self) -> None:
        """Rebuild a chained dispatcher with every entry inline (called by it once it has settled). While
        another thread holds the lock (capturing), it does nothing: a later call tries again."""
        if not self._lock.acquire(blocking=False):
            return
        try:
            if self._chained:
                new = self._compile(self._source(self.entries, self.generation + 1))
                self.generation += 1
                self._chained = False
                self.dispatcher.__code__ = new.__code__
                self.dispatcher.__minidynamo_source__ = new.__minidynamo_source__
        finally:
            self._lock.release()

    def _chains(self, entries: list[Entry]) -> bool:
        return 2 <= len(entries) <= NESTED_MAX and self.stats.mode is Mode.CAPTURE

    def _chain_functions(self, entries: list[Entry]) -> dict[str, Any]:
        """`___chain_<tag>` of each of `entries` (oldest first) that has none yet: its block alone, in a
        function taking the dispatcher's generation first, whose miss calls the next older one's."""
        made: dict[str, Any] = {}
        for i, e in enumerate(entries):
            name = f"___chain_{e.tag}"
            if name in self.namespace:
                continue
            tail = f"___chain_{entries[i - 1].tag}" if i else "___miss"
            lines = [f"def {self._name()}({_leading('___gen', self.params)}):",
                     *self._alone(e, [f"return {tail}({_leading('___gen', self.forward)})"])]
            # (compiled while the names it reads may still be missing: it runs only once add() is done)
            made[name] = self._compile("\n".join(lines) + "\n", self._chain_files)
        return made

    def _name(self) -> str:
        return self.fn.__name__ if self.fn.__name__.isidentifier() else "compiled"

    def set_mode(self, mode: Mode) -> None:
        """Switch what a miss does (regenerates the dispatcher, flat; entries and names stay)."""
        with self._lock:
            new = self._compile(self._source(self.entries, self.generation + 1, mode))
            self.stats.mode = mode
            self.generation += 1
            self._chained = False
            self.dispatcher.__code__ = new.__code__
            self.dispatcher.__minidynamo_source__ = new.__minidynamo_source__

    def start_trial(self, trial: Any) -> None:
        """Past the limit: time the PAST_LIMIT code against the original function (Mode.TIMING)."""
        guarded = self._compile(self._source(self.entries, self.generation + 1, Mode.PAST_LIMIT))
        self.namespace.update(___trial=trial, ___guarded=guarded)
        self.set_mode(Mode.TIMING)

    def clear(self) -> None:
        """Drop every entry and the names they used (graphs, constants, resume functions). A call that is
        inside an old entry's body at that moment may fail: reset while other threads call is unsupported."""
        with self._lock:
            new = self._compile(self._source([], self.generation + 1, Mode.CAPTURE))
            self.stats.mode = Mode.CAPTURE
            self.entries.clear()
            self._blocks.clear()
            self._chained = False
            _forget_lines(self._chain_files)
            self.generation += 1
            self.dispatcher.__code__ = new.__code__
            self.dispatcher.__minidynamo_source__ = new.__minidynamo_source__
            for name in [n for n in self.namespace if n not in self._base_names]:
                if name.startswith("___chain_"):      # a call in old code reaches the miss path, which retries (stale
                    self.namespace[name] = self.namespace["___miss"]    # generation): same calling convention
                else:
                    self.namespace.pop(name, None)
            self._base_names = frozenset(self.namespace)

    def source(self) -> str:
        return self._source(self.entries, self.generation)

    def _source(self, entries: list[Entry], generation: int, mode: Mode | None = None,
                chained: bool = False) -> str:
        """The dispatcher: every entry inline (flat), or with `chained` the newest one, then on a miss the
        previous one's chain function (add)."""
        mode = self.stats.mode if mode is None else mode
        lines = [f"def {self._name()}({self.params}):", *self._prologue]
        if mode is Mode.EAGER:
            return "\n".join([*lines, f"    return ___eager({self.forward})"]) + "\n"
        if mode is Mode.TIMING:
            return "\n".join([*lines, "    ___t = ___trial.begin()", "    try:", "        if ___t[1]:",
                              f"            return ___eager({self.forward})", f"        return ___guarded({self.forward})",
                              "    finally:", "        ___trial.end(___t)"]) + "\n"
        if self.verifier is not None:      # shadow verification: every Nth call through verify.Verifier
            lines += [*self.verifier.prologue(), f"        return ___verify({self.forward})"]
        # Newest first, as Dynamo does: a later capture is usually the more general one (automatic dynamic,
        # an unspecialized counter), and the entry that keeps failing should not be checked on every call.
        # Each older entry sits in the `else:` of the newer one's `if ___hit:`, so an entry whose graph raised
        # can leave its block and reach the one eager re-run after the chain (_block): the forwarding call,
        # as long as a check, is compiled once per rebuild rather than once per entry. A check that fails
        # jumps to the next check as before (one conditional jump), nothing is added on any hit's way.
        nested = len(entries) <= NESTED_MAX
        pad, shared = "", False
        forward = _leading(str(generation), self.forward)
        if chained:
            lines += self._alone(entries[-1], ["___settle[0] += 1", f"if ___settle[0] > {SETTLE}:", "    ___flatten()",
                                               f"return ___chain_{entries[-2].tag}({forward})"])
            return "\n".join(lines) + "\n"
        for e in reversed(entries):
            block, miss, reruns = self._block(e, nested)
            lines += [pad + line for line in block]
            shared |= reruns
            if nested:
                lines.append(f"{pad}    else:")
                pad += "    "
            if miss is not None:
                lines.append(f"{pad}    {miss}")
        if mode is Mode.PAST_LIMIT:    # no lock, no miss path: just the original function, counted
            lines += [f"{pad}    ___stats.misses += 1", f"{pad}    if ___stats.misses % {WINDOW}:",
                      f"{pad}        return ___eager({self.forward})"]
        lines.append(f"{pad}    return ___miss({forward})")
        if shared:      # reached only from an entry whose graph raised (its `if ___o is None:`)
            lines.append(f"    return ___eager({self.forward})")
        return "\n".join(lines) + "\n"

    def _alone(self, e: Entry, tail: list[str]) -> list[str]:
        """e's block, then in its `else:` the drop of the check's reads and `tail`, then the eager re-run its
        raising graph leaves the block for: an entry as the only one of a function (chained layout)."""
        block, miss, reruns = self._block(e, True)
        lines = [*block, "    else:", *([f"        {miss}"] if miss else []), *(f"        {t}" for t in tail)]
        return lines + [f"    return ___eager({self.forward})"] * reruns

    def _block(self, e: Entry, nested: bool) -> tuple[list[str], str | None, bool]:
        """One entry's dispatcher lines (its check, then its body on a hit), the line that drops the check's
        reads on a miss (None: nothing held), and whether the body leaves its block for the shared eager
        re-run (nested only). Rendered once per entry and layout, and kept: an entry never changes once
        added, so a rebuild only joins the blocks instead of rendering every entry's guards again."""
        key = (e.tag, nested)
        block = self._blocks.get(key)
        if block is not None:
            return block
        expr = e.guards.expression(e.tag) or "True"
        # In a test, each `and` is one conditional jump (as a value it also copies and pops), and the
        # truth of the last guard is taken inside the try too.
        lines = ["    try:", f"        ___hit = True if ({expr}) else False", "    except Exception:  # a guard "
                 "that cannot be evaluated (missing global, wrong type) is a miss", "        ___hit = False"]
        held = e.guards.bound_locals(e.tag)
        release = f"{' = '.join(held)} = None" if held else None
        body, marked = _reusing_reads(e, release)
        if held and not marked:   # the check's reads are dropped: the call must not find extra references
            lines.append(f"    {release}")
        shared = _sharing_the_rerun(body, f"return ___eager({self.forward})") if nested else None
        lines.append("    if ___hit:")
        if self.count_hits:
            lines.append(f"        ___{e.tag}hits[0] += 1")
        if self.verifier is not None:
            lines.append("        ___vn[0] += 1")       # warm calls since the last verified one
        lines += render(body if shared is None else shared, "        ")
        # (the body returns, or with `shared` reaches the re-run: the miss path alone drops the reads here)
        miss = release if held and marked else None
        block = self._blocks[key] = (lines, miss, shared is not None)
        return block

    def _compile(self, source: str, files: list[str] | None = None) -> types.FunctionType:
        filename = f"<minidynamo dispatcher {self.fn.__qualname__} #{next(_counter)}>"
        code = compile(source, filename, "exec")
        scratch: dict[str, Any] = {}
        exec(code, self.namespace, scratch)
        fn = next(iter(scratch.values()))
        fn.__minidynamo_source__ = source
        # Only the newest dispatcher source stays in linecache: a recompile replaces it, a dropped cache
        # removes it (a traceback through an older, replaced dispatcher then shows no source line); chain
        # functions' sources stay while they do (`files`).
        if files is None:
            _forget_lines(self._files)
            files = self._files
        files.append(filename)
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        return fn


def _leading(first: str, rest: str) -> str:
    """A parameter list or call arguments with `first` put before `rest` (which may be empty)."""
    return f"{first}, {rest}" if rest else first


def _reusing_reads(e: Entry, release: str | None) -> tuple[list[Stmt], bool]:
    """(e's statements with each entry.Release replaced by `release` (None: nothing is held) and the ones
    before the first reading the check's bound locals, whether it has a Release: e's own statements if not)."""
    if not any(isinstance(s, Release) for s in walk(e.statements)):
        return e.statements, False
    if release is None:         # nothing to drop: the body as written, a Release alone in a block a `pass`
        return _without_releases(e.statements), True
    return _releasing(e.statements, Code(release), lambda text: e.guards.reuse_reads(text, e.tag), [False]), True


def _without_releases(stmts: Any) -> list[Stmt]:
    out: list[Stmt] = []
    for s in stmts:
        if isinstance(s, Block):
            out.append(Block(s.head, tuple(_without_releases(s.body)) or (Code("pass"),)))
        elif not isinstance(s, Release):
            out.append(s)
    return out


def _releasing(stmts: Any, release: Code, reuse: Callable[[str], str], seen: list[bool]) -> list[Stmt]:
    """`stmts` with each Release replaced by `release`, and each simple statement before the first
    (`seen[0]` still False) rewritten by `reuse`."""
    out: list[Stmt] = []
    for s in stmts:
        if isinstance(s, Block):
            out.append(Block(s.head, tuple(_releasing(s.body, release, reuse, seen))))
        elif isinstance(s, Release):
            seen[0] = True
            out.append(release)
        else:
            out.append(s if seen[0] else replace(s, text=reuse(s.text)))
    return out


def _sharing_the_rerun(body: list[Stmt], rerun: str) -> list[Stmt] | None:
    """`body` whose eager re-run after a raising graph (the entry.Rerun `rerun` ending the top-level
    `if ___o is None:` block, stitch/guarded_call.py) leaves the block, the rest of the body its `else:`;
    None where the body has no such re-run or its rest does not end in a top-level return (then nothing
    else may leave the block). The statement left there reads `___eager` (on that cold way only) so the
    code's names keep their order: a hit's loads keep their indices, and no name moves past 255 (an
    EXTENDED_ARG more) where it did not before."""
    at = next((i for i, s in enumerate(body) if isinstance(s, Block) and s.body and isinstance(s.body[-1], Rerun)
               and s.body[-1].text == rerun), None)
    if at is None or body[at].head != "if ___o is None:" or at + 1 == len(body) or not isinstance(body[-1], Exit):
        return None
    block = body[at]
    return [*body[:at], Block(block.head, (*block.body[:-1], Code("___eager"))), Block("else:", tuple(body[at + 1:]))]


def _forget_lines(files: list[str]) -> None:
    for name in files:
        linecache.cache.pop(name, None)
    files.clear()
