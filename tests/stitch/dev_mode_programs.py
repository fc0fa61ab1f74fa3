"""Programs that make every kind of generated code object, run by test_dev_mode.py in a `python -X dev`
subprocess (debug memory allocators, faulthandler): resume functions after a branch and after a call (NULL
slots rebuilt), driven loop bodies and loop exits, a while driver, raisers inside try, resume functions
inside `with` (its exit slots) and inside inlined comprehensions, closures over passed cells, a star call,
a masked update, a resume of a resume. `main()` checks each compiled result against eager's and prints one
line per program; run as a script it exits non-zero on the first mismatch."""

from __future__ import annotations

import contextlib
import io
import sys

import numpy as np

import minidynamo as md


def branch(x):
    y = x * 2
    if y.sum() > 0:                 # data-dependent (an arm that prints does not fold): a resume function per way
        print("positive")
        return y + 1
    return y - 1


def call_break(x):
    y = np.tanh(x)
    print("shape", y.shape)         # a call that breaks: NULL slot and callable rebuilt in the prefix
    return y * 2


def for_loop(x, n):
    for i in range(n):              # past the unroll limit: driver, driven body, loop exit
        x = x + i
        if x.sum() > 10:
            print("halve", i)
            x = x / 2
    return x


def while_loop(x):
    steps = 0
    while x.sum() > 1:              # while driver
        x = x / 2
        steps += 1
        print("halved")
    return x, steps


def in_try(x):
    y = x * 2
    try:
        print("in try")
        z = int(str(y.shape[0]) + "x")      # raises in plain Python: a raiser raises it in place
    except ValueError:
        z = -1
    return y, z


class Manager:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, kind, value, tb):
        self.log.append(("exit", kind.__name__ if kind else None))
        return kind is ZeroDivisionError


def in_with(x, log, d):
    with Manager(log) as m:         # entered in plain Python; the body is a resume function
        y = x * 2
        print("inside", len(m.log))
        y = y + 10 // d             # ZeroDivisionError when d == 0: __exit__ swallows it
    return x


def closure(x):
    k = 2.0
    f = lambda v: v * k             # noqa: E731 - a closure over a cell passed to the resume function
    print("closure")
    k = 3.0
    return f(x)


def star_call(x, args, kwargs):
    print(*args, **kwargs)          # CALL_FUNCTION_EX (3.14: its kwargs slot)
    print(*args)
    return x + len(args)


def comprehension(xs):
    return [v * 2 for v in xs if print(v.shape) is None]     # a break inside an inlined comprehension


def masked(x, m):
    x[m] *= 2.0
    return x


def twice(x):
    print("first")
    y = x + 1
    print("second")                 # a break in a resume function: a resume of a resume
    return y * 3


def cases():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    return [
        (branch, lambda: (x.copy(),)), (branch, lambda: (-abs(x),)),
        (call_break, lambda: (x.copy(),)),
        (for_loop, lambda: (x.copy(), 80)), (for_loop, lambda: (x.copy(), 0)),
        (while_loop, lambda: (abs(x) + 1,)),
        (in_try, lambda: (x.copy(),)),
        (in_with, lambda: (x.copy(), [], 2)), (in_with, lambda: (x.copy(), [], 0)),
        (closure, lambda: (x.copy(),)),
        (star_call, lambda: (x.copy(), (1, 2), {"sep": "-"})),
        (comprehension, lambda: ([x.copy(), x[:2].copy()],)),
        (masked, lambda: (x.copy(), x > 0)),
        (twice, lambda: (x.copy(),)),
    ]


def _run(fn, args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            result = fn(*args)
        except Exception as e:          # noqa: BLE001 - compared with eager's
            result = type(e)
    return result, args, out.getvalue()


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape \
            and np.array_equal(a, b)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(p, q) for p, q in zip(a, b))
    return a == b


def main() -> int:
    for fn, make in cases():
        compiled = md.compile(fn, options={"suppress_errors": False})
        for call in range(3):
            eager, got = _run(fn, make()), _run(compiled, make())
            if not _same(eager, got):
                print(f"MISMATCH {fn.__name__} call {call}: {got!r} != {eager!r}")
                return 1
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            breaks = md.explain(fn)(*make()).graph_break_count
        print(f"{fn.__name__}: same as eager, {breaks} break(s)")
    print("dev mode" if sys.flags.dev_mode else "not in dev mode", "ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
