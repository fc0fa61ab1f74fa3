"""Shadow verification (`config.patch(verify_every=N)`): every Nth warm call of a compiled function also runs
the original function eagerly, on deep copies of its arguments made before the compiled call, and compares
results, exceptions, printed output, the arguments as each run left them and the global random streams.
Imports errors and config only; api.py makes one Verifier per compiled function that asks for it.

Off (N = 0, the default), nothing of this runs: the dispatcher's code has no verification lines at all. On,
the dispatcher starts with `if ___vn[0] >= N - 1 and not ___vbusy.on: return ___verify(...)` and each hit
counts `___vn[0] += 1` (warm calls since the last verified one);
`Verifier.__call__` re-enters the dispatcher with `busy` set (so it, and compiled functions it calls, run
as usual), then runs the original on the copies. A call that captured is not compared (not warm).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import random
import re
import sys
import threading
import types
import warnings
from typing import Any, Callable

import numpy as np

from .config import VerifyAction
from .errors import VerificationError, VerificationWarning

BUSY = threading.local()      # `on` while a verification runs on this thread: nested dispatchers skip theirs
_MISSING = object()


class Verifier:
    """The `___verify` of one compiled function: `fn` the original, `dispatcher` the compiled entry point,
    `warm()` the function's hit count so far (a call that changed only it was warm), `pieces()` the hit
    counts per captured piece (which pieces a differing call ran)."""

    def __init__(self, fn: Callable, every: int, action: VerifyAction, exact: bool,
                 warm: Callable[[], int], pieces: Callable[[], dict[str, int]]) -> None:
        self.fn, self.every, self.action, self.exact = fn, every, VerifyAction(action), exact
        self.warm, self.pieces = warm, pieces
        self.count = [0]          # the dispatcher's ___vn
        self.dispatcher: Callable | None = None
        self.checked = 0          # calls compared (tests, stats)

    def namespace(self) -> dict[str, Any]:
        return {"___vn": self.count, "___vbusy": BUSY, "___verify": self}

    def prologue(self) -> list[str]:
        return [f"    if ___vn[0] >= {self.every - 1} and not getattr(___vbusy, 'on', False):"]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:    # (objects the function's globals hold stay themselves in the copies: a sentinel is `is` itself)
            copies = copy.deepcopy((args, kwargs), _kept(self.fn))
            _keep_read_only((args, kwargs), copies)
        except Exception:           # arguments that cannot be copied (a generator, a lock): not verified
            copies = None
        before_rng, outside = _rng_state(), Outside(self.fn, [*args, *kwargs.values()])
        before = outside.take()
        hits, pieces, modules = self.warm(), self.pieces(), len(sys.modules)
        compiled = _run(self.dispatcher, args, kwargs)
        self.count[0] = 0         # (the dispatcher counted this call if it hit, and any call it made to itself)
        if copies is None or self.warm() == hits:     # a capture or a miss: not a warm call; the next one is
            self.count[0] = self.every - 1 if copies is not None else 0
            return _replay(compiled)
        if len(sys.modules) != modules:   # it loaded a module (its top level ran): eager's run would not load
            self.count[0] = self.every - 1  # it again, so the two cannot be compared; the next call is
            return _replay(compiled)
        after_rng, after = _rng_state(), outside.take()
        ran = [name for name, n in self.pieces().items() if n != pieces.get(name, 0)]
        _set_rng_state(before_rng)
        outside.put(before)         # the globals and cells the function names, as the compiled call found them
        with _unshown_warnings():       # the caller saw the compiled call's warnings
            eager = _run(self.fn, *copies)
        self.checked += 1
        difference = self._difference(compiled, eager, (args, kwargs), copies, after_rng, _rng_state()) or \
            outside.difference(after, outside.take(), self.exact)
        if difference is None or self.action is VerifyAction.RAISE:
            outside.put(after)      # the compiled call's (equal, or what the caller saw before the error)
        if difference is None:
            return _replay(compiled)
        what, where = difference
        text = (f"verify {self.fn.__qualname__}: the compiled call differs from eager in {what}"
                f"{': ' + where if where else ''} (pieces run: {', '.join(ran) or self.fn.__qualname__})")
        if self.action is VerifyAction.RAISE:
            sys.stdout.write(compiled.printed)
            raise VerificationError(text, function=self.fn.__qualname__, pieces=ran, output=what, detail=where)
        warnings.warn(VerificationWarning(text), stacklevel=3)
        _restore_arguments((args, kwargs), copies)
        return _replay(eager)

    def _difference(self, compiled: "_Outcome", eager: "_Outcome", originals: Any, copies: Any,
                    rng_compiled: Any, rng_eager: Any) -> tuple[str, str] | None:
        if (compiled.error is None) != (eager.error is None):
            c, e = (repr(o.error) if o.error is not None else "a return" for o in (compiled, eager))
            return "the exception", f"compiled {c}, eager {e}"
        if compiled.error is not None:
            same = type(compiled.error) is type(eager.error) and compiled.error.args == eager.error.args
            return None if same else ("the exception", f"compiled {compiled.error!r}, eager {eager.error!r}")
        where = first_difference(compiled.value, eager.value, "the result", self.exact)
        if where is not None:
            return "the result", where
        if not _same_text(compiled.printed, eager.printed, self.exact):
            return "the printed output", f"compiled {compiled.printed!r}, eager {eager.printed!r}"
        (args, kwargs), (cargs, ckwargs) = originals, copies
        for i, (a, b) in enumerate(zip(args, cargs)):
            where = first_difference(a, b, f"argument {i}", self.exact)
            if where is not None:
                return f"argument {i} after the call", where
        for k in kwargs:
            where = first_difference(kwargs[k], ckwargs[k], f"argument {k!r}", self.exact)
            if where is not None:
                return f"argument {k!r} after the call", where
        if not other_threads() and not _same_rng(rng_compiled, rng_eager):
            return "the global random state", "the compiled call drew another amount from the random streams"
        return None


@contextlib.contextmanager
def _unshown_warnings() -> Any:
    """Warnings raised inside are not shown, and (unlike warnings.catch_warnings, whose exit resets every
    module's registry of places already warned about) a 'default'-action warning the caller saw once is not
    shown again on a later call."""
    saved = warnings.showwarning
    warnings.showwarning = _unshown
    try:
        yield
    finally:
        warnings.showwarning = saved


def _unshown(*args: Any, **kwargs: Any) -> None:
    """The showwarning of the eager run: the caller saw the compiled call's warnings, not these."""


class Outside:
    """The state a call can change beyond its arguments, as far as verification puts it back between the two
    runs: the globals the function's code names (rebinding; lists, dicts and sets by their items, arrays by
    their values, generators by their state, plain objects, callable ones too, by their attributes), its
    closure cells and those of functions passed to it (deep copies share them), and the lists, dicts, sets,
    arrays and plain objects found inside those (items, values and attributes, INNER_DEPTH levels down). What
    helpers of other modules change is not put back (effects there happen in both runs)."""

    def __init__(self, fn: Callable, values: list) -> None:
        self.globals = getattr(fn, "__globals__", {})
        self.names = sorted(_names_reached(fn)) if hasattr(fn, "__code__") else []
        self.cells = [c for f in [fn, *values] if isinstance(f, types.FunctionType) for c in f.__closure__ or ()]

    def take(self) -> tuple[list, list, list]:
        names = [_held(self.globals.get(n, _MISSING)) for n in self.names]
        cells = [_held(_cell_value(c)) for c in self.cells]
        inner: list = []
        seen = {id(obj) for obj, _ in names + cells}
        for obj, _ in names + cells:
            _inner(obj, 1, seen, inner)
        return names, cells, inner

    def put(self, state: tuple[list, list, list]) -> None:
        names, cells, inner = state
        for held in inner:
            _restored(held)
        for n, held in zip(self.names, names):
            if held[0] is _MISSING:
                self.globals.pop(n, None)
            else:
                self.globals[n] = _restored(held)
        for c, held in zip(self.cells, cells):
            if held[0] is _MISSING:
                with contextlib.suppress(ValueError):
                    del c.cell_contents
            else:
                c.cell_contents = _restored(held)

    def difference(self, compiled: tuple, eager: tuple, exact: bool) -> tuple[str, str] | None:
        labels = [f"global {n!r}" for n in self.names] + [f"closure cell {i}" for i in range(len(self.cells))]
        for label, a, b in zip(labels, [*compiled[0], *compiled[1]], [*eager[0], *eager[1]]):
            where = first_difference(a[1], b[1], label, exact)
            if where is not None:
                return f"{label} after the call", where
        return None


def _keep_read_only(original: Any, copied: Any) -> None:
    """A deep copy of a read-only array is writeable: make it read-only again (in arguments and the lists,
    tuples and dicts they are made of), so a write into it raises in the eager run too."""
    if isinstance(original, np.ndarray):
        if not original.flags.writeable:
            copied.flags.writeable = False
    elif isinstance(original, (list, tuple)) and type(original) is type(copied) and len(original) == len(copied):
        for a, b in zip(original, copied):
            _keep_read_only(a, b)
    elif isinstance(original, dict) and type(copied) is dict:
        for k in original:
            if k in copied:
                _keep_read_only(original[k], copied[k])


def _kept(fn: Callable) -> dict[int, Any]:
    """A deepcopy memo that keeps the function's global objects of no state verification tracks (sentinels,
    enum members, classes) as themselves."""
    memo: dict[int, Any] = {}
    for value in getattr(fn, "__globals__", {}).values():
        if _held(value)[1] is value and not isinstance(value, (int, float, complex, str, bytes, tuple, np.generic)):
            memo[id(value)] = value
    return memo


def _names_reached(fn: Callable) -> set[str]:
    """The globals `fn`'s code names, and those the functions of the same module it names name in turn (a
    helper shuffling a global generator)."""
    names: set[str] = set()
    todo, seen = [fn.__code__], set()
    while todo:
        code = todo.pop()
        if code in seen:
            continue
        seen.add(code)
        for name in _global_names(code) - names:
            names.add(name)
            value = _unwrapped(fn.__globals__.get(name))
            if isinstance(value, types.FunctionType) and value.__globals__ is fn.__globals__:
                todo.append(value.__code__)
    return names


def _unwrapped(value: Any) -> Any:
    """The function a decorator's wrapper (functools.wraps: `__wrapped__`, minidynamo.disable's) calls."""
    for _ in range(8):
        inner = getattr(value, "__wrapped__", None) if isinstance(value, types.FunctionType) else None
        if inner is None:
            return value
        value = inner
    return value


def _global_names(code: Any) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _global_names(const)
    return names


def _cell_value(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:
        return _MISSING


INNER_DEPTH = 3     # how deep inside a global or cell verification puts objects back (LAYERS[0].calls: 1)
_CODE = (types.ModuleType, type, types.FunctionType, types.MethodType, types.BuiltinFunctionType,
         types.BuiltinMethodType, types.WrapperDescriptorType, types.MethodWrapperType, functools.partial)


def _held(value: Any) -> tuple[Any, Any]:
    """(the object, its contents now): items of a list, dict or set, the values of an array, the attributes
    of a plain object (one with `__call__` too: a layer object counting its calls)."""
    if type(value) in (list, dict, set):
        return value, copy.copy(value)
    if isinstance(value, np.ndarray):
        return value, value.copy()
    if isinstance(value, np.random.Generator):
        return value, value.bit_generator.state
    if isinstance(value, np.random.RandomState):
        return value, value.get_state(legacy=False)
    if isinstance(value, _CODE) or callable(value) and type(getattr(value, "__dict__", None)) is not dict:
        return value, None      # never compared: code and modules are not results
    state = getattr(value, "__dict__", None)
    if type(state) is dict:     # a plain object (a namespace, a counter): its attributes
        return value, _Attributes(state)
    return value, value


def _inner(obj: Any, depth: int, seen: set, out: list) -> None:
    """Append (object, contents) for what `obj`'s items, values and attributes hold (tuples looked through),
    down to INNER_DEPTH levels: put back between the runs like the globals themselves."""
    if depth > INNER_DEPTH or isinstance(obj, (_CODE, np.ndarray)):
        return
    if type(obj) in (list, tuple, set):
        items = list(obj)
    elif type(obj) is dict:
        items = list(obj.values())
    else:
        state = getattr(obj, "__dict__", None)
        items = list(state.values()) if type(state) is dict and not isinstance(obj, _CODE) else []
    for item in items:
        if id(item) in seen:
            continue
        seen.add(id(item))
        held = _held(item)
        if held[1] is not None and held[1] is not item:
            out.append(held)
        _inner(item, depth + 1, seen, out)


class _Attributes(dict):
    """An object's attributes as held between the runs (compared as a dict, put back into its __dict__)."""


def _restored(held: tuple[Any, Any]) -> Any:
    obj, contents = held
    if type(obj) is list:
        obj[:] = contents
    elif type(obj) in (dict, set):
        obj.clear()
        obj.update(contents)
    elif isinstance(obj, np.ndarray) and obj.flags.writeable and obj.shape == contents.shape:
        obj[...] = contents
    elif isinstance(obj, np.random.Generator):
        obj.bit_generator.state = contents
    elif isinstance(obj, np.random.RandomState):
        obj.set_state(contents)
    elif type(contents) is _Attributes:
        obj.__dict__.clear()
        obj.__dict__.update(contents)
    return obj


class _Outcome:
    __slots__ = ("value", "error", "printed")

    def __init__(self, value: Any, error: BaseException | None, printed: str) -> None:
        self.value, self.error, self.printed = value, error, printed


def _run(fn: Callable, args: tuple, kwargs: dict) -> _Outcome:
    """Call fn with its printed output collected; Exception is caught into the outcome (others propagate)."""
    out = io.StringIO()
    saved = getattr(BUSY, "on", False)
    BUSY.on = True
    try:
        with contextlib.redirect_stdout(out):
            value = fn(*args, **kwargs)
    except Exception as e:
        return _Outcome(None, e, out.getvalue())
    finally:
        BUSY.on = saved
    return _Outcome(value, None, out.getvalue())


def _replay(outcome: _Outcome) -> Any:
    sys.stdout.write(outcome.printed)
    if outcome.error is not None:
        raise outcome.error
    return outcome.value


def first_difference(a: Any, b: Any, path: str, exact: bool, seen: set | None = None) -> str | None:
    """Where `a` (compiled) and `b` (eager) first differ, in words, or None: arrays bit for bit (`exact`;
    else within the engines' tolerance), containers item by item, objects attribute by attribute."""
    seen = set() if seen is None else seen
    if type(a) is not type(b):
        return f"{path}: compiled {type(a).__name__}, eager {type(b).__name__}"
    if isinstance(a, np.ndarray):
        return _array_difference(a, b, path, exact)
    if isinstance(a, np.random.Generator):
        return None if _same_rng(a.bit_generator.state, b.bit_generator.state) else f"{path}: generator state"
    if isinstance(a, np.random.RandomState):
        return None if _same_rng(a.get_state(), b.get_state()) else f"{path}: RandomState state"
    if (id(a), id(b)) in seen:
        return None
    seen.add((id(a), id(b)))
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return f"{path}: compiled length {len(a)}, eager {len(b)}"
        return next((d for i, (x, y) in enumerate(zip(a, b))
                     for d in [first_difference(x, y, f"{path}[{i}]", exact, seen)] if d is not None), None)
    if isinstance(a, dict):
        if list(a) != list(b):
            return f"{path}: compiled keys {list(a)!r}, eager {list(b)!r}"
        return next((d for k in a for d in [first_difference(a[k], b[k], f"{path}[{k!r}]", exact, seen)]
                     if d is not None), None)
    if isinstance(a, (int, float, complex, str, bytes, bool, type(None), np.generic)):
        return None if _same_scalar(a, b, exact) else f"{path}: compiled {a!r}, eager {b!r}"
    state_a, state_b = getattr(a, "__dict__", _MISSING), getattr(b, "__dict__", _MISSING)
    if state_a is not _MISSING and state_b is not _MISSING and not callable(a):
        return first_difference(dict(state_a), dict(state_b), f"{path} attributes", exact, seen)
    return None       # functions, modules, classes, opaque objects: not compared


def _array_difference(a: np.ndarray, b: np.ndarray, path: str, exact: bool) -> str | None:
    if a.shape != b.shape or a.dtype != b.dtype:
        return f"{path}: compiled {a.dtype}{list(a.shape)}, eager {b.dtype}{list(b.shape)}"
    if a.dtype.kind in "biufcmM" and exact:
        # (a 0-d array cannot change its itemsize in a view: its one element is compared as a 1-d array)
        differ = _bytes(a) != _bytes(b) if a.size and a.flags.c_contiguous and b.flags.c_contiguous else None
        differ = differ.any(axis=-1) if differ is not None else ~_equal(a, b)
    elif a.dtype.kind in "fc":
        # the engines' contract (README): rtol 1e-9 / 1e-4 of the array's scale (values near 0 after cancellation)
        rtol = 1e-9 if a.dtype.itemsize >= 8 and a.dtype.kind == "f" or a.dtype.itemsize >= 16 else 1e-4
        scale = float(np.max(np.abs(b[np.isfinite(b)]), initial=0.0))
        differ = ~np.isclose(a, b, rtol=rtol, atol=rtol * scale, equal_nan=True)
    else:
        differ = ~_equal(a, b)
    if not np.any(differ):
        return None
    index = tuple(int(i) for i in np.argwhere(np.asarray(differ))[0])
    return f"{path}{list(index) if index else ''}: compiled {a[index]!r}, eager {b[index]!r}"


def _bytes(a: np.ndarray) -> np.ndarray:
    """The bytes of each element of a C-contiguous array, along a last axis (shape + (itemsize,))."""
    return a.reshape(a.shape or (1,)).view(np.uint8).reshape(a.shape + (-1,))


def _equal(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind in "fc":
        return (a == b) | (np.isnan(a) & np.isnan(b))
    return np.asarray(a == b, dtype=bool).reshape(a.shape) if a.shape else np.asarray(a == b)


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def _same_text(a: str, b: str, exact: bool) -> bool:
    """Printed output: the same text, or (an engine backend, not exact) the same text around numbers that
    agree within the engines' tolerance (1e-4: a float32 value printed)."""
    if a == b or exact:
        return a == b
    na, nb = _NUMBER.findall(a), _NUMBER.findall(b)
    return _NUMBER.split(a) == _NUMBER.split(b) and len(na) == len(nb) and \
        all(np.isclose(float(x), float(y), rtol=1e-4, atol=1e-8) for x, y in zip(na, nb))


def _same_scalar(a: Any, b: Any, exact: bool) -> bool:
    if isinstance(a, (float, complex, np.inexact)):
        if exact:
            return np.asarray(a).tobytes() == np.asarray(b).tobytes()
        return bool(np.isclose(a, b, rtol=1e-9, atol=0, equal_nan=True))
    return bool(a == b)


def other_threads() -> bool:
    """Whether threads other than this one and minidynamo's own pools run: they may draw from the global
    random streams between the two runs (a dask cluster's do), so those are then not compared."""
    me = threading.current_thread()
    return any(t is not me and not t.name.startswith("minidynamo-") for t in threading.enumerate())


def _rng_state() -> tuple:
    return np.random.get_state(), random.getstate()


def _set_rng_state(state: tuple) -> None:
    np.random.set_state(state[0])
    random.setstate(state[1])


def _same_rng(a: Any, b: Any) -> bool:
    """Equal random states: nested tuples, lists and dicts of numbers and arrays (a Python state at once)."""
    if type(a) is tuple and type(b) is tuple and len(a) == len(b) == 3 and type(a[1]) is tuple:
        return a == b                                   # random.getstate(): (version, 625 ints, gauss)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    if isinstance(a, (tuple, list)):
        return isinstance(b, (tuple, list)) and len(a) == len(b) and all(map(_same_rng, a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same_rng(a[k], b[k]) for k in a)
    return a == b


def _restore_arguments(originals: Any, copies: Any) -> None:
    """verify_action="warn": the caller's arrays get the values eager left in the copies (other objects keep
    what the compiled call did to them)."""
    (args, kwargs), (cargs, ckwargs) = originals, copies
    pairs = list(zip(args, cargs)) + [(kwargs[k], ckwargs[k]) for k in kwargs]
    for a, b in pairs:
        if isinstance(a, np.ndarray) and a.shape == b.shape and a.flags.writeable:
            a[...] = b
