"""Real-code idioms of issue 27, one model each (Table 1's real-code section counts them with real_code.py's):
the shapes in which public NumPy model code (numpy-ml's scalar log-sum-exp and validators, a from-scratch CNN's patch splits, n-body and lattice-Boltzmann
simulations, k-means with an argmax index, optimizers keeping state in dicts and namespaces, stdlib helpers)
used to break capture. Written for this corpus in our own words; nothing is copied. Imports numpy and the
standard library only."""

from __future__ import annotations

import copy
import statistics
import types
from operator import itemgetter

import numpy as np

from . import Model

SIZES = {"small": 8, "large": 256}


def _rng(seed: int, salt: int) -> np.random.Generator:
    return np.random.default_rng(2700 + 100 * salt + seed)


def _x(size: str, seed: int, salt: int = 0) -> np.ndarray:
    n = SIZES[size]
    return _rng(seed, salt).standard_normal((n, 6))


def x_only(size, seed):
    return (_x(size, seed),)


# ---- numpy-ml: log-sum-exp over 0-d values, max() over a row, validators ---------------------------------

def logsumexp_rows(x):
    out = []
    for row in x[:4]:
        m = max(row)                                  # the builtin over an array: NumPy scalars
        out.append(m + np.log(np.sum(np.exp(row - m))))
    return np.stack(out)


def checked_softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-6)
    return p, np.allclose(p.sum(axis=1), 1.0), np.array_equal(p > 0, np.ones_like(p, dtype=bool))


# ---- a from-scratch CNN: patches by hsplit/vsplit, joins of one ndarray, rows stacked by np.array -------

def patch_means(img):
    quads = [np.vsplit(half, 2) for half in np.hsplit(img[:, :6], 2)]
    feats = np.array([[q.mean() for q in col] for col in quads])
    cube = np.stack([img, img * 2.0, img * 3.0])
    return feats, np.concatenate(cube, axis=-1)


def rows_of_features(x):
    rows = []
    for i in range(70):                               # longer than unroll_limit
        rows.append(x[i % x.shape[0]] * (i + 1))
    return np.array(rows).sum(axis=0)


# ---- n-body: inverse cube distances updated through a mask -----------------------------------------------

def nbody_accel(pos, mass):
    dx = pos[:, 0:1].T - pos[:, 0:1]
    dy = pos[:, 1:2].T - pos[:, 1:2]
    inv_r3 = dx ** 2 + dy ** 2 + 0.01
    inv_r3[inv_r3 > 0.05] = inv_r3[inv_r3 > 0.05] ** (-1.5)
    return (dx * inv_r3) @ mass, (dy * inv_r3) @ mass


def bodies(size, seed):
    n = SIZES[size]
    return _rng(seed, 1).standard_normal((n, 3)), _rng(seed, 2).random((n, 1))


# ---- lattice Boltzmann: streaming by np.roll over small global int arrays, masked boundary rows -------------

LBM_IDX = np.arange(5)
LBM_CX = np.array([0, 1, 0, -1, 0])
LBM_CY = np.array([0, 0, 1, 0, -1])


def lbm_stream(F, obstacle):
    for i, cx, cy in zip(LBM_IDX, LBM_CX, LBM_CY):
        F[:, :, i] = np.roll(F[:, :, i], cx, axis=1)
        F[:, :, i] = np.roll(F[:, :, i], cy, axis=0)
    boundary = F[obstacle, :]
    F[obstacle, :] = boundary[:, ::-1]
    return F.sum(axis=2)


def lattice(size, seed):
    n = SIZES[size]
    F = _rng(seed, 3).random((n, n, 5))
    yy, xx = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    return F, (xx - n / 2) ** 2 + (yy - n / 2) ** 2 < (n / 4) ** 2


# ---- k-means with an int from argmax; sliding windows -------------------------------------------------------

def nearest_column(x, v):
    k = int(np.argmax(v))
    return x[:, k] * 2.0, np.roll(v, k), x[k % x.shape[0]]


def x_and_v(size, seed):
    return _x(size, seed), _rng(seed, 4).standard_normal(6)


def window_sums(x, n):
    flat = x.ravel()
    sums = [flat[i:i + n].sum() for i in range(4)]
    view = np.lib.stride_tricks.sliding_window_view(flat[:12], 3)
    return np.array(sums), view.mean(axis=1)


def x_and_width(size, seed):
    return _x(size, seed), 2 + seed % 5


# ---- everyday NumPy beyond the basics ---------------------------------------------------------------------

def binned_features(x):
    padded = np.pad(x, 1, mode="reflect")
    bins = np.digitize(x[:, 0], np.array([-1.0, 0.0, 1.0]))
    counts = np.bincount(bins, minlength=4)
    gram = np.einsum("...i,...i->...", x, x)
    ends = np.r_[x[0], 0.0, x[-1]]
    cols = np.c_[x[:, 0], x[:, 1]]
    return padded, counts, gram, ends, cols


# ---- optimizers keeping state in a dict copied per step and in a namespace ----------------------------------

def adam_like_step(state, grad):
    new = copy.deepcopy(state)
    new["m"] = 0.9 * new["m"] + 0.1 * grad
    new["v"] = 0.999 * new["v"] + 0.001 * grad * grad
    new["w"] -= 0.01 * new["m"] / (np.sqrt(new["v"]) + 1e-8)
    new["t"] += 1
    return new


def adam_state(size, seed):
    w = _x(size, seed)
    return {"w": w, "m": np.zeros_like(w), "v": np.zeros_like(w), "t": 0}, _x(size, seed, 5)


def namespace_momentum(opt, w, grad):
    opt.velocity = opt.momentum * opt.velocity - opt.lr * grad
    opt.steps += 1
    return w + opt.velocity


def momentum_state(size, seed):
    w = _x(size, seed)
    opt = types.SimpleNamespace(lr=0.05, momentum=0.9, velocity=np.zeros_like(w), steps=0)
    return opt, w, _x(size, seed, 6)


# ---- stdlib helpers: statistics over a list, itemgetter keys -------------------------------------------------

def ranked_columns(x):
    scores = [(float(i), i) for i in range(x.shape[1])]
    order = [i for _, i in sorted(scores, key=itemgetter(0), reverse=True)]
    return x[:, order], statistics.mean([1.0, 2.0, 4.0]) * x.sum()


MODELS = [
    Model("rc_logsumexp_rows", logsumexp_rows, x_only, "real code: numpy-ml log-sum-exp with max() over rows"),
    Model("rc_checked_softmax", checked_softmax, x_only, "real code: validators (assert_allclose, allclose, array_equal)"),
    Model("rc_patch_means", patch_means, x_only, "real code: CNN patches by hsplit/vsplit, concatenate of a 3-d array"),
    Model("rc_rows_of_features", rows_of_features, x_only, "real code: np.array of 70 rows built in a loop"),
    Model("rc_nbody_accel", nbody_accel, bodies, "real code: n-body, x[mask] = x[mask] ** -1.5"),
    Model("rc_lbm_stream", lbm_stream, lattice, "real code: lattice Boltzmann, np.roll by zip over int arrays"),
    Model("rc_nearest_column", nearest_column, x_and_v, "real code: int(np.argmax) as an index and a shift"),
    Model("rc_window_sums", window_sums, x_and_width, "real code: sliding windows x[i:i + n], sliding_window_view"),
    Model("rc_binned_features", binned_features, x_only, "real code: pad reflect, digitize, bincount, einsum ..., r_/c_"),
    Model("rc_adam_like_step", adam_like_step, adam_state, "real code: optimizer state dict, copy.deepcopy per step"),
    Model("rc_namespace_momentum", namespace_momentum, momentum_state, "real code: optimizer state in a SimpleNamespace"),
    Model("rc_ranked_columns", ranked_columns, x_only, "real code: sorted(key=itemgetter), statistics.mean"),
]
