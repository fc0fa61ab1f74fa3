"""Whole models through `minidynamo.compile`: bit-identical to eager NumPy, captured as one graph.

The corpus is tests/programs/models.py (real model code: MLP, attention, norms, im2col convolution, k-means,
a transformer block object, closures, globals) and tests/programs/lecture_compile.py (the tracing lecture's
`gelu_mlp` and layer loop). A model that falls back to eager would still return the right numbers, so the
`explain` tests (one graph, no break) are what proves the capture actually happened.
"""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest

import minidynamo as md
from tests.programs import lecture_compile as lecture
from tests.programs.models import MODELS, Model
from tests.conftest import assert_same

LECTURE = [Model("lecture_gelu_mlp", lecture.gelu_mlp, lecture.gelu_inputs),
           Model("lecture_layer_stack", lecture.layer_stack, lecture.stack_inputs)]
ALL = MODELS + LECTURE


def assert_identical(got, expected, where="result"):
    """Same type; arrays with the same dtype, shape and bits; containers item by item (conftest's rule)."""
    assert_same(expected, got, where)


def assert_inputs_unchanged(after, before):
    """The model must not write into its inputs (compared as arrays, recursively through containers)."""
    for a, b in zip(after, before):
        if isinstance(b, np.ndarray):
            assert np.array_equal(a, b), "an input array was modified"
        elif isinstance(b, (dict, list, tuple)):
            assert_inputs_unchanged(list(a.values()) if isinstance(a, dict) else a,
                                    list(b.values()) if isinstance(b, dict) else b)
        elif hasattr(b, "__dict__"):
            assert_inputs_unchanged(list(vars(a).values()), list(vars(b).values()))


def ids(models):
    return [m.name for m in models]


# ---- every model ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model", ALL, ids=ids(ALL))
def test_compiled_equals_eager(model):
    compiled = md.compile(model.fn)
    for seed in range(3):
        expected = model.fn(*model.make_inputs(seed))
        args = model.make_inputs(seed)
        pristine = copy.deepcopy(args)
        assert_identical(compiled(*args), expected, f"{model.name} seed {seed}")
        assert_inputs_unchanged(args, pristine)


@pytest.mark.parametrize("model", ALL, ids=ids(ALL))
def test_one_graph_no_break(model):
    out = md.explain(model.fn)(*model.make_inputs(0))
    assert out.graph_break_count == 0, str(out)
    assert out.graph_count == 1, str(out)
    assert out.op_count > 0


@pytest.mark.parametrize("model", ALL, ids=ids(ALL))
def test_new_values_same_shapes_reuse_the_capture(model):
    """Weights and inputs change between calls, shapes do not: one capture, later calls are cache hits."""
    compiled = md.compile(model.fn)
    for seed in range(3):
        compiled(*model.make_inputs(seed))
    s = md.stats(compiled)
    assert (s.captures, s.recompiles, s.hits) == (1, 0, 2), s


# ---- model-specific facts -----------------------------------------------------------------------------------

def _graph(fn, *args):
    out = md.explain(fn)(*args)
    assert (out.graph_count, out.graph_break_count) == (1, 0), str(out)
    return out.graphs[0]


def test_attention_graph_has_the_softmax_pieces():
    from tests.programs.models import attention, attention_inputs
    ops = _graph(attention, *attention_inputs(0)).ops()
    assert ops.get("exp") == 1 and ops.get("max") == 1 and ops.get("sum") == 1
    assert ops.get("matmul") == 5


def test_conv_unrolls_one_slice_per_output_pixel():
    from tests.programs.models import conv2d_im2col, conv_inputs
    g = _graph(conv2d_im2col, *conv_inputs(0))
    assert g.count("stack") == 1 and g.count("matmul") == 1
    assert g.count("getitem") == 9          # a 5x5 image and a 3x3 kernel give 3x3 output pixels


def test_transformer_block_reads_heads_from_the_config_object():
    from tests.programs.models import Config, TransformerBlock, transformer_block
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 8))
    compiled = md.compile(transformer_block)
    for heads in (2, 4):
        block = TransformerBlock(Config(d_model=8, n_heads=heads, d_ff=16), rng)
        assert_identical(compiled(block, x), transformer_block(block, x))
    assert md.stats(compiled).captures == 2          # cfg.n_heads is a guarded constant


def test_transformer_bound_method_compiles():
    from tests.programs.models import transformer_inputs
    block, x = transformer_inputs(0)
    compiled = md.compile(block.forward)
    assert_identical(compiled(x), block.forward(x))
    out = md.explain(block.forward)(x)
    assert (out.graph_count, out.graph_break_count) == (1, 0), str(out)


def test_changed_global_scalar_recaptures(monkeypatch):
    from tests.programs import models
    compiled = md.compile(models.embed_with_positions)
    args = models.globals_inputs(0)
    compiled(*args)
    monkeypatch.setattr(models, "POS_SCALE", 0.5)
    assert_identical(compiled(*args), models.embed_with_positions(*args))
    assert md.stats(compiled).captures == 2


# ---- the lecture's functions -------------------------------------------------------------------------------

def test_lecture_f_tanh_is_the_tanh_op():
    g = _graph(lecture.gelu_mlp, *lecture.gelu_inputs(0))
    assert g.count("tanh") == 1


def test_lecture_gelu_mlp_folds_the_sqrt():
    g = _graph(lecture.gelu_mlp, *lecture.gelu_inputs(0))
    assert "sqrt" not in g.ops()
    scale = math.sqrt(2.0 / math.pi)
    floats = [a for n in g.nodes if n.is_call for a in n.args if type(a) is float]
    assert scale in floats
    assert g.count("matmul") == 2


@pytest.mark.parametrize("n_layers, residual, matmuls, adds", [(1, True, 1, 1), (3, True, 3, 3), (3, False, 3, 0)])
def test_lecture_layer_loop_unrolls(n_layers, residual, matmuls, adds):
    x, p = lecture.stack_inputs(0)
    g = _graph(lecture.layer_stack, x, p, n_layers, residual)
    assert g.count("matmul") == matmuls
    assert g.count("add") == adds
    assert g.count("tanh") == n_layers
    assert g.count("reshape") == 2 and g.count("transpose") == 2


def test_lecture_layer_loop_flag_change_recaptures():
    compiled = md.compile(lecture.layer_stack)
    x, p = lecture.stack_inputs(1)
    for residual in (True, False, True):
        assert_identical(compiled(x, p, 3, residual), lecture.layer_stack(x, p, 3, residual))
    s = md.stats(compiled)
    assert s.captures == 2 and s.hits == 1


def test_lecture_layer_loop_new_shape_recaptures():
    """The lecture's point: a graph traced for [4, 8] must not run on [5, 8]; the guard sends it back."""
    compiled = md.compile(lecture.layer_stack)
    _, p = lecture.stack_inputs(2)
    for rows in (4, 5):
        x = np.random.default_rng(rows).standard_normal((rows, 8))
        assert_identical(compiled(x, p), lecture.layer_stack(x, p))
    s = md.stats(compiled)
    assert s.captures == 2
    assert any("x.shape[0]: expected 4, got 5" in r for r in s.guard_failures[0]), s.guard_failures
