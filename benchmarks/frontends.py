"""How each capture front end runs a corpus model, and how results are compared with eager NumPy.

Front ends: `trace` in "error" and "specialize" modes (a model's TraceSpec says which arguments are traced
arrays and which is the params dict), `LazyRunner` (arrays wrapped with `lr.tensor`, outputs materialized), and
`compile`. Each returns an `Outcome`; any exception a front end raises is caught and recorded, so one model
never stops the harness (this is a benchmark, not the package: catching broadly is the point here).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

import minidynamo as md
from minidynamo.tracing import LazyArray

from .corpus import Model
from .timing import quiet, time_limit

FRONT_ENDS = ("trace:error", "trace:specialize", "LazyRunner", "compile")
RTOL, ATOL = 1e-6, 1e-9


@dataclass
class Outcome:
    captured: bool = False
    equal: bool = False
    graphs: int = 0
    breaks: int = 0
    categories: list[str] = field(default_factory=list)
    error: str = ""          # why not captured, or the first mismatch


class NotApplicable(Exception):
    """The model declares no way to call it under this front end."""


# ---- comparing results --------------------------------------------------------------------------------------

def same(got: Any, expected: Any) -> bool:
    """Equal up to RTOL/ATOL: arrays need the same shape and dtype; containers compare item by item; other
    objects (a config, a model object) are not compared."""
    if isinstance(expected, (np.ndarray, np.generic)):
        got = np.asarray(got) if isinstance(got, (np.ndarray, np.generic)) else got
        if not isinstance(got, np.ndarray) or got.shape != np.shape(expected) or got.dtype != expected.dtype:
            return False
        if expected.dtype.kind in "fc":
            return bool(np.allclose(got, expected, rtol=RTOL, atol=ATOL, equal_nan=True))
        return bool(np.array_equal(got, expected))
    if isinstance(expected, (tuple, list)):
        return isinstance(got, (tuple, list)) and len(got) == len(expected) and all(map(same, got, expected))
    if isinstance(expected, dict):
        return isinstance(got, dict) and list(got) == list(expected) and all(same(got[k], expected[k]) for k in expected)
    if isinstance(expected, float):
        return isinstance(got, (float, np.floating)) and (got == expected or abs(got - expected) <= ATOL + RTOL * abs(expected)
                                                          or (got != got and expected != expected))
    if isinstance(expected, (bool, int, str, type(None))):
        return type(got) is type(expected) and got == expected
    return True


def call_eager(fn: Callable, args: tuple) -> tuple[str, Any, tuple]:
    """("ok", result, args after the call) or ("raise", exception type, args). The global RNG is reseeded
    first, so models that draw from np.random see the same stream on both sides."""
    np.random.seed(12345)
    try:
        with quiet():
            return "ok", fn(*args), args
    except Exception as e:   # the model's own exception is part of its behaviour
        return "raise", type(e), args


def fresh_inputs(model: Model) -> list[tuple[str, Callable[[], tuple]]]:
    """Builders of the fresh inputs the differential check uses: a new seed, and the other branch where there
    is one. Each is called once per side, so eager and the front end get equal but separate arguments."""
    fresh = [("a new seed", lambda: model.build("small", 1))]
    if model.other is not None:
        fresh.append(("the other branch", lambda: model.other("small", 1)))
    return fresh


# ---- compile -----------------------------------------------------------------------------------------------

def run_compile(model: Model, limit: float) -> Outcome:
    out = Outcome()
    fn = model.function("small")
    try:
        with time_limit(limit), quiet():
            report = md.explain(fn)(*model.build("small", 0))
            cfn = md.compile(fn)
            mismatch = ""
            for label, build in [("the example", lambda: model.build("small", 0))] + fresh_inputs(model):
                if not _agree(call_eager(cfn, build()), call_eager(fn, build())):
                    mismatch = mismatch or f"differs from eager on {label}"
            fallbacks = getattr(md.stats(cfn), "fallbacks", 0)
    except Exception as e:
        out.error = f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
        return out
    out.graphs, out.breaks = report.graph_count, report.graph_break_count
    out.categories = [getattr(r, "category", "?") for r in report.break_reasons]
    out.captured = fallbacks == 0
    out.equal = not mismatch
    out.error = mismatch or ("" if out.captured else "internal error: ran eagerly (fallback)")
    return out


def _agree(got: tuple, expected: tuple) -> bool:
    if got[0] != expected[0]:
        return False
    if got[0] == "raise":
        return got[1] is expected[1]
    return same(got[1], expected[1]) and same(list(got[2]), list(expected[2]))


# ---- trace ---------------------------------------------------------------------------------------------------

def traced_call(model: Model, args0: tuple) -> tuple[Callable, dict, Any, list[int]]:
    """A function `trace` can call as fn(*arrays[, params]), the input shapes, the params, the input positions."""
    spec = model.trace
    if spec is None:
        raise NotApplicable("no trace_spec: the arrays are not plain positional arguments")
    fn = model.function("small")
    names = list(inspect.signature(fn).parameters)
    positions = [names.index(n) for n in spec.inputs]
    p_pos = names.index(spec.params) if spec.params else None

    def adapted(*values):
        full = list(args0)
        for pos, v in zip(positions, values):
            full[pos] = v
        if p_pos is not None:
            full[p_pos] = values[len(positions)]
        return fn(*full)

    adapted.__name__ = model.name
    shapes = {names[p]: tuple(args0[p].shape) for p in positions}
    return adapted, shapes, (args0[p_pos] if p_pos is not None else None), positions


def run_trace(model: Model, mode: str, limit: float) -> Outcome:
    out = Outcome()
    fn = model.function("small")
    try:
        with time_limit(limit), quiet():
            args0 = model.build("small", 0)
            adapted, shapes, params, positions = traced_call(model, args0)
            example = {name: args0[p] for name, p in zip(shapes, positions)}
            graph = md.trace(adapted, shapes, params, mode=mode, example=example)
    except Exception as e:
        out.error = f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
        return out
    out.captured, out.graphs = True, 1
    for label, build in fresh_inputs(model):
        expected, args = call_eager(fn, build()), build()
        inputs = {name: args[p] for name, p in zip(shapes, positions)}
        try:
            with time_limit(limit), quiet():
                result = md.run(graph, inputs)
            got = ("ok", _as_returned(result, expected[1]), args)
        except Exception as e:
            got = ("raise", type(e), args)
        if not _agree(got, expected):
            out.error = out.error or f"differs from eager on {label}"
    out.equal = not out.error
    return out


def _as_returned(outputs: list, expected: Any) -> Any:
    """A traced graph returns a flat list of outputs; shape it like the eager result for comparison."""
    if isinstance(expected, (tuple, list)):
        return type(expected)(outputs)
    return outputs[0] if len(outputs) == 1 else outputs


# ---- LazyRunner ------------------------------------------------------------------------------------------------

def lazy_wrap(lr: md.LazyRunner, value: Any) -> Any:
    if type(value) is np.ndarray:
        return lr.tensor(value)
    if isinstance(value, dict):
        return {k: lazy_wrap(lr, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(lazy_wrap(lr, v) for v in value)
    return value


def lazy_unwrap(lr: md.LazyRunner, value: Any) -> Any:
    if isinstance(value, LazyArray):
        return lr.materialize(value)
    if isinstance(value, dict):
        return {k: lazy_unwrap(lr, v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(lazy_unwrap(lr, v) for v in value)
    return value


def lazy_call(fn: Callable, args: tuple) -> tuple[Any, tuple, md.LazyRunner]:
    """Run fn on lazy copies of its array arguments: (materialized result, materialized args, the runner)."""
    lr = md.LazyRunner()
    wrapped = lazy_wrap(lr, args)
    result = lazy_unwrap(lr, fn(*wrapped))
    return result, lazy_unwrap(lr, wrapped), lr


def run_lazy(model: Model, limit: float) -> Outcome:
    out = Outcome()
    fn = model.function("small")
    try:
        with time_limit(limit), quiet():
            _, _, lr = lazy_call(fn, model.build("small", 0))
    except Exception as e:
        out.error = f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
        return out
    out.captured, out.graphs = True, len(lr.graphs)
    out.breaks = max(0, len(lr.graphs) - 1)
    for label, build in fresh_inputs(model):
        expected, args = call_eager(fn, build()), build()
        try:
            with time_limit(limit), quiet():
                result, post, _ = lazy_call(fn, args)
            got = ("ok", result, post)
        except Exception as e:
            got = ("raise", type(e), args)
        if not _agree(got, expected):
            out.error = out.error or f"differs from eager on {label}"
    out.equal = not out.error
    return out


def run_front_end(name: str, model: Model, limit: float) -> Outcome:
    if name == "compile":
        return run_compile(model, limit)
    if name == "LazyRunner":
        return run_lazy(model, limit)
    return run_trace(model, name.split(":")[1], limit)
