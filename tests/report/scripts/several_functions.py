"""A small program with several compiled functions, for `python -m minidynamo report` tests: a whole
graph, a print that breaks, a data-dependent branch taken both ways, a recompile on a new shape, and a
loop of Python floats. Its first argument scales the inputs; it prints what it computed."""

import sys

import numpy as np

import minidynamo as md

scale = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0


@md.compile
def layer(x, w):
    return np.tanh(x @ w) + x


@md.compile
def noisy(x):
    y = x * 2.0
    print("noisy: halfway")
    return y.sum()


@md.compile
def clamp(x, limit):
    if np.abs(x).max() > limit:
        return np.clip(x, -limit, limit)
    return x


@md.compile
def shrink(x):
    n = 0
    while float(np.abs(x).max()) > 1.0:
        x = x * 0.5
        n += 1
    return x, n


x = np.linspace(-1.0, 1.0, 12).reshape(3, 4) * scale
w = np.eye(4)
layer(x, w)
layer(x, w)
layer(np.ones((5, 4)), w)
noisy(x)
clamp(x, 0.5)
clamp(x * 0.1, 0.5)
print("shrink:", shrink(x * 10.0)[1])
