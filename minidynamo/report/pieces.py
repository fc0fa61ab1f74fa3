"""One captured piece of a report: the function, a resume function, a loop body or a helper that broke,
named by its source line, with its guards in words and a gloss for every generated name its code uses.

Reads CaptureRecords generically (attributes by name, `__minidynamo_resume__` on resume functions, the
`__resume_<fn>_at_L<line>_i<index>` names stitch/resume.py gives them), so capture can change underneath.
"""

from __future__ import annotations

import builtins
import enum
import linecache
import re
import types
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..guards import Guard, GuardKind, GuardSource, readable_expr, short_repr, value_words


class Recapture(enum.Enum):
    """Why a piece was captured: the first time, because a guard of every cached entry failed, or because
    a branch at a break went another way than before (only its outcome differs: a new path, not a recompile)."""

    FIRST = "first capture"
    RECOMPILE = "recompile"
    NEW_PATH = "new path"


class PieceKind(enum.Enum):
    FUNCTION = "function"      # the compiled function itself
    RESUME = "resume"          # the rest of a function after a graph break
    LOOP = "loop body"         # a loop body (or the rest of one) called by a loop driver once per iteration
    HELPER = "helper"          # a function called from compiled code, compiled on its own because it broke


_RESUME_NAME = re.compile(r"_at_L(\d+)_i(\d+)$")
_STACK = re.compile(r"\b___stack(\d+)\b")


def category_name(category: Any) -> str:
    """A break category as text, whether capture uses strings or an enum."""
    return str(getattr(category, "value", category))


@dataclass
class Piece:
    record: Any
    kind: PieceKind
    title: str
    anchor: str
    filename: str
    lineno: int | None           # the line the piece starts at (its first line, or its resume line)
    stack_values: dict[str, str]  # ___stack0 -> what that value is, in words

    @property
    def fn(self) -> Any:
        return self.record.fn

    @property
    def hits(self) -> int:
        hits = getattr(self.record.entry, "hits", [0])
        return int(hits[0]) if hits else 0

    @property
    def failed_guards(self) -> list[str]:
        return list(getattr(self.record, "failed_guards", None) or [])

    @property
    def recapture(self) -> Recapture:
        return getattr(self.record, "recapture", Recapture.FIRST)

    def why_captured(self, pieces: list["Piece"]) -> str:
        """Why this capture happened, in words ("" for a first capture)."""
        r, why = self.record, self.recapture
        if why is Recapture.NEW_PATH:
            return f"a new path: {_went(self)}" if _went(self) else "a new path: a branch went the other way"
        if why is not Recapture.RECOMPILE:
            return ""
        text = f"captured again because {'; '.join(dict.fromkeys(self.failed_guards))}"
        cause = next((p for p in pieces if p.record is getattr(r, "cause", None)), None)
        return text + (f" (in the same call as the recompile of “{cause.title}”)" if cause is not None else "")

    def generated_function(self) -> str:
        """A gloss of a resume function's generated name (its graph is named after it), or ""."""
        if self.kind not in (PieceKind.RESUME, PieceKind.LOOP):
            return ""
        code = self.fn.__code__
        params = code.co_varnames[:code.co_argcount]
        live = [p for p in params if not _STACK.fullmatch(p)]
        n = len(params) - len(live)
        root = getattr(getattr(self.record, "root", None), "__name__", "the function")
        with_ = [f"the live locals ({', '.join(live)})"] if live else []
        with_ += [f"{n} value{'s' if n > 1 else ''} from Python's stack at the break"] if n else []
        return f"{self.fn.__name__} is generated: the code of {root} from line {self.lineno} on, called with " \
               + (" and ".join(with_) or "no arguments")

    def lowering(self) -> list[str]:
        """What a lowering backend ran on its engine and why not the rest, per graph of this piece."""
        plans = [getattr(v, "__minidynamo_lowering__", None) for v in self.record.entry.namespace.values()]
        return [f"graph {p.graph.name}: {p.summary()}" for p in plans if p is not None]

    def guard_lines(self) -> list[tuple[str, str]]:
        """(words, exact check) per group of guards on one value."""
        return describe_guards(list(self.record.entry.guards), self)

    def code_glossary(self, pieces_by_fn: dict) -> list[tuple[str, str]]:
        """(generated name, what it is) for every `___name` in this piece's entry code."""
        seen: dict[str, str] = {}
        for line in self.record.entry.code:
            for name in re.findall(r"\b___\w+", line):
                if name not in seen:
                    seen[name] = gloss_name(name, self.record.entry.namespace.get(name), self, pieces_by_fn)
        if any(_MOVED.search(line) for line in self.record.entry.code):
            seen["(x, x := None)[0]"] = _MOVED_GLOSS
        return list(seen.items())


def source_line(filename: str, lineno: int | None) -> str:
    return linecache.getline(filename, lineno).strip() if filename and lineno else ""


def make_pieces(root: Any, records: list) -> list[Piece]:
    """A Piece per record, in capture order; a function captured again is numbered (capture 2, 3...)."""
    pieces, counts, points = [], {}, {}
    for i, r in enumerate(records):
        fn = r.fn
        code = fn.__code__
        resume = _RESUME_NAME.search(fn.__name__)      # (its code is named as the user's function)
        key = id(fn) if resume is None else (code.co_qualname, _bool_outcomes(r))
        counts[key] = counts.get(key, 0) + 1
        piece = _piece(root, r, f"piece-{i}")
        if resume is not None:       # several resume points on one line (x[i] = x[i] ** 2): number them
            names = points.setdefault(piece.lineno, [])
            if fn.__name__ not in names:
                names.append(fn.__name__)
            k = names.index(fn.__name__)
            if k:
                piece.title = piece.title.replace(f"line {piece.lineno},", f"line {piece.lineno} (point {k + 1} "
                                                                             f"on that line),", 1)
        if counts[key] > 1:
            piece.title += f" (capture {counts[key]})"
        pieces.append(piece)
    return pieces


_RESUME_QUALNAME = re.compile(r"<__resume_(?:__resume_)*(\w+?)_at_L(\d+)_i\d+>")


def readable_function(name: str) -> str:
    """`f.<__resume_f_at_L19_i67>` -> `f (resumed at line 19)`: break reasons name the generated resume
    function they happened in."""
    m = _RESUME_QUALNAME.search(name)
    return name if m is None else f"{name[:m.start()].rstrip('.')} (resumed at line {m.group(2)})"


def _piece(root: Any, r: Any, anchor: str) -> Piece:
    fn, code = r.fn, r.fn.__code__
    info = getattr(fn, "__minidynamo_resume__", None)
    m = _RESUME_NAME.search(fn.__name__)
    if info is None or m is None:
        mine = fn is root or code is getattr(root, "__code__", None) or getattr(r, "root", None) is fn
        kind = PieceKind.FUNCTION if mine else PieceKind.HELPER
        name = code.co_qualname
        title = name if kind is PieceKind.FUNCTION else f"helper {name} (line {code.co_firstlineno}), " \
                                                       f"compiled on its own because it broke"
        return Piece(r, kind, title, anchor, code.co_filename, code.co_firstlineno, {})
    line = int(m.group(1))
    text = source_line(code.co_filename, line)
    outcome = _bool_outcomes(r)
    what = f"the outcome (True or False) of `{text}` (line {line})" if outcome else f"the value of `{text}` " \
                                                                                     f"(line {line})"
    labels = {g.expr: g.description for g in r.entry.guards      # (capture's words: sources.stack_labels)
              if g.source.is_stack_value and g.description and "___" not in g.description}
    stack = {name: labels.get(name, what) for name in code.co_varnames[:code.co_argcount] if _STACK.fullmatch(name)}
    after = f"after `{text}`" + (f" was {outcome[0]}" if len(outcome) == 1 else "")
    drive = _loop_header(info)
    if drive is None:
        return Piece(r, PieceKind.RESUME, f"resume at line {line}, {after}", anchor, code.co_filename, line, stack)
    if info.entry - drive in (0, 1):
        head = _loop_statement(code.co_filename, line)
        title = f"loop body from line {line}, one call per iteration from the loop driver" if head is None else \
            f"loop body of `{head[1]}` (line {head[0]}), one call per iteration from the loop driver"
    else:
        title = f"rest of the loop body: resume at line {line}, {after}"
    return Piece(r, PieceKind.LOOP, title, anchor, code.co_filename, line, stack)


def _loop_header(info: Any) -> int | None:
    """The loop header a resume function hands back at (its own instruction numbering), or None."""
    if getattr(info, "drive_at", None) is not None:
        return info.drive_at
    drives = getattr(info, "drives", ())
    return drives[0] + getattr(info, "shift", 0) if drives else None


def _loop_statement(filename: str, line: int) -> tuple[int, str] | None:
    """The `for`/`while` line that encloses `line` (or is it): the nearest one above, indented less."""
    text = linecache.getline(filename, line)
    indent = len(text) - len(text.lstrip())
    for k in range(line, max(0, line - 200), -1):
        t = linecache.getline(filename, k)
        if t.strip() and re.match(r"\s*(async\s+)?(for|while)\b", t) and \
                (k == line or len(t) - len(t.lstrip()) < indent):
            return k, t.strip()
    return None


def is_branch_outcome(g: Guard) -> bool:
    """Whether a guard pins which way a branch went: a resume function's `___stack<i>` is True / False (the
    outcome passed at a break), or a condition on unspecialized numbers (`(loss > tol)` is True, described
    "condition ..." by capture.variables.scalar)."""
    return type(g.expected) is bool and (g.source.is_stack_value or g.description.startswith("condition "))


def _went(piece: Piece) -> str:
    """"the branch at line 32 (`while loss > tol:`) went False" for a piece specialized on an outcome."""
    outcome = _bool_outcomes(piece.record)
    if len(outcome) == 1:
        return _outcome_words(GuardSource("___stack0"), outcome[0], piece, "") or ""
    conditions = [g for g in piece.record.entry.guards if is_branch_outcome(g) and not g.source.is_stack_value]
    return "; ".join(f"the condition `{g.source.readable.strip('()')}` went {g.expected}" for g in conditions)


def _bool_outcomes(r: Any) -> tuple:
    """The True/False a resume function was specialized on (a branch's outcome passed on the stack)."""
    return tuple(g.expected for g in r.entry.guards if g.source.is_stack_value and type(g.expected) is bool)


# ---- guards in words --------------------------------------------------------------------------------

def describe_guards(guards: list[Guard], piece: Piece | None = None) -> list[tuple[str, str]]:
    """Group guards by the value they read and say what they require, e.g. "`x` is an ndarray of shape
    (4, 8) and dtype float64"; the exact checks go along (joined by `and`)."""
    groups: dict[str, list[Guard]] = {}
    relations: list[tuple[Guard, tuple[str, str, bool]]] = []
    for g in guards:
        if g.relation is not None:        # `a` and `b` (not) one object: grouped per set of values below
            relations.append((g, g.relation))
            continue
        b = g.source.builtin
        groups.setdefault(f"builtin {b}" if b else g.expr, []).append(g)
    out = []
    for gs in groups.values():
        words = _group_words({g.kind: g for g in gs}, gs[0], piece)
        out.append((words, " and ".join(str(g) for g in gs)))
    names = {g.expr: g.source.name for g in reversed(guards)}    # each value's human name (its first guard's)
    arrays = {g.expr for g in guards if g.kind is GuardKind.TYPE and g.expected is np.ndarray}

    def said(e: str) -> str:         # `x`, or a stack value's label (words already)
        if piece is not None and e in piece.stack_values:
            return piece.stack_values[e]
        return f"`{names.get(e) or readable_expr(e)}`"
    return out + relation_lines(relations, said, arrays)


_COUNT = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def relation_lines(relations: list, name: Any, arrays: set[str]) -> list[tuple[str, str]]:
    """Identity guards in words, one line per set of values that must stay distinct ("`w`, `g`, `m` are three
    distinct arrays"), not one per pair; a set whose pairs are not all guarded is said per value ("`a` is
    none of `b`, `c`"). `name(expr)` is a value as said (`x` in backticks), `arrays` the exprs of ndarrays."""
    out = [(f"{name(a)} and {name(b)} are one object", str(g)) for g, (a, b, same) in relations if same]
    pairs: dict[tuple[str, str], Guard] = {}
    for g, (a, b, same) in relations:
        if not same and (b, a) not in pairs:
            pairs.setdefault((a, b), g)
    order = list(dict.fromkeys(e for pair in pairs for e in pair))
    group = {e: {e} for e in order}
    for a, b in pairs:                      # connected sets of values (union by merging member sets)
        if group[a] is not group[b]:
            merged = group[a] | group[b]
            for e in merged:
                group[e] = merged
    for members in {id(m): m for m in group.values()}.values():
        ms = [e for e in order if e in members]
        guards = [g for (a, b), g in pairs.items() if a in members]
        exact = " and ".join(str(g) for g in guards)
        if len(guards) == len(ms) * (len(ms) - 1) // 2:       # every pair guarded: one line
            noun = "arrays" if all(e in arrays for e in ms) else "objects"
            count = _COUNT[len(ms)] if len(ms) < len(_COUNT) else str(len(ms))
            out.append((f"{', '.join(name(e) for e in ms)} are {count} distinct {noun}", exact))
            continue
        for e in ms:
            others = [b for (a, b) in pairs if a == e]
            if others:
                listed = ", ".join(name(o) for o in others)
                out.append((f"{name(e)} is " + (f"not {listed}" if len(others) == 1 else f"none of {listed}"),
                            " and ".join(str(pairs[(e, o)]) for o in others)))
    return out


def _group_words(group: dict[GuardKind, Guard], first: Guard, piece: Piece | None) -> str:
    """One value's guards (by kind) in words: a stack value's and a builtin's here, any other value's in the
    words of the kind that leads (guards.value_words)."""
    source = first.source
    name, slot = source.name, source.stack_slot
    if slot and piece is not None:
        label = piece.stack_values.get(slot, "a value on Python's stack at the break")
        words = _stack_words(first, group, piece, label)
        if words is not None:
            return words
        if not source.is_stack_value:       # a check on part of a stack value: said over `<value>`
            checks = "; ".join(g.show(source.over("<value>")) for g in group.values())
            return f"`{checks}`, where <value> is {label}"
        name = label
    if source.builtin and GuardKind.ID in group:
        n, v = source.builtin, group[GuardKind.ID].expected
        return f"`{n}` is the builtin (no global shadows it)" if v is getattr(builtins, n, None) \
            else f"`{n}` is {short_repr(v)} (no global shadows it)"
    if name.startswith("global "):
        name = f"global `{name[7:]}`"
    elif not (slot and source.is_stack_value):        # (a stack value's label is words already)
        name = f"`{name}`"
    words = value_words(name, group)
    if words is not None:
        return words
    if slot:       # (a stack value's other checks, said over `<value>`)
        return f"{name}: `" + "; ".join(g.show("<value>") for g in group.values()) + "`"
    return "; ".join(str(g) for g in group.values())


def _stack_words(first: Guard, group: dict[GuardKind, Guard], piece: Piece, label: str) -> str | None:
    """A branch outcome passed on a resume function's stack, or a condition on a stack value, in words;
    None for the other guards of a stack value (said like any value's, under its label)."""
    outcome = group.get(GuardKind.ID) or group.get(GuardKind.EQUALS)
    return None if outcome is None else _outcome_words(first.source, outcome.expected, piece, label)


def _outcome_words(source: GuardSource, v: Any, piece: Piece, label: str) -> str | None:
    line, text = piece.lineno, source_line(piece.filename, piece.lineno)
    if source.is_stack_value and type(v) is bool:
        if re.match(r"(if|elif|while|assert)\b", text) or " if " in text:
            return f"the branch at line {line} (`{text}`) went {v}"
        return f"`{text}` (line {line}) gave {v}"
    if type(v) is bool:
        return f"the condition `{source.over('<value>')}` was {v}, where <value> is {label}"
    return None


# ---- generated names in entry code ------------------------------------------------------------------

_FIXED = {
    "___o": "the graph's outputs (a tuple)",
    "___r": "the result of the instruction at the break, run in plain Python",
    "___eager": "this code run as plain Python instead, if the graph raises (so the exception, its "
                "traceback and side effects are exactly eager's)",
    "___snap": "copies of the parts of input arrays the graph writes into, restored if the graph raises",
    "___take": "copies the part of an input array the graph writes (None where its index is out of range: the "
               "graph raises there before writing)",
    "___put": "writes a saved part back before the eager re-run, so each write happens once",
    "___LoopState": "the live locals handed back to the loop driver at the loop header",
    "___m": "the resume function's arguments, popped onto its call so the entry keeps no reference",
    "___k": "arrays of locals the rest of the function never reads, kept alive as long as eager keeps them",
    "___exc": "the exception the instruction at the break raised (None if it did not), re-raised where that "
              "instruction stands in your code, so your own `except`/`finally` handle it and its traceback "
              "ends in your code, as eager's",
    "___e": "the exception caught from the instruction at the break or from the graph, raised again from "
            "where your code stands",
    "___below": "the exception with the traceback below the entry, without minidynamo's frames",
    "___at_user": "raises the graph's exception again from where your code stands (the op's file, line and "
                  "function, inlined calls nested), so its traceback ends as eager's",
    "___errstate_get": "reads NumPy's current error state (np.errstate, np.seterr), to call the graph "
                       "directly while it makes no floating-point error raise",
    "___quiet_errstate": "the last error state seen that makes no floating-point error raise",
    "___hold": "calls the graph with its warnings held, issued again from your code's lines once it returns "
               "(dropped if it raises: the eager re-run shows them), so each warning shows once, as eager",
    "___while_raising": "calls the graph with its warnings held while the error state makes an error raise, "
                        "so a graph that raises and re-runs eagerly shows each warning once, as eager",
    "___bind": "types.MethodType: binds a method to its object, as the attribute lookup `obj.method` does",
    "___t": "which way the rest of the function runs this call (driven or plain Python), and when it started, "
            "if this call is timed",
}
_MOVED = re.compile(r"\((\w+), \1 := None\)\[0\]")
_MOVED_GLOSS = "passes the value of `x` on and unbinds `x` here in one step, so the function called holds " \
               "the only reference this code had, as in an eager call (`ndarray.resize` counts references)"


def gloss_name(name: str, value: Any, piece: Piece, pieces_by_fn: dict) -> str:
    """What a generated name in entry code stands for."""
    if name in _FIXED:
        return _FIXED[name]
    if _STACK.fullmatch(name):
        return piece.stack_values.get(name, "a value on Python's stack at the graph break") + \
            ", computed in plain Python at the break and passed on the stack"
    if name.endswith("_graph"):
        return "this piece's graph, compiled by the backend"
    if re.fullmatch(r"___\w*_graph_(get|set)_rng", name):
        how = f"np.random.{name[-7:-4]}_state" if getattr(value, "__name__", "") in ("get_state", "set_state") \
            else "a raw copy of its MT19937 words (no draw here touches the Gaussian cache)"
        return f"{'saves' if 'get' in name else 'restores'} the global RNG state ({how}), so a graph that " \
               "draws and then raises leaves the stream as eager's re-run needs it"
    if re.fullmatch(r"___\w*_graph_rng\d*", name):
        return "the RNG state before the graph ran (restored if the graph raises)"
    if re.fullmatch(r"___\w*raiser\d+", name):
        return "gives (made on the first exception) the function cut from your code that raises the " \
               "instruction's exception where that instruction stands"
    if type(value) is dict and isinstance(value.get("__name__"), str) and "__builtins__" in value:
        return f"the globals of module {value['__name__']} (`{name}['n']` reads its global `n`, on every call)"
    if isinstance(value, types.CellType):
        return f"a closure cell of your function (`{name}.cell_contents` reads its variable, on every call)"
    state = getattr(value, "_minidynamo", None)
    if state is not None:
        target = pieces_by_fn.get(state.fn)
        what = f"“{target.title}”" if target is not None else state.fn.__qualname__
        return f"the compiled {what}" if target is None else f"the compiled piece {what}"
    if type(value).__name__ == "LoopChoice":
        return "chooses, by timing both, whether the loops here run driven or as plain Python (never a " \
               "different result: only which is faster)"
    if getattr(value, "__minidynamo_resume__", None) is not None and getattr(value, "_minidynamo", None) is None:
        return "the rest of the function as plain Python (the uncompiled resume function), run instead of " \
               "the loop drivers when that is faster"
    if getattr(value, "__qualname__", "").startswith(("for_driver.", "while_driver.")):
        return "the loop driver: runs the loop's test/iterator in plain Python and calls the compiled loop " \
               "body once per iteration"
    if value is not None and getattr(value, "__name__", None):
        return f"{short_repr(value)}, called in plain Python at the break"
    if re.fullmatch(r"___v\d+", name):
        return "a temporary holding a value rebuilt after the graph"
    if value is not None:
        return f"a constant captured from your program ({short_repr(value)})"
    return "a name minidynamo generated (never one of your variables)"
