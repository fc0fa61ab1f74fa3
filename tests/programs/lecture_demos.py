"""Small programs in the spirit of the tracing lecture's demos 1-3, written for the tests.

Each works on plain ndarrays (eager), on traced arrays (`trace`) and on lazy arrays (`LazyRunner`), so a test
can run the same code three ways and compare.
"""

from __future__ import annotations

import math

from minidynamo.tracing import F

GELU_SCALE = math.sqrt(2.0 / math.pi)   # a Python float: tracing sees only the number, never the sqrt


def gelu_mlp(x, p):
    """x @ W1, tanh-approximated GELU, then @ W2 (demo 1)."""
    h = x @ p["W1"]
    cubic = h + 0.044715 * h * h * h
    gelu = 0.5 * h * (1.0 + F.tanh(GELU_SCALE * cubic))
    return gelu @ p["W2"]


def make_stack(log):
    """Demo 2's function: a residual tanh stack then a split into two heads and back; appends to `log`."""

    def stack(x, p, n_layers=3, residual=True):
        log.append("body ran")                    # a Python side effect: happens while tracing only
        for _ in range(n_layers):                 # unrolled: one matmul per iteration
            y = F.tanh(x @ p["W"])
            x = x + y if residual else y          # decided on a Python bool: only one arm is recorded
        rows, width = x.shape                     # plain ints: the traced shape is baked in
        heads = x.reshape(rows, 2, width // 2).transpose(1, 0, 2)
        merged = heads.transpose(1, 0, 2).reshape(rows, width)
        return merged * (1.0 / math.sqrt(width))

    return stack


def sign_flip(x):
    """Demo 3: which arm runs depends on the data."""
    total = x.sum(axis=-1).sum(axis=-1)
    if total > 0:  # BRANCH: data-dependent
        return x * 2.0
    return x * -1.0
