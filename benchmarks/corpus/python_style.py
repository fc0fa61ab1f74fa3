"""Everyday Python around NumPy: print and logging mid-function, calls into other libraries (statistics, json,
random), data-dependent branches and early exits, nested dicts of params, config objects, asserts with
f-strings, lists built in loops, keyword-only arguments. These are what break a capture in practice.
Imports numpy and the standard library only."""

from __future__ import annotations

import json
import logging
import math
import random
import statistics
from dataclasses import dataclass

import numpy as np

from . import Model, TraceSpec

log = logging.getLogger("benchmarks.corpus")      # no handler at INFO: the call happens, nothing is printed
DIMS = {"small": (4, 8), "large": (1024, 256)}


def _x(size: str, seed: int, scale: float = 1.0, shift: float = 0.0) -> np.ndarray:
    n, d = DIMS[size]
    return np.random.default_rng(seed).standard_normal((n, d)) * scale + shift


def _w(size: str, salt: int) -> np.ndarray:
    n, d = DIMS[size]
    return np.random.default_rng(2000 + salt + 50 * (size == "large")).standard_normal((d, d)) / math.sqrt(d)


def x_only(size, seed):
    return (_x(size, seed),)


def x_w(size, seed):
    return _x(size, seed), _w(size, 1)


# ---- 1-2. print and logging in the middle -------------------------------------------------------------------

def mlp_with_print(x, w):
    h = np.tanh(x @ w)
    print("hidden mean:", h.mean())
    return h @ w.T


def mlp_with_logging(x, w):
    h = np.maximum(x @ w, 0.0)
    log.info("layer 1 done, shape %s, norm %.3f", h.shape, np.linalg.norm(h))
    return h @ w


# ---- 3-5. calls into non-NumPy libraries -------------------------------------------------------------------------

def robust_scale(x):
    """Median of the row norms via the statistics module (a Python list in the middle)."""
    norms = np.sqrt((x * x).sum(axis=1))
    med = statistics.median(norms.tolist())
    return x / med


def json_configured(x, config_text):
    cfg = json.loads(config_text)
    h = x * cfg["scale"] + cfg["shift"]
    return np.clip(h, cfg["lo"], cfg["hi"])


def json_inputs(size, seed):
    return _x(size, seed), json.dumps({"scale": 1.5, "shift": 0.25, "lo": -1.0, "hi": 1.0})


def random_jitter(x, seed=7):
    """Python's random module with a fixed seed: deterministic, but not NumPy."""
    rnd = random.Random(seed)
    jitter = rnd.uniform(-0.1, 0.1)
    return x * (1.0 + jitter)


# ---- 6-9. data-dependent branches ----------------------------------------------------------------------------------

def sign_dependent(x, w):
    h = x @ w
    if h.mean() > 0:
        return np.maximum(h, 0.0)
    return 0.1 * h


def sign_inputs(size, seed):
    x, w = _x(size, seed, shift=1.0), np.abs(_w(size, 2))
    return x, w


def sign_other(size, seed):
    x, w = sign_inputs(size, seed)
    return -x, w


def clip_grad_norm(grad, max_norm=1.0):
    norm = np.linalg.norm(grad)
    if norm > max_norm:
        grad = grad * (max_norm / norm)
    return grad, norm


def big_grad(size, seed):
    return (_x(size, seed, scale=10.0),)


def small_grad(size, seed):
    return (_x(size, seed, scale=1e-4),)


def first_hot_row(x, thresh=2.5):
    """Early exit from a loop over rows: stops at the first row whose max passes thresh."""
    total = np.zeros(x.shape[1])
    for row in x:
        if row.max() > thresh:
            break
        total = total + row
    return total


def hot_inputs(size, seed):
    x = _x(size, seed, scale=0.1)
    x[x.shape[0] // 2, 0] = 5.0
    return (x,)


def cold_inputs(size, seed):
    return (_x(size, seed, scale=0.1),)


def nan_guard(x, w):
    y = x @ w
    if np.isnan(y).any():
        raise FloatingPointError("NaN in activations")
    return np.exp(-np.abs(y))


# ---- 10-12. params in nested dicts, config objects, globals -------------------------------------------------------

def nested_dict_net(x, params):
    h = x
    for name in ("embed", "hidden", "out"):
        layer = params[name]
        h = h @ layer["W"] + layer["b"]
        if layer["act"] == "relu":
            h = np.maximum(h, 0.0)
    return h


def nested_inputs(size, seed):
    n, d = DIMS[size]
    acts = {"embed": "relu", "hidden": "relu", "out": "none"}
    params = {name: {"W": _w(size, 10 + i), "b": np.full(d, 0.01 * i), "act": acts[name]}
              for i, name in enumerate(acts)}
    return _x(size, seed), params


@dataclass(frozen=True)
class NormConfig:
    eps: float = 1e-5
    center: bool = True
    scale: float = 2.0


def configured_norm(x, cfg):
    if cfg.center:
        x = x - x.mean(axis=-1, keepdims=True)
    return cfg.scale * x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + cfg.eps)


def config_inputs(size, seed):
    return _x(size, seed), NormConfig()


STEP_SIZE = 0.05
HISTORY: list = []


def record_history(x):
    """Appends to a module-level list (a side effect on a global) and reads a global step size."""
    y = x - STEP_SIZE * x ** 3
    HISTORY.append(y.shape)
    del HISTORY[:-4]
    return y


# ---- 13-16. asserts, lists, keyword-only arguments, closures with state ------------------------------------------

def checked_matmul(x, w):
    assert x.ndim == 2 and x.shape[1] == w.shape[0], f"shape mismatch: {x.shape} @ {w.shape}"
    return x @ w


def collect_then_stack(x, w, n_layers=4):
    outs = []
    h = x
    for i in range(n_layers):
        h = np.tanh(h @ w) * (1.0 / (i + 1))
        outs.append(h.sum(axis=1))
    return np.stack(outs, axis=1)


def keyword_only(x, *, scale=2.0, axis=-1, keepdims=True):
    return (x * scale).max(axis=axis, keepdims=keepdims) - x.min(axis=axis, keepdims=keepdims)


def make_scaler(factor):
    offsets = {"a": 0.5, "b": -0.5}

    def scaled(x):
        return x * factor + offsets["a"] + offsets["b"]

    return scaled


scale_by_three = make_scaler(3.0)


def tuple_unpack_stats(x):
    mean, std = x.mean(axis=0), x.std(axis=0)
    lo, hi = (mean - 2 * std, mean + 2 * std)
    return np.clip(x, lo, hi), {"mean": mean, "std": std}


XW = TraceSpec(("x", "w"))
X = TraceSpec(("x",))

MODELS = [
    Model("mlp_with_print", mlp_with_print, x_w, "print mid-function", XW),
    Model("mlp_with_logging", mlp_with_logging, x_w, "logging mid-function", XW),
    Model("robust_scale_statistics", robust_scale, x_only, "statistics.median on a list", X),
    Model("json_configured", json_configured, json_inputs, "json.loads of a config", X),
    Model("random_jitter", random_jitter, x_only, "random.Random with a seed", X),
    Model("sign_dependent", sign_dependent, sign_inputs, "data-dependent if/else", XW, other=sign_other),
    Model("clip_grad_norm", clip_grad_norm, big_grad, "clip when norm > max", TraceSpec(("grad",)),
          other=small_grad),
    Model("first_hot_row", first_hot_row, hot_inputs, "early break in a row loop", X, other=cold_inputs),
    Model("nan_guard", nan_guard, x_w, "raise on NaN (branch never taken)", XW),
    Model("nested_dict_net", nested_dict_net, nested_inputs, "nested dicts with string flags", XP := TraceSpec(("x",), "params")),
    Model("configured_norm", configured_norm, config_inputs, "dataclass config object", X),
    Model("record_history", record_history, x_only, "append to a global list", X),
    Model("checked_matmul", checked_matmul, x_w, "assert with an f-string", XW),
    Model("collect_then_stack", collect_then_stack, x_w, "list built in a loop, np.stack", XW),
    Model("keyword_only", keyword_only, x_only, "keyword-only arguments", X),
    Model("closure_scaler", scale_by_three, x_only, "closure over a float and a dict", X),
    Model("tuple_unpack_stats", tuple_unpack_stats, x_only, "tuple unpacking, dict result", X),
]
