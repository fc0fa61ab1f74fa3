"""A corpus of small but real NumPy model code, used to check that `minidynamo.compile` captures whole
models in one graph and returns exactly what eager NumPy returns.

Each entry of `MODELS` is a `Model(name, fn, make_inputs)`: `make_inputs(seed)` builds a fresh, seeded
argument tuple at a small size, so a test can build one copy for eager and one for compiled. The code is
written the way models are usually written: weights in dicts, in object attributes, in closures and in
globals; helpers called from the model; Python constants (`math.sqrt`, eps, head counts) mixed in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

# ---- globals read by the models (an array and scalars) -------------------------------------------------

EPS = 1e-5
GELU_C = 0.044715
POS_SCALE = 0.02
POSITIONS = np.random.default_rng(1234).standard_normal((6, 8)) * POS_SCALE   # a learned position table


# ---- helpers called from compiled functions ------------------------------------------------------------

def gelu(h):
    """GELU, tanh approximation; `math.sqrt(2 / pi)` is a Python float by the time it meets an array."""
    return 0.5 * h * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (h + GELU_C * h ** 3)))


def softmax(z, axis=-1):
    """Numerically stable softmax: subtract the row max, exponentiate, normalize."""
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


def layernorm(x, gamma, beta, eps=EPS):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


def rmsnorm(x, weight, eps=1e-6):
    ms = np.mean(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(ms + eps) * weight


# ---- 1. MLP with GELU, params in a dict ----------------------------------------------------------------

def mlp(x, params):
    h = x @ params["W1"] + params["b1"]
    return gelu(h) @ params["W2"] + params["b2"]


def mlp_inputs(seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    params = {"W1": rng.standard_normal((8, 16)) / 3, "b1": np.zeros(16),
              "W2": rng.standard_normal((16, 4)) / 4, "b2": rng.standard_normal(4) * 0.1}
    return rng.standard_normal((5, 8)), params


# ---- 2. single-head attention with softmax -------------------------------------------------------------

def attention(x, wq, wk, wv):
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.T / math.sqrt(q.shape[-1])
    return softmax(scores) @ v


def attention_inputs(seed: int) -> tuple:
    rng = np.random.default_rng(10 + seed)
    return (rng.standard_normal((6, 8)),) + tuple(rng.standard_normal((8, 4)) / 3 for _ in range(3))


# ---- 3. layernorm and RMSNorm --------------------------------------------------------------------------

def layernorm_model(x, gamma, beta):
    return layernorm(x, gamma, beta)


def layernorm_inputs(seed: int) -> tuple:
    rng = np.random.default_rng(20 + seed)
    return rng.standard_normal((4, 8)) * 3 + 1, 1 + 0.1 * rng.standard_normal(8), 0.1 * rng.standard_normal(8)


def rmsnorm_model(x, weight):
    return rmsnorm(x, weight)


def rmsnorm_inputs(seed: int) -> tuple:
    rng = np.random.default_rng(30 + seed)
    return rng.standard_normal((3, 2, 8)), 1 + 0.1 * rng.standard_normal(8)


# ---- 4. 2-D convolution via im2col ---------------------------------------------------------------------

def conv2d_im2col(image, kernels):
    """image: (C, H, W); kernels: (F, C, K, K); valid padding, stride 1 -> (F, H-K+1, W-K+1)."""
    n_filters, channels, k, _ = kernels.shape
    _, height, width = image.shape
    out_h, out_w = height - k + 1, width - k + 1
    patches = []
    for i in range(out_h):
        for j in range(out_w):
            patches.append(image[:, i:i + k, j:j + k].reshape(-1))
    cols = np.stack(patches, axis=1)                       # (C*K*K, out_h*out_w)
    out = kernels.reshape(n_filters, channels * k * k) @ cols
    return out.reshape(n_filters, out_h, out_w)


def conv_inputs(seed: int) -> tuple:
    rng = np.random.default_rng(40 + seed)
    return rng.standard_normal((2, 5, 5)), rng.standard_normal((3, 2, 3, 3)) / 3


# ---- 5. one k-means step -------------------------------------------------------------------------------

def kmeans_step(points, centroids):
    """Assign each point to its nearest centroid, then move each centroid to the mean of its points."""
    k = centroids.shape[0]
    diff = points[:, None, :] - centroids[None, :, :]           # (n, k, d) by broadcasting
    dist2 = (diff * diff).sum(axis=-1)                          # (n, k)
    assign = dist2.argmin(axis=1)                               # (n,)
    onehot = (assign[:, None] == np.arange(k)[None, :]).astype(points.dtype)
    counts = onehot.sum(axis=0)                                 # (k,)
    sums = onehot.T @ points                                    # (k, d)
    return sums / np.maximum(counts, 1.0)[:, None], assign


def kmeans_inputs(seed: int) -> tuple:
    rng = np.random.default_rng(50 + seed)
    centers = np.array([[0.0, 0.0], [5.0, 5.0], [-5.0, 5.0]])
    points = np.concatenate([c + rng.standard_normal((4, 2)) for c in centers])
    return points, centers + rng.standard_normal((3, 2)) * 0.5


# ---- 6. a transformer block: weights in attributes, a config object ------------------------------------

class Config:
    def __init__(self, d_model: int, n_heads: int, d_ff: int, eps: float = 1e-5) -> None:
        self.d_model, self.n_heads, self.d_ff, self.eps = d_model, n_heads, d_ff, eps


class TransformerBlock:
    """Pre-norm block: x + causal multi-head attention(ln1(x)), then x + MLP(ln2(x))."""

    def __init__(self, cfg: Config, rng: np.random.Generator) -> None:
        d, f = cfg.d_model, cfg.d_ff
        self.cfg = cfg
        self.wq, self.wk, self.wv, self.wo = (rng.standard_normal((d, d)) / math.sqrt(d) for _ in range(4))
        self.w1 = rng.standard_normal((d, f)) / math.sqrt(d)
        self.w2 = rng.standard_normal((f, d)) / math.sqrt(f)
        self.ln1_g, self.ln1_b = np.ones(d), np.zeros(d)
        self.ln2_g, self.ln2_b = 1 + 0.1 * rng.standard_normal(d), 0.1 * rng.standard_normal(d)

    def split_heads(self, t):
        T, d = t.shape
        h = self.cfg.n_heads
        return t.reshape(T, h, d // h).transpose(1, 0, 2)          # (h, T, d/h)

    def attend(self, x):
        T, d = x.shape
        q, k, v = (self.split_heads(x @ w) for w in (self.wq, self.wk, self.wv))
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(d // self.cfg.n_heads)
        future = np.triu(np.ones((T, T), dtype=bool), k=1)
        scores = np.where(future, -np.inf, scores)
        heads = softmax(scores) @ v                                 # (h, T, d/h)
        return heads.transpose(1, 0, 2).reshape(T, d) @ self.wo

    def forward(self, x):
        x = x + self.attend(layernorm(x, self.ln1_g, self.ln1_b, self.cfg.eps))
        h = layernorm(x, self.ln2_g, self.ln2_b, self.cfg.eps)
        return x + gelu(h @ self.w1) @ self.w2


def transformer_block(block, x):
    return block.forward(x)


def transformer_inputs(seed: int) -> tuple:
    rng = np.random.default_rng(60 + seed)
    return TransformerBlock(Config(d_model=8, n_heads=2, d_ff=16), rng), rng.standard_normal((5, 8))


# ---- 7. closures over weights --------------------------------------------------------------------------

def make_classifier(w_hidden, w_out, temperature):
    def classify(x):
        h = np.tanh(x @ w_hidden)
        return softmax(h @ w_out / temperature)
    return classify


_CLASSIFIER = make_classifier(np.random.default_rng(70).standard_normal((8, 6)) / 3,
                              np.random.default_rng(71).standard_normal((6, 3)), 0.5)


def closure_model(x):
    return _CLASSIFIER(x)


def closure_inputs(seed: int) -> tuple:
    return (np.random.default_rng(72 + seed).standard_normal((4, 8)),)


# ---- 8. globals holding an array and scalars -----------------------------------------------------------

def embed_with_positions(tokens_emb, w):
    """Adds the global position table (an array) and scales by a global float, then a residual MLP."""
    T = tokens_emb.shape[0]
    x = tokens_emb + POSITIONS[:T]
    return x + gelu(x @ w) * (1.0 / POS_SCALE) * EPS


def globals_inputs(seed: int) -> tuple:
    rng = np.random.default_rng(80 + seed)
    return rng.standard_normal((4, 8)), rng.standard_normal((8, 8)) / 3


# ---- the corpus ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Model:
    name: str
    fn: Callable[..., Any]
    make_inputs: Callable[[int], tuple]


MODELS = [
    Model("mlp_gelu", mlp, mlp_inputs),
    Model("attention", attention, attention_inputs),
    Model("layernorm", layernorm_model, layernorm_inputs),
    Model("rmsnorm", rmsnorm_model, rmsnorm_inputs),
    Model("conv2d_im2col", conv2d_im2col, conv_inputs),
    Model("kmeans_step", kmeans_step, kmeans_inputs),
    Model("transformer_block", transformer_block, transformer_inputs),
    Model("closure_classifier", closure_model, closure_inputs),
    Model("globals_embed", embed_with_positions, globals_inputs),
]
