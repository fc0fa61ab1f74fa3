"""Network layers and whole blocks: MLPs, attention, norms, im2col convolution, RNNs, a transformer block
object, closures and globals holding weights. Imports numpy and math only."""

from __future__ import annotations

import functools
import math

import numpy as np

from . import Model, TraceSpec

# (batch or tokens, model width, hidden width) per size; "large" is a few milliseconds of eager NumPy.
DIMS = {"small": (4, 8, 16), "large": (128, 128, 512)}


def _weights(size: str, salt: int = 0) -> np.random.Generator:
    return np.random.default_rng(1000 + 17 * salt + (size == "large"))


def _data(size: str, seed: int, *shape: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape)


# ---- helpers the models call (inlined by a bytecode front end) ---------------------------------------

def gelu(h):
    return 0.5 * h * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * h ** 3)))


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def softmax(z, axis=-1):
    shifted = z - z.max(axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


# ---- 1. two-layer MLP with GELU, params in a dict -------------------------------------------------------

def mlp_gelu(x, params):
    h = gelu(x @ params["W1"] + params["b1"])
    return h @ params["W2"] + params["b2"]


def mlp_params(size: str, salt: int = 1) -> dict:
    n, d, hidden = DIMS[size]
    rng = _weights(size, salt)
    return {"W1": rng.standard_normal((d, hidden)) / math.sqrt(d), "b1": rng.standard_normal(hidden) * 0.1,
            "W2": rng.standard_normal((hidden, d)) / math.sqrt(hidden), "b2": np.zeros(d)}


def mlp_inputs(size, seed):
    n, d, _ = DIMS[size]
    return _data(size, seed, n, d), mlp_params(size)


# ---- 2. a deeper ReLU MLP whose layers are a list of (W, b) pairs in a dict ------------------------------

def mlp_relu_layers(x, params):
    h = x
    for W, b in params["layers"]:
        h = np.maximum(h @ W + b, 0.0)
    return h.sum(axis=-1)


def relu_layers_inputs(size, seed):
    n, d, _ = DIMS[size]
    rng = _weights(size, 2)
    layers = [(rng.standard_normal((d, d)) / math.sqrt(d), rng.standard_normal(d) * 0.05) for _ in range(4)]
    return _data(size, seed, n, d), {"layers": layers}


# ---- 3. single-head attention, weights as separate arguments --------------------------------------------

def attention(x, wq, wk, wv):
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.T / math.sqrt(q.shape[-1])
    return softmax(scores) @ v


def attention_inputs(size, seed):
    n, d, _ = DIMS[size]
    rng = _weights(size, 3)
    return (_data(size, seed, n, d),) + tuple(rng.standard_normal((d, d)) / math.sqrt(d) for _ in range(3))


# ---- 4. multi-head attention: split heads with reshape/transpose ----------------------------------------

def multi_head_attention(x, params, n_heads=4):
    T, d = x.shape
    hd = d // n_heads
    qkv = x @ params["Wqkv"]
    q, k, v = qkv[:, :d], qkv[:, d:2 * d], qkv[:, 2 * d:]
    q = q.reshape(T, n_heads, hd).transpose(1, 0, 2)
    k = k.reshape(T, n_heads, hd).transpose(1, 0, 2)
    v = v.reshape(T, n_heads, hd).transpose(1, 0, 2)
    att = softmax(q @ k.transpose(0, 2, 1) * (1.0 / math.sqrt(hd)))
    out = (att @ v).transpose(1, 0, 2).reshape(T, d)
    return out @ params["Wo"]


def mha_inputs(size, seed):
    n, d, _ = DIMS[size]
    rng = _weights(size, 4)
    return _data(size, seed, n, d), {"Wqkv": rng.standard_normal((d, 3 * d)) / math.sqrt(d),
                                     "Wo": rng.standard_normal((d, d)) / math.sqrt(d)}


# ---- 5. causal attention: the mask is built from aranges, float32 data ----------------------------------

def causal_attention(x, w):
    T = x.shape[0]
    rows = np.arange(T)[:, None]
    cols = np.arange(T)[None, :]
    scores = (x @ w) @ x.T
    scores = np.where(cols > rows, np.float32(-1e9), scores)
    return softmax(scores) @ x


def causal_inputs(size, seed):
    n, d, _ = DIMS[size]
    w = (_weights(size, 5).standard_normal((d, d)) / d).astype(np.float32)
    return _data(size, seed, n, d).astype(np.float32), w


# ---- 6-7. normalization layers ----------------------------------------------------------------------------

def layernorm(x, gamma, beta):
    return layer_norm(x, gamma, beta)


def layernorm_inputs(size, seed):
    n, d, hidden = DIMS[size]
    rng = _weights(size, 6)
    return _data(size, seed, 4 * n, hidden) * 3 + 1, 1 + 0.1 * rng.standard_normal(hidden), \
        0.1 * rng.standard_normal(hidden)


def rmsnorm(x, weight, eps=1e-6):
    ms = np.mean(np.square(x), axis=-1, keepdims=True)
    return x * (1.0 / np.sqrt(ms + eps)) * weight


def rmsnorm_inputs(size, seed):
    n, d, hidden = DIMS[size]
    return _data(size, seed, 4 * n, hidden), 1 + 0.1 * _weights(size, 7).standard_normal(hidden)


# ---- 8-9. convolution via im2col ---------------------------------------------------------------------------

CONV = {"small": (2, 3, 8, 4), "large": (4, 8, 32, 16)}   # batch, in channels, image side, out channels


def im2col(img, kh, kw):
    """Patches of a [B, C, H, W] image as rows: one strided slice per kernel offset, stacked."""
    B, C, H, W = img.shape
    oh, ow = H - kh + 1, W - kw + 1
    cols = []
    for i in range(kh):
        for j in range(kw):
            cols.append(img[:, :, i:i + oh, j:j + ow])
    patches = np.stack(cols, axis=2)                      # B, C, kh*kw, oh, ow
    return patches.reshape(B, C * kh * kw, oh * ow), oh, ow


def conv2d(img, kernel):
    O, C, kh, kw = kernel.shape
    cols, oh, ow = im2col(img, kh, kw)
    out = kernel.reshape(O, C * kh * kw) @ cols            # B, O, oh*ow
    return out.reshape(img.shape[0], O, oh, ow)


def conv_inputs(size, seed):
    B, C, side, O = CONV[size]
    return _data(size, seed, B, C, side, side), _weights(size, 8).standard_normal((O, C, 3, 3)) / 3


def conv_relu_pool(img, kernel, bias):
    y = np.maximum(conv2d(img, kernel) + bias[None, :, None, None], 0.0)
    B, O, H, W = y.shape
    y = y[:, :, : H // 2 * 2, : W // 2 * 2]
    return y.reshape(B, O, H // 2, 2, W // 2, 2).max(axis=(3, 5))


def conv_pool_inputs(size, seed):
    img, kernel = conv_inputs(size, seed)
    return img, kernel, 0.1 * _weights(size, 9).standard_normal(kernel.shape[0])


# ---- 10-11. recurrent nets: a Python loop over time ---------------------------------------------------------

RNN = {"small": (5, 3, 8), "large": (24, 32, 128)}        # time steps, batch, width


def rnn_tanh(xs, params):
    h = np.zeros((xs.shape[1], params["Wh"].shape[0]))
    outputs = []
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ params["Wx"] + h @ params["Wh"] + params["b"])
        outputs.append(h)
    return np.stack(outputs), h


def rnn_inputs(size, seed):
    T, B, d = RNN[size]
    rng = _weights(size, 10)
    return _data(size, seed, T, B, d), {"Wx": rng.standard_normal((d, d)) / math.sqrt(d),
                                        "Wh": rng.standard_normal((d, d)) / math.sqrt(d), "b": np.zeros(d)}


def gru(xs, params):
    h = np.zeros((xs.shape[1], params["Uz"].shape[0]))
    for x in xs:                                           # iterating an array unrolls over its first axis
        z = sigmoid(x @ params["Wz"] + h @ params["Uz"])
        r = sigmoid(x @ params["Wr"] + h @ params["Ur"])
        cand = np.tanh(x @ params["Wc"] + (r * h) @ params["Uc"])
        h = (1 - z) * h + z * cand
    return h


def gru_inputs(size, seed):
    T, B, d = RNN[size]
    rng = _weights(size, 11)
    names = ("Wz", "Uz", "Wr", "Ur", "Wc", "Uc")
    return _data(size, seed, T, B, d), {k: rng.standard_normal((d, d)) / math.sqrt(d) for k in names}


# ---- 12. a transformer block as a class with weight attributes ------------------------------------------------

class TransformerBlock:
    def __init__(self, d: int, hidden: int, n_heads: int, rng: np.random.Generator) -> None:
        self.n_heads = n_heads
        self.ln1_g, self.ln1_b = np.ones(d), np.zeros(d)
        self.ln2_g, self.ln2_b = np.ones(d), np.zeros(d)
        self.attn = {"Wqkv": rng.standard_normal((d, 3 * d)) / math.sqrt(d),
                     "Wo": rng.standard_normal((d, d)) / math.sqrt(d)}
        self.w_up = rng.standard_normal((d, hidden)) / math.sqrt(d)
        self.w_down = rng.standard_normal((hidden, d)) / math.sqrt(hidden)

    def forward(self, x):
        x = x + multi_head_attention(layer_norm(x, self.ln1_g, self.ln1_b), self.attn, self.n_heads)
        return x + gelu(layer_norm(x, self.ln2_g, self.ln2_b) @ self.w_up) @ self.w_down


def transformer_block(x, block):
    return block.forward(x)


@functools.lru_cache(maxsize=None)
def _block(size: str) -> TransformerBlock:
    n, d, hidden = DIMS[size]
    return TransformerBlock(d, hidden, 4, _weights(size, 12))


def block_inputs(size, seed):
    n, d, _ = DIMS[size]
    return _data(size, seed, n, d), _block(size)


# ---- 13-14. embeddings and a classification loss with integer indexing ----------------------------------------

def embed_mean_pool(tokens, table, proj):
    vecs = table[tokens]                                   # B, L, d
    return np.tanh(vecs.mean(axis=1) @ proj)


def embed_inputs(size, seed):
    n, d, _ = DIMS[size]
    vocab = 50 if size == "small" else 5000
    rng = _weights(size, 13)
    tokens = np.random.default_rng(seed).integers(0, vocab, size=(n, 16))
    return tokens, rng.standard_normal((vocab, d)), rng.standard_normal((d, d)) / math.sqrt(d)


def cross_entropy(logits, labels):
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -logp[np.arange(logits.shape[0]), labels].mean()


def ce_inputs(size, seed):
    n, d, hidden = DIMS[size]
    rng = np.random.default_rng(seed)
    return rng.standard_normal((4 * n, hidden)), rng.integers(0, hidden, size=4 * n)


# ---- 15. weights captured by a closure --------------------------------------------------------------------------

def make_residual_mlp(size: str):
    n, d, hidden = DIMS[size]
    rng = _weights(size, 15)
    up, down = rng.standard_normal((d, hidden)) / math.sqrt(d), rng.standard_normal((hidden, d)) / math.sqrt(hidden)

    def residual_mlp(x):
        return x + np.maximum(x @ up, 0.0) @ down

    return residual_mlp


_closures: dict[str, object] = {}


def residual_closure(size: str):
    if size not in _closures:
        _closures[size] = make_residual_mlp(size)
    return _closures[size]


def closure_inputs(size, seed):
    n, d, _ = DIMS[size]
    return (_data(size, seed, n, d),)


# ---- 16. weights and scalars held in module globals -------------------------------------------------------------

PROJ = np.eye(8)                                         # replaced by global_inputs for the size asked
TEMPERATURE = 0.7
USE_BIAS = True


def global_weights(x):
    logits = x @ PROJ / TEMPERATURE
    if USE_BIAS:
        logits = logits + 0.5
    return softmax(logits)


def global_inputs(size, seed):
    global PROJ
    n, d, _ = DIMS[size]
    PROJ = _weights(size, 16).standard_normal((d, d)) / math.sqrt(d)
    return (_data(size, seed, n, d),)


# ---- 17-20. more layer styles ------------------------------------------------------------------------------------

def swiglu_mlp(x, params):
    a = x @ params["Wg"]
    gate = a * sigmoid(a)
    return (gate * (x @ params["Wu"])) @ params["Wd"]


def swiglu_inputs(size, seed):
    n, d, hidden = DIMS[size]
    rng = _weights(size, 17)
    return _data(size, seed, n, d), {"Wg": rng.standard_normal((d, hidden)) / math.sqrt(d),
                                     "Wu": rng.standard_normal((d, hidden)) / math.sqrt(d),
                                     "Wd": rng.standard_normal((hidden, d)) / math.sqrt(hidden)}


def batchnorm_infer(x, stats, eps=1e-5):
    return (x - stats["mean"]) / np.sqrt(stats["var"] + eps) * stats["gamma"] + stats["beta"]


def batchnorm_inputs(size, seed):
    n, d, hidden = DIMS[size]
    rng = _weights(size, 18)
    return _data(size, seed, 4 * n, hidden), {"mean": rng.standard_normal(hidden), "var": rng.random(hidden) + 0.5,
                                             "gamma": np.ones(hidden), "beta": np.zeros(hidden)}


def sinusoidal_positions(x):
    T, d = x.shape
    pos = np.arange(T)[:, None]
    freq = np.exp(np.arange(0, d, 2) * (-math.log(10000.0) / d))
    pe = np.concatenate([np.sin(pos * freq), np.cos(pos * freq)], axis=1)
    return x + pe


def positions_inputs(size, seed):
    n, d, _ = DIMS[size]
    return (_data(size, seed, 4 * n, d),)


def mixer_block(x, params):
    """MLP-Mixer: one MLP across tokens (transpose), one across channels."""
    t = x.T @ params["Wtok"]
    x = x + np.maximum(t, 0.0).T
    return x + np.maximum(x @ params["Wch"], 0.0)


def mixer_inputs(size, seed):
    n, d, _ = DIMS[size]
    rng = _weights(size, 20)
    return _data(size, seed, n, d), {"Wtok": rng.standard_normal((n, n)) / math.sqrt(n),
                                     "Wch": rng.standard_normal((d, d)) / math.sqrt(d)}


X = TraceSpec(("x",))
XP = TraceSpec(("x",), "params")

MODELS = [
    Model("mlp_gelu", mlp_gelu, mlp_inputs, "MLP/GELU, params dict", XP),
    Model("mlp_relu_layers", mlp_relu_layers, relu_layers_inputs, "layer list in a dict", XP),
    Model("attention", attention, attention_inputs, "attention with softmax", TraceSpec(("x", "wq", "wk", "wv"))),
    Model("multi_head_attention", multi_head_attention, mha_inputs, "attention, reshape/transpose heads", XP),
    Model("causal_attention_f32", causal_attention, causal_inputs, "masked attention, float32",
          TraceSpec(("x", "w"))),
    Model("layernorm", layernorm, layernorm_inputs, "LayerNorm", TraceSpec(("x", "gamma", "beta"))),
    Model("rmsnorm", rmsnorm, rmsnorm_inputs, "RMSNorm", TraceSpec(("x", "weight"))),
    Model("conv2d_im2col", conv2d, conv_inputs, "convolution via im2col", TraceSpec(("img", "kernel"))),
    Model("conv_relu_pool", conv_relu_pool, conv_pool_inputs, "conv + ReLU + max-pool",
          TraceSpec(("img", "kernel", "bias"))),
    Model("rnn_tanh", rnn_tanh, rnn_inputs, "RNN, Python loop over time", TraceSpec(("xs",), "params")),
    Model("gru", gru, gru_inputs, "GRU, iterating an array", TraceSpec(("xs",), "params")),
    Model("transformer_block", transformer_block, block_inputs, "class with weight attributes", X),
    Model("embed_mean_pool", embed_mean_pool, embed_inputs, "integer-array indexing", TraceSpec(("tokens",))),
    Model("cross_entropy", cross_entropy, ce_inputs, "loss with fancy indexing", TraceSpec(("logits", "labels"))),
    Model("residual_closure", None, closure_inputs, "weights in a closure", X, make_fn=residual_closure),
    Model("global_weights", global_weights, global_inputs, "weights and flags in globals", X),
    Model("swiglu_mlp", swiglu_mlp, swiglu_inputs, "gated MLP", XP),
    Model("batchnorm_infer", batchnorm_infer, batchnorm_inputs, "BatchNorm, stats in a dict", TraceSpec(("x",), "stats")),
    Model("sinusoidal_positions", sinusoidal_positions, positions_inputs, "aranges and concatenate", X),
    Model("mixer_block", mixer_block, mixer_inputs, "token/channel mixing via .T", XP),
]
