"""Writes through boolean masks of any rank (`dinputs[inputs <= 0] = 0`, nnfs_book's ReLU backward): one
graph, whatever the True count; values whose fit depends on the count raise or break as eagerly."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import check


class ReLU:
    def forward(self, inputs):
        self.inputs = inputs
        return np.maximum(0, inputs)

    def backward(self, dvalues):
        self.dinputs = dvalues.copy()
        self.dinputs[self.inputs <= 0] = 0
        return self.dinputs


def masked_rows(x, v):
    x = x.copy()
    x[x > 0.5] = v                  # a value array fits only if its length is the True count
    return x


@pytest.mark.parametrize("shape", [(5,), (4, 6), (2, 3, 4)])
def test_relu_backward_is_one_graph(shape):
    rng = np.random.default_rng(0)
    layer = ReLU()

    def step(x, d):
        layer.forward(x)
        return layer.backward(d)

    check(step, rng.standard_normal(shape), rng.standard_normal(shape),
          calls=[(rng.standard_normal(shape), rng.standard_normal(shape)), (-np.ones(shape), np.ones(shape))])
    out = md.explain(step)(rng.standard_normal(shape), rng.standard_normal(shape))
    assert out.graph_count == 1 and out.graph_break_count == 0


def test_value_arrays_raise_or_fit_as_eagerly():
    x = np.array([[0.1, 0.9], [0.7, 0.2]])
    check(masked_rows, x, 5.0, calls=[(x, np.array([1.0, 2.0])), (x, np.array([1.0, 2.0, 3.0])),
                                      (x, np.array([7.0]))])
