"""The benchmark corpus is well-formed: every model builds seeded inputs at both sizes' small end, runs eagerly,
and its declared trace inputs and other-branch builder fit its signature. Times nothing (benchmarks/ does)."""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import pathlib

import numpy as np
import pytest

from benchmarks.corpus import MODELS, SIZES
from benchmarks.public_models import SOURCES as PUBLIC_SOURCES

NAMES = [m.name for m in MODELS]


def test_corpus_size_and_unique_names():
    assert len(MODELS) >= 40
    assert len(set(NAMES)) == len(NAMES)


@pytest.mark.parametrize("model", MODELS, ids=NAMES)
def test_model_runs_eagerly_on_small_inputs(model):
    fn = model.function("small")
    with contextlib.redirect_stdout(io.StringIO()):
        result = fn(*model.build("small", 0))
        if model.other is not None:
            fn(*model.other("small", 1))
    assert result is not None


@pytest.mark.parametrize("model", MODELS, ids=NAMES)
def test_inputs_are_seeded(model):
    def arrays(value):
        if isinstance(value, np.ndarray):
            return [value]
        if isinstance(value, dict):
            return [a for v in value.values() for a in arrays(v)]
        if isinstance(value, (list, tuple)):
            return [a for v in value for a in arrays(v)]
        return []

    first, again = arrays(model.build("small", 0)), arrays(model.build("small", 0))
    assert first and len(first) == len(again)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))


@pytest.mark.parametrize("model", [m for m in MODELS if m.trace is not None],
                         ids=[m.name for m in MODELS if m.trace is not None])
def test_trace_spec_names_array_arguments(model):
    params = list(inspect.signature(model.function("small")).parameters)
    args = model.build("small", 0)
    for name in model.trace.inputs:
        assert type(args[params.index(name)]) is np.ndarray, name
    if model.trace.params is not None:
        assert isinstance(args[params.index(model.trace.params)], dict)


def test_sizes_declared():
    assert SIZES == ("small", "large")


def test_tracing_versus_scripting_rows_for_the_seed_examples():
    """The seed's comparison: trace follows one path (wrong or refused on the other), script and compile keep
    both (compile folds the branch and the loop into nodes, or breaks with auto_cond off). Times nothing."""
    from benchmarks import scripting_table as st
    rows = {m.name: {fe: st.run(fe, m, 60.0) for fe in st.FRONT_ENDS} for m in st.SEED_EXAMPLES}
    cond, loop = rows["seed:conditional_op"], rows["seed:newton_loop"]
    assert not cond["trace:error"].outcome.captured
    assert cond["trace:specialize"].outcome.captured and not cond["trace:specialize"].outcome.equal
    assert not loop["trace:specialize"].outcome.equal
    for program in rows.values():
        for fe in ("script", "compile", "compile:no-auto_cond", "LazyRunner"):
            assert program[fe].outcome.captured and program[fe].outcome.equal, fe
    assert cond["compile"].folded == 1 and cond["compile"].outcome.breaks == 0
    assert cond["compile:no-auto_cond"].outcome.breaks == 1 and loop["compile"].folded == 1


def test_guard_cost_variants_are_made_from_the_dispatchers_own_source():
    """benchmarks/guard_cost.py rewrites the settled dispatcher's text: it must still find the guard, and each
    variant must take the entry (the same result as the dispatcher) on the call it times. Times nothing."""
    import minidynamo as md
    from benchmarks import guard_cost
    from benchmarks.sizes import Recurrent
    layer = Recurrent(1, 16)
    cstep = md.compile(Recurrent.step)
    x = np.random.default_rng(0).random((1, 16))
    for _ in range(4):
        cstep(layer, x)
    fns = guard_cost.variants(cstep)
    assert set(fns) == {"compiled", "type checks only", "no guard"}
    for name, fn in fns.items():
        before = len(layer.derived_variables["C"])
        out = fn(layer, x)
        assert out is not None and out is layer.h and len(layer.derived_variables["C"]) == before + 1, name


def test_model_style_cases_run_and_reseed():
    """benchmarks/corpus/model_styles.py: each case builds, runs eagerly, and its fresh() reseeds the random
    streams, so two calls on fresh inputs do the same work. Times nothing."""
    from benchmarks.corpus.model_styles import CASES
    assert len({c.name for c in CASES}) == len(CASES) >= 12
    for case in CASES:
        fn, fresh = case.build()
        first, again = fn(*fresh()), fn(*fresh())
        assert repr(first) == repr(again), case.name


def test_real_code_causes_count_driven_pieces():
    """benchmarks/causes.py on a loop that breaks every iteration: one body call per iteration, no recompile."""
    import minidynamo as md
    from benchmarks import causes

    def loop(x):
        total = 0.0
        for i in range(x.shape[0]):
            if x[i] > 0.5:
                total += 1.0
        return total
    cfn = md.compile(loop)
    x = np.linspace(0, 1, 9)
    cfn(x)
    found = causes.measure(cfn, lambda: cfn(x))
    assert found.captures == 0 and found.piece_calls >= 9 and "piece calls" in found.text(1000.0)


def test_real_code_causes_count_only_temporaries_a_local_holds():
    """A large one-use operand that graph code writes inside its reader's expression is handed over as in
    eager code (NumPy reuses its buffer): not an extra allocation. One computed before a statement (a
    subscript assignment) is held by a local until its reader runs."""
    import minidynamo as md
    from benchmarks import causes

    def chained(a, b, c):
        return a * b * c + b

    def across_a_write(a, b, c):
        t = a * b
        c[0] = 1.0
        return t + b
    a = np.ones((256, 256))
    for fn, args, expected in ((chained, (a, a, a), 0), (across_a_write, (a, a, np.zeros(3)), 1)):
        cfn = md.compile(fn)
        cfn(*args)
        found = causes.measure(cfn, lambda: cfn(*args))
        assert found.fresh_temps == expected, (fn.__name__, found)


def test_one_blas_thread_sets_numpys_blas():
    from benchmarks.timing import one_blas_thread
    a = np.ones((300, 300))
    assert one_blas_thread()             # the wheels' OpenBLAS is found and set
    assert (a @ a == 300.0).all()


def test_capture_time_sees_every_capture_of_a_case():
    """benchmarks/capture_time.py sums the captures a case's calls make (resume functions and loop bodies
    too) and checks the results against eager; the reported slow cases run. Times nothing."""
    from benchmarks import capture_time
    cases = {c.name: c for c in capture_time.corpus_cases() if c.suite == "issue"}
    assert set(cases) == {"newton_sqrt", "newton_sqrt_const", "lenet5_step"}
    _, timed, equal = capture_time.run_case(cases["newton_sqrt"], check=True)
    assert equal and [record.work["passes"] for record, _ in timed] == [1]
    fuzz = capture_time.fuzz_cases(range(208, 209))[0]     # breaks: resume functions are captured too
    _, timed, equal = capture_time.run_case(fuzz, check=True)
    assert equal and len(timed) > 3 and all(seconds >= 0 for _, seconds in timed)


def test_real_code_parts_of_a_split_run_render_as_one_table(tmp_path, capsys):
    """benchmarks/real_code.py --rows-out saves a part's rows; --from renders them (ratios, causes, errors)
    without timing anything. (--only keeps both runs from writing results/real_code.md.)"""
    from benchmarks import real_code
    from benchmarks.timing import Spread
    rows = [real_code.Row("npbench/S/adi", 2e6, Spread(1.01, 0.99, 1.05, 7), "—"),
            real_code.Row("npbench/M/spmv", float("nan"), None, "", "inputs not built: ImportError: scipy"),
            real_code.Row("models/random_walk", 4e5, Spread(0.98, 0.97, 1.0, 15), "1 loop nest(s) run as plain")]
    part = tmp_path / "a.json"
    real_code.save_rows(rows, str(part))
    again = real_code.load_rows([str(part)])
    assert [(r.key, r.ratio, r.causes, r.error) for r in again] == [(r.key, r.ratio, r.causes, r.error) for r in rows]
    stats = real_code.main(argv=["--from", str(part), "--only", "none"])
    assert stats["npbench/S"]["geomean"] == 1.01 and stats["npbench/M"]["failed"] == 1
    assert "inputs not built" in capsys.readouterr().out


def test_public_models_comparison_is_bit_for_bit():
    """benchmarks/public_models.py's comparison: -0.0 is not 0.0, NaNs of the same bits agree, dtypes,
    object attributes and dict order count. Needs no public source."""
    from benchmarks.public_models import difference

    class Box:
        def __init__(self, v):
            self.v = v

    assert difference(np.array([0.0]), np.array([-0.0])) and difference(-0.0, 0.0)
    assert not difference(np.array([np.nan]), np.array([np.nan])) and not difference(float("nan"), float("nan"))
    assert difference(np.ones(2, np.float32), np.ones(2))
    assert difference(Box(np.ones(2)), Box(np.zeros(2))).startswith("the result.__dict__")
    assert difference({"a": 1, "b": 2}, {"b": 2, "a": 1}) and not difference((Box(1), [2.5]), (Box(1), [2.5]))


def test_public_models_table_counts_breaks_graphs_and_wrong_results(tmp_path, monkeypatch):
    from benchmarks import public_models as pm, report
    monkeypatch.setattr(report, "RESULTS", tmp_path)
    rows = [pm.Result("a", "mlfs", correct=True, graphs=1),
            pm.Result("b", "nml", correct=True, graphs=2, breaks=1, reasons=["[MD0009] branch on x"]),
            pm.Result("c", "p2n", correct=False, mismatch="warm call: the result: values differ", graphs=1),
            pm.Result("d", "hn", error="not built: ImportError: x")]
    t = pm.totals(rows)
    assert (t["ran"], t["no_break"], t["wrong"], t["not_run"]) == (3, 2, 1, 1)
    assert t["graphs_per_case"] == 4 / 3 and t["codes"] == {"[MD0009]": 1}
    text = pm.render(rows, quick=True)
    assert "2/3 (67%)" in text and "[MD0009] branch on x" in text and (tmp_path / "quick" / "public_models.md").exists()


PUBLIC = pathlib.Path(os.environ.get("MINIDYNAMO_PUBLIC_MODELS", "/tmp/public"))


@pytest.mark.skipif(not all((PUBLIC / s.folder / s.paths).exists() for s in PUBLIC_SOURCES.values()),
                    reason="the public model sources are not exported (see benchmarks/public_models.py)")
@pytest.mark.parametrize("name", ["mlfs_adam", "nml_is_stochastic", "p2n_random_walk_fastest", "sph_density",
                                  "hn_bn_forward", "cnn_maxpool"])
def test_public_model_cases_load_and_agree(name):
    """A few cases of each kind run through the harness as the table does: loaded with the shims, eager and
    compiled bit for bit."""
    from benchmarks import public_models as pm
    case = next(c for c in pm.CASES if c.name == name)
    result = pm.run_case(case, pm.Loader(PUBLIC))
    if result.error.startswith("not built: ModuleNotFoundError"):    # the public code's own dependency (scipy)
        pytest.skip(f"{name}: {result.error}")
    assert not result.error and result.correct, (result.error, result.mismatch)
    assert result.graphs >= 1


def test_jax_npbench_parts_render_with_targets_and_the_hand_written_column(tmp_path, capsys):
    """benchmarks/jax_npbench.py: rows saved by a part (--rows-out) render through --from, timing nothing:
    the geomean target, the kernels above 1.1x, the hand-written JAX column, failed rows. (--only keeps the
    run from writing results/jax_npbench.md.)"""
    from benchmarks import jax_npbench
    from benchmarks.timing import Spread
    rows = [jax_npbench.Row("adi", 9.5, Spread(0.5, 0.45, 0.55, 7), Spread(0.2, 0.2, 0.2, 7), 1.5, 1e-15, "9/9"),
            jax_npbench.Row("mvt", 20.0, Spread(1.2, 1.1, 1.3, 7), None, 0.3, 0.0, "2/4"),
            jax_npbench.Row("spmv", error="inputs not built: ImportError: scipy")]
    part = tmp_path / "part.json"
    jax_npbench.save_rows(rows, str(part))
    again = jax_npbench.main(argv=["--from", str(part), "--only", "none"])
    assert [(r.name, r.compiled, r.hand) for r in again] == [(r.name, r.compiled, r.hand) for r in rows]
    out = capsys.readouterr().out
    assert "0.775 (1.29x faster) over 2 kernels | FAIL" in out      # sqrt(0.5 * 1.2)
    assert "1 above: mvt; worst 1.20 (mvt)" in out and "failed rows: 1" in out
    assert "| adi | 9.500 | 0.50 (IQR 0.45–0.55) | 0.200 | 1.50 | 1.0e-15 | 9/9 |" in out


def test_jax_npbench_relative_error_is_exact_for_integers_and_scaled_for_floats():
    from benchmarks.jax_npbench import rel_error
    assert rel_error([np.array([1, 2])], [np.array([1, 2])]) == 0.0
    assert rel_error([np.array([1, 2])], [np.array([1, 3])]) == float("inf")
    assert rel_error([np.array([100.0, 1.0])], [np.array([100.0, 1.5])]) == 0.005
    assert rel_error([np.array([1.0, np.nan])], [np.array([1.0, 2.0])]) == float("inf")
    assert rel_error([np.zeros((2, 2))], [np.zeros(4)]) == float("inf")
