"""Programs whose captures were reported slow (issue 28): the Newton iteration over a float32 array, with
its array an argument and made inside the function from constants (a value capture computes on the side,
benchmarks/capture_time.py), and one LeNet-5 training step (convolutions by im2col over kernel offsets,
max pooling by reshape, softmax cross-entropy, backward pass and an in-place SGD update). Not part of
MODELS (table1's corpus): capture_time.py times their captures and checks their results against eager.
Imports numpy only.
"""

from __future__ import annotations

import numpy as np


def newton_sqrt(g):
    z = g.copy()
    k = 0
    while np.abs(z * z - g).max() > 1e-8 and k < 22:
        z = 0.5 * (z + g / z)
        k += 1
    return z, k


def newton_sqrt_const():
    return newton_sqrt(np.array([2.0, 3.0, 5.0, 7.0], dtype=np.float32))    # (inlined by capture)


def newton_inputs(seed: int) -> tuple:
    return (np.random.default_rng(seed).uniform(1.0, 9.0, 4).astype(np.float32),)


# ---- LeNet-5 ------------------------------------------------------------------------------------------------

def conv_forward(x, w, b):
    n, c, h, wd = x.shape
    f, _, k, _ = w.shape
    ho, wo = h - k + 1, wd - k + 1
    cols = np.empty((n, c, k, k, ho, wo), dtype=x.dtype)
    for i in range(k):
        for j in range(k):
            cols[:, :, i, j, :, :] = x[:, :, i:i + ho, j:j + wo]
    out = np.tensordot(cols, w, axes=([1, 2, 3], [1, 2, 3]))        # (n, ho, wo, f)
    return out.transpose(0, 3, 1, 2) + b[None, :, None, None], cols


def conv_backward(dout, cols, x_shape, w):
    f, c, k, _ = w.shape
    dw = np.tensordot(dout, cols, axes=([0, 2, 3], [0, 4, 5]))      # (f, c, k, k)
    db = dout.sum(axis=(0, 2, 3))
    dcols = np.tensordot(dout, w, axes=([1], [0]))                   # (n, ho, wo, c, k, k)
    dx = np.zeros(x_shape, dtype=dout.dtype)
    ho, wo = dout.shape[2], dout.shape[3]
    for i in range(k):
        for j in range(k):
            dx[:, :, i:i + ho, j:j + wo] += dcols[:, :, :, :, i, j].transpose(0, 3, 1, 2)
    return dx, dw, db


def pool_forward(x):
    n, c, h, w = x.shape
    blocks = x.reshape(n, c, h // 2, 2, w // 2, 2)
    out = blocks.max(axis=(3, 5))
    mask = blocks == out[:, :, :, None, :, None]
    return out, mask


def pool_backward(dout, mask):
    n, c, h, _, w, _ = mask.shape
    d = mask * dout[:, :, :, None, :, None]
    return d.reshape(n, c, h * 2, w * 2)


def lenet5_step(params, x, labels, lr=0.01):
    """Forward, loss, backward and SGD for one batch; the parameters are updated in place."""
    c1, cols1 = conv_forward(x, params["w1"], params["b1"])
    a1 = np.maximum(c1, 0)
    p1, m1 = pool_forward(a1)
    c2, cols2 = conv_forward(p1, params["w2"], params["b2"])
    a2 = np.maximum(c2, 0)
    p2, m2 = pool_forward(a2)
    flat = p2.reshape(x.shape[0], -1)
    h3 = np.maximum(flat @ params["w3"] + params["b3"], 0)
    h4 = np.maximum(h3 @ params["w4"] + params["b4"], 0)
    logits = h4 @ params["w5"] + params["b5"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    probs = np.exp(shifted) / np.exp(shifted).sum(axis=1, keepdims=True)
    n = x.shape[0]
    loss = -np.log(probs[np.arange(n), labels]).mean()
    d = probs.copy()
    d[np.arange(n), labels] -= 1
    d /= n
    grads = {"w5": h4.T @ d, "b5": d.sum(axis=0)}
    dh4 = (d @ params["w5"].T) * (h4 > 0)
    grads["w4"], grads["b4"] = h3.T @ dh4, dh4.sum(axis=0)
    dh3 = (dh4 @ params["w4"].T) * (h3 > 0)
    grads["w3"], grads["b3"] = flat.T @ dh3, dh3.sum(axis=0)
    dp2 = (dh3 @ params["w3"].T).reshape(p2.shape)
    da2 = pool_backward(dp2, m2) * (c2 > 0)
    dp1, grads["w2"], grads["b2"] = conv_backward(da2, cols2, p1.shape, params["w2"])
    da1 = pool_backward(dp1, m1) * (c1 > 0)
    _, grads["w1"], grads["b1"] = conv_backward(da1, cols1, x.shape, params["w1"])
    for name in params:
        params[name] -= lr * grads[name]
    return loss


def lenet5_inputs(seed: int) -> tuple:
    rng = np.random.default_rng(5)
    shapes = {"w1": (6, 1, 5, 5), "b1": (6,), "w2": (16, 6, 5, 5), "b2": (16,), "w3": (256, 120),
              "b3": (120,), "w4": (120, 84), "b4": (84,), "w5": (84, 10), "b5": (10,)}
    params = {k: rng.standard_normal(s) * (0.1 if k[0] == "w" else 0.01) for k, s in shapes.items()}
    data = np.random.default_rng(seed)
    return params, data.standard_normal((4, 1, 28, 28)), data.integers(0, 10, 4)


# (name, function, inputs(seed)) for capture_time.py
CASES = [("newton_sqrt", newton_sqrt, newton_inputs), ("newton_sqrt_const", newton_sqrt_const, lambda seed: ()),
         ("lenet5_step", lenet5_step, lenet5_inputs)]
