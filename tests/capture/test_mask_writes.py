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


def reciprocal_where_positive(r, values, log):
    r *= 2.0                        # a visible write before the masked one: a raise must leave eager's state
    log.append(r.sum())
    r[r > 0] = values
    return r


def test_a_value_array_of_any_length_is_written_in_the_graph():
    """`x[mask] = values` with a 1-d values array (nbody's `r[r > 0] = r[r > 0] ** -1.5` once its getitem
    broke): one graph; the run compares the True count with len(values) before writing, so a mismatch
    raises eager's ValueError and leaves eager's writes (the doubled r, the appended sum)."""
    r = np.array([[0.5, -1.0], [2.0, 0.0]])
    check(reciprocal_where_positive, r, np.array([1.0, 3.0]), [],
          calls=[(r, np.array([1.0, 2.0, 3.0]), []), (-r, np.array([4.0]), [1]), (r * 0, np.zeros(0), []),
                 (r, np.arange(2), [])])
    explained = md.explain(masked_rows)(r + 1.0, np.arange(3.0))
    assert explained.graph_count == 1 and explained.graph_break_count == 0
