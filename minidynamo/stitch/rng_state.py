"""Random streams around a graph call that may be re-run eagerly: the entry statements that save and restore
NumPy's global RandomState and every generator the graph reads from the caller.

Imports numpy, graph and stitch.entry; guarded_call.py calls `restoring_rng`, a pass over the statements it
makes (the restores go before the entry.Rerun). A graph that raises is re-run as plain Python; the draws it
made before raising must not count, so the states are saved before the graph and put back before that re-run,
and the stream is consumed exactly once, as eagerly. Generators made inside the graph
(`np.random.default_rng(seed)`) are made again by the re-run and need nothing.

Saving is on the warm path of every such call, and `np.random.get_state()` costs tens of µs (it builds a
dict around a copy of the 624-word key), several times a small dropout layer's whole eager call. When every
global draw of the graph leaves the legacy Gaussian cache alone (uniform-type draws, integers, choice,
permutations), only the MT19937 key and position can change, and those are copied as raw bytes from the
bit generator's state struct (about 1 µs), after checking once that its bytes are what `get_state()` says.
"""

from __future__ import annotations

import ctypes
import functools
from typing import Any, Callable

import numpy as np

from ..graph import ops
from ..graph.ir import RngSpec
from .entry import Block, Code, Rerun, Stmt, walk


# Legacy draws that read only the bit generator: never the Gaussian cache (`has_gauss`, `gauss`) of the
# RandomState, which normal-type draws and seed() change (tests/stitch/test_rng_state.py checks each).
GAUSS_FREE = frozenset(f"random.{n}" for n in ("random", "random_sample", "rand", "uniform", "randint", "choice",
                                               "permutation", "shuffle"))
_MT_BYTES = 624 * 4 + ctypes.sizeof(ctypes.c_int)      # mt19937_state: uint32_t key[624]; int pos


@functools.lru_cache(maxsize=None)
def _raw_copier(state: np.random.RandomState) -> tuple[Callable[[], bytes], Callable[[bytes], Any]] | None:
    """(save, restore) of `state`'s MT19937 key and position as raw bytes, or None when its bit generator is
    not an MT19937 whose state struct holds exactly what get_state() reports."""
    bitgen = getattr(state, "_bit_generator", None)
    if type(bitgen) is not np.random.MT19937:
        return None
    address = bitgen.ctypes.state_address
    raw, reported = ctypes.string_at(address, _MT_BYTES), bitgen.state["state"]
    if raw[:624 * 4] != np.ascontiguousarray(reported["key"], np.uint32).tobytes() or \
            int(np.frombuffer(raw[624 * 4:], np.intc)[0]) != reported["pos"]:
        return None
    # (bitgen is kept alive by `state`, which the legacy np.random functions are bound to)
    return functools.partial(ctypes.string_at, address, _MT_BYTES), \
        lambda saved: ctypes.memmove(address, saved, _MT_BYTES)


def _global_saves(key: str, graph: Any, namespace: dict) -> tuple[list[str], list[str]]:
    draws = [n for n in graph.nodes if ops.uses_global_rng(n.op)]
    owners = {id(getattr(n.target, "__self__", None)) for n in draws}
    legacy = np.random.get_state.__self__                 # the RandomState np.random.* draw from
    copier = _raw_copier(legacy) if owners == {id(legacy)} and all(n.op in GAUSS_FREE for n in draws) else None
    if copier is not None:
        namespace[f"{key}_get_rng"], namespace[f"{key}_set_rng"] = copier
        return [f"{key}_rng = {key}_get_rng()"], [f"{key}_set_rng({key}_rng)"]
    namespace[f"{key}_get_rng"], namespace[f"{key}_set_rng"] = np.random.get_state, np.random.set_state
    return [f"{key}_rng = {key}_get_rng(legacy=False)"], [f"{key}_set_rng({key}_rng)"]


def _saves(key: str, graph: Any, inputs: list, namespace: dict) -> tuple[list[str], list[str]]:
    """(save lines, restore lines) for the global state and each generator input of the graph."""
    save, restore = [], []
    if any(ops.uses_global_rng(n.op) for n in graph.nodes):
        save, restore = _global_saves(key, graph, namespace)
    read = {id(n) for n in graph.nodes if n.is_call for n in n.inputs()}
    for i, (source, node) in enumerate(inputs):
        if not isinstance(node.spec, RngSpec) or id(node) not in read:
            continue
        expr, saved = source.expr(), f"{key}_rng{i}"
        if node.spec.type is np.random.Generator:
            save.append(f"{saved} = {expr}.bit_generator.state")
            restore.append(f"{expr}.bit_generator.state = {saved}")
        else:
            save.append(f"{saved} = {expr}.get_state(legacy=False)")
            restore.append(f"{expr}.set_state({saved})")
    return save, restore


def restoring_rng(key: str, stmts: list[Stmt], graph: Any, inputs: list, namespace: dict) -> list[Stmt]:
    """`stmts` (a guarded graph call first) with the random states saved before them and restored before
    the eager re-run (entry.Rerun); unchanged when the graph draws nothing or its exception propagates as
    is (no re-run: the draws made stand, as eager's)."""
    if not any(isinstance(s, Rerun) for s in walk(stmts)):
        return stmts
    save, restore = _saves(key, graph, inputs, namespace)
    if not save:
        return stmts
    return [*map(Code, save), *(_restoring(s, [*map(Code, restore)]) for s in stmts)]


def _restoring(stmt: Stmt, restore: list[Stmt]) -> Stmt:
    """A block of the entry with `restore` before the re-run it holds (any other statement as it is)."""
    if not isinstance(stmt, Block) or not any(isinstance(s, Rerun) for s in stmt.body):
        return stmt
    return Block(stmt.head, tuple(r for s in stmt.body for r in ([*restore, s] if isinstance(s, Rerun) else [s])))
