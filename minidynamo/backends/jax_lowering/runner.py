"""The call path of a lowered graph: host-side checks, the jitted call, the data check, write-backs, results.

Imports jax (for the 64-bit context) and numpy. `make_runner(piece, jitted, traced, fallback)` returns
`run(*inputs)`; `fallback` is the graph compiled for NumPy, run whenever the engine's result could differ
from NumPy's (see engine.py). `traced` is the Piece whose trace made `jitted` (an equal graph's, when the
jitted function is shared): its positions of inputs, outputs and writes, its layout and its check flag match
`piece`'s. Everything a call needs is decided here, once; a warm call does the checks, the jitted call and
the conversion of its results, nothing else.

Results are writeable NumPy arrays that own no JAX state a later call could change:
* packed (small results of one dtype, `traced.pack_dtype`): one device-to-host read of the packed buffer,
  the check flag read from its last element, each result a copy of its slice;
* separate arrays (their finite checks, `traced.host_checked`, done here as NumPy's max of the result,
  whose inf the trace turned into nan: inside XLA such a check is a second, slower pass; none at all for a
  call bounds.Proof proves, see `_attempt`): a large result the call allocated
  (`traced.fresh_outputs`) is handed over without a copy
  (a writeable NumPy array over the JAX buffer, which it keeps alive; nothing else holds that buffer), any
  other result is copied with np.array. Such a zero-copy array does not own its memory (`flags.owndata` is
  False, `resize()` refuses), which is the one way it can be told from NumPy's own result.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import jax

from ...graph.ir import CONST, INPUT, ArraySpec, PyScalarSpec, map_nodes
from ...graph.ops import LIST_RESULTS
from ..aliasing import same_object_root
from ..engine_rng import kept_global_rng
from .choice import ON_NUMPY, Choice, Magnitudes, Variant
from .staging import THREAD_BYTES, Stager, large_inputs

try:    # NumPy 2: np.seterr/np.errstate set this context variable to a new state object
    from numpy._core.umath import _extobj_contextvar as _ERRSTATE
except ImportError:     # pragma: no cover  (another NumPy layout: read np.geterr() every call)
    _ERRSTATE = None

_LIST_RESULTS = LIST_RESULTS
NUMPY_VARIANT = True    # the graph's NumPy code is one of its variants (tests of XLA's path turn it off)
WRAP_BYTES = 1 << 15    # results from this size up are handed over without a copy (when the call made them)


class _UnderflowIgnored:
    """np.geterr()["under"] == "ignore" (XLA cannot report underflow), read again only when NumPy's error
    state object changes; the cached state object is kept alive, so its identity cannot be reused."""

    def __init__(self) -> None:
        self._seen: tuple[Any, bool] = (None, False)

    def __call__(self) -> bool:
        if _ERRSTATE is None:
            return np.geterr()["under"] == "ignore"
        state = _ERRSTATE.get()
        seen, ignored = self._seen
        if state is not seen:
            ignored = np.geterr()["under"] == "ignore"
            self._seen = (state, ignored)      # one assignment: another thread sees a consistent pair
        return ignored


underflow_ignored = _UnderflowIgnored()


class _JaxBuffer:
    """Hands a JAX array's buffer to NumPy as writeable memory, keeping the JAX array alive."""

    __slots__ = ("__array_interface__", "array")


def writeable_view(value: Any) -> np.ndarray:
    """A writeable NumPy array over `value`'s buffer (only for buffers nothing else holds)."""
    value.block_until_ready()
    holder = _JaxBuffer()
    holder.array = value
    holder.__array_interface__ = {"shape": tuple(value.shape), "typestr": np.dtype(value.dtype).str,
                                  "data": (value.unsafe_buffer_pointer(), False), "version": 3}
    return np.asarray(holder)


def _copy_scalar(value: Any) -> Any:
    return np.asarray(value)[()]


def _converter(spec: Any, as_list: bool, fresh: bool) -> Callable[[Any], Any]:
    """How one separately returned result becomes what NumPy returns (see the module docstring)."""
    if isinstance(spec, tuple):
        items = [_converter(s, False, False) for s in spec]
        kind = list if as_list else tuple
        return lambda value: kind(f(v) for f, v in zip(items, value))
    if spec is None:
        return lambda value: None
    if isinstance(spec, PyScalarSpec):         # a computed Python number: Python's own type
        return lambda value, kind=spec.type: kind(np.asarray(value)[()])
    if spec.scalar:
        return _copy_scalar
    if fresh and spec.size * spec.dtype.itemsize >= WRAP_BYTES:
        return writeable_view
    return np.array


def _host_checks(piece: Any, traced: Any) -> list[Callable[[tuple], bool]]:
    """Conditions on the inputs, checked in Python before the call; any False runs NumPy instead."""
    checks: list[Callable[[tuple], bool]] = []
    positions = {id(n): i for i, n in enumerate(piece.inputs)}
    arrays = [i for i, n in enumerate(piece.inputs) if isinstance(n.spec, ArraySpec) and not n.spec.scalar]
    for node in piece.written_inputs:
        i = positions[id(node)]
        others = [j for j in arrays if j != i]
        checks.append(lambda inputs, i=i, others=others: inputs[i].flags.writeable and not any(
            np.may_share_memory(inputs[i], inputs[j]) for j in others))
    for i, dtypes in traced.scalar_dtypes.items():
        bounds = [np.iinfo(d) if d.kind in "iu" else np.finfo(d) for d in dtypes if d.kind in "iuf"]
        if bounds:
            lo, hi = max(float(b.min) for b in bounds), min(float(b.max) for b in bounds)
            checks.append(lambda inputs, i=i, lo=lo, hi=hi: lo <= inputs[i] <= hi)
    for i, n in enumerate(piece.inputs):
        if isinstance(n.spec, PyScalarSpec) and n.spec.type is int:
            checks.append(lambda inputs, i=i: -2 ** 63 <= inputs[i] < 2 ** 63)
    return checks


def _assembler(piece: Any) -> Callable[[list, tuple], tuple]:
    """(results in piece.outputs order, inputs) -> the graph's output tuple."""
    outputs = piece.graph.outputs
    if [id(o) for o in outputs] == [id(n) for n in piece.outputs]:
        return lambda results, inputs: tuple(results)
    input_index = {id(n): i for i, n in enumerate(piece.inputs)}
    out_index = {id(n): k for k, n in enumerate(piece.outputs)}
    roots = same_object_root(piece.graph)

    def lookup(node: Any, inputs: tuple, results: list) -> Any:
        r = roots[id(node)]
        if r.op == INPUT:
            return inputs[input_index[id(r)]]
        if node.op == CONST:
            return node.value
        if node.op == "setitem":
            return None
        return results[out_index[id(r)]]

    return lambda results, inputs: tuple(map_nodes(o, lambda n: lookup(n, inputs, results)) for o in outputs)


def _packed_reader(piece: Any, traced: Any, written: list[int]) -> Callable[[Any, tuple], Any]:
    """Read the packed buffer: None when the check flag fails, else the graph's outputs (inputs written)."""
    slots, start = [], 0
    for n in piece.outputs + piece.written_inputs:
        slots.append((start, start + n.spec.size, n.spec.shape, n.spec.scalar))
        start += n.spec.size
    out_slots, write_slots = slots[:len(piece.outputs)], list(zip(written, slots[len(piece.outputs):]))
    checked, assemble = traced.checked, _assembler(piece)
    direct = [id(o) for o in piece.graph.outputs] == [id(n) for n in piece.outputs]
    if direct and len(out_slots) == 1 and not write_slots and not out_slots[0][3]:
        (_, size, shape, _), = out_slots      # the common case, one array result: fewest steps

        def read_one(packed: Any, inputs: tuple) -> Any:
            buf = np.asarray(packed)
            if checked and not buf[-1]:
                return None
            return (buf[:size].reshape(shape).copy(),)
        return read_one

    def read(packed: Any, inputs: tuple) -> Any:
        buf = np.asarray(packed)
        if checked and not buf[-1]:
            return None
        for i, (a, b, shape, _) in write_slots:
            np.copyto(inputs[i], buf[a:b].reshape(shape))
        return assemble([buf[a] if scalar else buf[a:b].reshape(shape).copy()
                         for a, b, shape, scalar in out_slots], inputs)
    return read


def _array_reader(piece: Any, traced: Any, written: list[int]) -> Callable[[Any, tuple], Any]:
    """Read separately returned results: None when the check flag fails, else the graph's outputs."""
    fresh = traced.fresh_outputs or [False] * len(piece.outputs)
    convert = [_converter(n.spec, n.op in _LIST_RESULTS, f) for n, f in zip(piece.outputs, fresh)]
    checked, n_out, assemble = traced.checked, len(piece.outputs), _assembler(piece)
    host_checked = traced.host_checked

    def read(flat: tuple, inputs: tuple) -> Any:
        if checked and not np.asarray(flat[-1]):
            return None
        results = [f(v) for f, v in zip(convert, flat)]
        if host_checked and not all_finite([results[k] for k in host_checked]):
            return None
        for i, new in zip(written, flat[n_out:n_out + len(written)]):
            np.copyto(inputs[i], new)
        return assemble(results, inputs)
    return read


def all_finite(arrays: list) -> bool:
    """No nan in these float arrays, which hold no inf: the trace returns a checked result v as
    `v - (v - v)`, nan wherever v is not finite (engine.Piece.trace). NumPy's max propagates nan and is its
    fastest reduction (one SIMD pass, about half a sum). Not np.dot: BLAS's thread pool and XLA's contend
    for the cores (a dot of 16K float64 after an XLA call took up to 20 ms)."""
    return all(np.isfinite(np.maximum.reduce(a, axis=None)) for a in arrays if a.size)


def _plain_caller(piece: Any, jitted: Callable) -> Callable[..., Any]:
    """jitted(*inputs, *constants), 64-bit graphs under jax.enable_x64 for that call only."""
    consts = tuple(n.value for n in piece.consts)
    if piece.x64:
        def call(*inputs: Any) -> Any:
            with jax.enable_x64(True):
                return jitted(*inputs, *consts)
        return call
    if consts:
        return lambda *inputs: jitted(*inputs, *consts)
    return jitted


def _staged_call(piece: Any, jitted: Callable, read: Callable[[Any, tuple], Any]) -> Callable[[tuple, tuple], Any]:
    """(args, inputs) -> read(jitted(*args, *constants), inputs), returning once XLA is done with `args`
    (staging.Stager may refill their buffers after that)."""
    consts = tuple(n.value for n in piece.consts)

    def call(args: tuple, inputs: tuple) -> Any:
        flat = jitted(*args, *consts)
        jax.block_until_ready(flat)
        return read(flat, inputs)
    return call


def _staged(piece: Any, stager: Stager, call: Callable, holds: Callable | None = None) -> Callable[[tuple], Any]:
    """inputs -> stager.run(inputs, call, holds), under the call's 64-bit context (the staging's
    jax.device_put needs it as well)."""
    if piece.x64:
        def run(inputs: tuple) -> Any:
            with jax.enable_x64(True):
                return stager.run(inputs, call, holds)
        return run
    return lambda inputs: stager.run(inputs, call, holds)


def _attempt(piece: Any, jitted: Callable, traced: Any, written: list[int],
             unchecked: tuple | None, counter: list[int], stager: Stager) -> Choice:
    """inputs -> the graph's outputs from XLA, or None when a data check failed. With `unchecked`
    (jitted, traced, proof: engine._unchecked), calls may take the variant without finite checks when their
    inputs' magnitudes prove that no nan/inf can appear (counted in `counter`), and choice.py times the
    exact ways of running the graph and keeps the fastest (see `_variants`). Without it: the checked call,
    with large inputs staged or not, whichever is faster."""
    read = (_packed_reader if traced.pack_dtype is not None else _array_reader)(piece, traced, written)
    call = _plain_caller(piece, jitted)

    def checked(inputs: tuple) -> Any:
        return read(call(*inputs), inputs)
    checked_call = _staged_call(piece, jitted, read)
    checked_staged = _staged(piece, stager, lambda args, inputs, proved: checked_call(args, inputs))
    if unchecked is None:
        if not stager.large:
            return Choice({Variant(Magnitudes.UNREAD, False): checked})
        if _always_staged(piece, stager):
            return Choice({Variant(Magnitudes.UNREAD, True): checked_staged})
        return Choice({Variant(Magnitudes.UNREAD, True): checked_staged, Variant(Magnitudes.UNREAD, False): checked})
    return Choice(_variants(piece, unchecked, written, counter, stager, checked, checked_call, checked_staged))


def _variants(piece: Any, unchecked: tuple, written: list[int], counter: list[int], stager: Stager,
              checked: Callable, checked_call: Callable, checked_staged: Callable) -> dict[Variant, Callable]:
    """The exact ways of running a graph that has a variant without finite checks, the default first.
    Magnitudes read ALONGSIDE: JAX dispatches asynchronously, so the proved variant starts first and the
    magnitudes are read while XLA computes (on the other core when XLA's loop runs on one); if they prove
    nothing its results are dropped (once XLA is done: nothing was written yet) and the checked variant runs,
    and the next call reads the magnitudes first. Read BEFORE (staged only): while XLA runs on both cores, a
    read beside it would stall its loops; the read comes first, beside the buffers' refill for large copies
    (staging.py), and when it proves nothing the checked variant runs on the same buffers. Staged variants
    exist for graphs with inputs of STAGE_BYTES and up (only they when those copies reach THREAD_BYTES);
    the default is BEFORE with them, else ALONGSIDE."""
    fast_jitted, fast_traced, proof = unchecked
    fast_read = _array_reader(piece, fast_traced, written)
    fast = _plain_caller(piece, fast_jitted)

    def dropped(started: Any, args: tuple, inputs: tuple) -> Any:
        return checked(inputs)
    variants = {Variant(Magnitudes.ALONGSIDE, False): _speculative(fast, fast_read, proof.holds, dropped, counter),
                Variant(Magnitudes.UNREAD, False): checked}
    if not stager.large:
        return variants
    fast_call = _staged_call(piece, fast_jitted, fast_read)

    def before(args: tuple, inputs: tuple, holds: bool) -> Any:
        if not holds:
            return checked_call(args, inputs)
        counter[0] += 1
        return fast_call(args, inputs)

    def finish(started: Any, inputs: tuple) -> Any:
        jax.block_until_ready(started)
        return fast_read(started, inputs)

    def dropped_staged(started: Any, args: tuple, inputs: tuple) -> Any:
        if started is not None:     # XLA is done with the buffers before the next call refills them
            jax.block_until_ready(started)
        return checked_call(args, inputs)
    alongside = _speculative(fast, finish, proof.holds, dropped_staged, counter)
    staged = {Variant(Magnitudes.BEFORE, True): _staged(piece, stager, before, proof.holds),
              Variant(Magnitudes.ALONGSIDE, True): _staged(piece, stager, lambda args, inputs, _: alongside(inputs, args)),
              Variant(Magnitudes.UNREAD, True): checked_staged}
    return staged if _always_staged(piece, stager) else {**staged, **variants}


def _always_staged(piece: Any, stager: Stager) -> bool:
    """Copies of THREAD_BYTES and up cost far less staged than JAX's (staging.py): no trials without."""
    return sum(piece.inputs[i].spec.size * piece.inputs[i].spec.dtype.itemsize for i in stager.large) >= THREAD_BYTES


def _speculative(fast: Callable, finish: Callable[[Any, tuple], Any], holds: Callable[[tuple], bool],
                 fallback: Callable[[Any, tuple, tuple], Any], counter: list[int]) -> Callable[..., Any]:
    """(inputs, args=inputs) -> finish(fast(*args), inputs) with the magnitudes of `inputs` read while XLA
    computes; fallback(started or None, args, inputs) when they prove nothing (see `_variants`)."""
    speculate = [True]

    def run(inputs: tuple, args: tuple | None = None) -> Any:
        args = inputs if args is None else args
        started = fast(*args) if speculate[0] else None
        if not holds(inputs):
            speculate[0] = False
            return fallback(started, args, inputs)
        speculate[0] = True
        counter[0] += 1
        return finish(fast(*args) if started is None else started, inputs)
    return run


def _with_numpy(attempt: Choice, numpy_run: Callable[[tuple], tuple]) -> Choice:
    """`attempt`'s variants and, last, the graph's NumPy code: timed against them as they are against one
    another, kept where XLA loses (choice.py)."""
    return Choice({**attempt.variants, ON_NUMPY: numpy_run}) if NUMPY_VARIANT else attempt


def make_runner(piece: Any, jitted: Callable, traced: Any, fallback: Callable[..., tuple],
                unchecked: tuple | None = None) -> Callable[..., tuple]:
    """`run(*inputs)` for one graph: see the module docstring."""
    checks = _host_checks(piece, traced)
    floats = any(isinstance(n.spec, ArraySpec) and n.spec.dtype.kind == "f" for n in piece.graph.nodes)
    input_index = {id(n): i for i, n in enumerate(piece.inputs)}
    written = [input_index[id(n)] for n in piece.written_inputs]     # in the order the trace returns them
    fallbacks, proved = [0], [0]    # calls that ran on NumPy / without finite checks (tests read both)
    stager = Stager(large_inputs(piece))
    on_numpy = [0]      # calls the choice ran as the graph's NumPy code (choice.ON_NUMPY)

    def numpy_chosen(inputs: tuple) -> tuple:
        on_numpy[0] += 1
        return fallback(*inputs)
    engine = _with_numpy(_attempt(piece, jitted, traced, written, unchecked, proved, stager), numpy_chosen)

    def attempt(inputs: tuple) -> Any:     # the first call only: then `attempt` is `engine` itself
        nonlocal attempt
        attempt = engine
        with kept_global_rng():             # the engine's first use (engine_rng.py)
            return engine(inputs)

    def numpy_instead(inputs: tuple) -> tuple:
        fallbacks[0] += 1
        return fallback(*inputs)

    def run(*inputs: Any) -> tuple:
        if floats and not underflow_ignored():
            return numpy_instead(inputs)
        for check in checks:
            if not check(inputs):
                return numpy_instead(inputs)
        got = attempt(inputs)
        return numpy_instead(inputs) if got is None else got

    if floats and not checks:       # the common case: only NumPy's error state to look at
        def run(*inputs: Any) -> tuple:     # noqa: F811  (the same steps, fewer of them)
            if not underflow_ignored():
                return numpy_instead(inputs)
            got = attempt(inputs)
            return numpy_instead(inputs) if got is None else got

    run.__name__ = f"jax_{piece.graph.name}"
    run.fallbacks = fallbacks             # type: ignore[attr-defined]
    run.proved = proved                   # type: ignore[attr-defined]
    run.stager = stager                   # type: ignore[attr-defined]
    run.on_numpy = on_numpy               # type: ignore[attr-defined]
    run.choice = engine                   # type: ignore[attr-defined]
    run.__minidynamo_source__ = getattr(fallback, "__minidynamo_source__", "")
    return run
