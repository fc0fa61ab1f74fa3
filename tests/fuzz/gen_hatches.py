"""Fuzzer feature for the escape hatches (minidynamo/hatches.py): calls of functions registered with
register_op (meta rules that hold, one that does not for most dtypes, one that raises on 0-d input) and with
allow_in_graph (a draw from NumPy's global random state, which the runner compares), a substituted function
(its polyfill captured, the original run by plain Python), and ufuncs reached as values (np._core.umath's
clip, NumPy's hypot and its outer/reduce) mixed with array code. The only programs that import minidynamo:
the preamble registers functions the module defines, so each side of the run registers its own."""

from __future__ import annotations

from .generator import EXTRA_PREAMBLE, EXTRA_STATEMENTS

_PREAMBLE = '''import minidynamo as _md
import numpy._core.umath as _um

np.random.seed(11)      # (each side loads the module afresh: both draw the same stream)
G_RS = np.random.mtrand._rand       # the global RandomState: a module global, so the runner compares its state


def _soft(a):
    return np.logaddexp(0.0, a)


def _first_half(a):
    return a[: (len(a) + 1) // 2]


def _as_f32(a):
    return a.astype(np.float32)


def _jitter(a):
    return a * np.random.random(np.shape(a))


def _scale(a, k=2.0):
    return a * k


def _scale_polyfill(a, k=2.0):
    return a * k


_md.register_op(_soft, meta=lambda a: _md.ArraySpec(a.shape, np.result_type(a.dtype, 0.0), scalar=a.ndim == 0))
_md.register_op(_first_half, meta=lambda a: _md.ArraySpec(((a.shape[0] + 1) // 2,) + a.shape[1:], a.dtype))
_md.register_op(_as_f32, meta=lambda a: a)      # wrong but for float32: those calls run eagerly
_md.allow_in_graph(_jitter, meta=lambda a: _md.ArraySpec(a.shape, np.result_type(a.dtype, np.float64),
                                                         scalar=a.ndim == 0))
SCALE = _md.substitute_in_graph(_scale)(_scale_polyfill)
UF = {"clip": _um.clip, "hypot": np.hypot}'''.split("\n")


def hatch_call(gen, env: dict) -> list[str]:
    r = gen.rng
    name, a = gen.fresh("hk"), gen.expr("A", env)
    expr, kind = r.choice((
        (f"_soft({a})", "A"), (f"_first_half({a}).sum(axis=0)", "R"), (f"_as_f32({a}) * 2", "A"),
        (f"_jitter({a})", "A"), (f"_jitter({a})[{gen.small_int(env)}]", "R"),    # (an index past the end raises)
        (f"_scale({a}, {gen.number(env)})", "A"), (f"SCALE({a})", "A"),
        (f"_soft({gen.expr('S', env)})", "S"), (f"_first_half({gen.expr('S', env)})", "S"),
        (f"UF['clip']({a}, -1.0, 1.0)", "A"), (f"UF['hypot']({a}, {gen.number(env)})", "A"),
        (f"UF['hypot'].outer({gen.expr('R', env)}, {gen.expr('C', env)})", "T"),
        (f"UF['hypot'].reduce({a})", "R")))
    env[name] = kind
    return [f"{name} = {expr}"]


EXTRA_STATEMENTS.update(hatch_call=hatch_call)
EXTRA_PREAMBLE["hatch_call"] = _PREAMBLE
