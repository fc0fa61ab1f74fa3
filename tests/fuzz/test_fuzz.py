"""The CI-sized fuzz run: fixed seeds, a modest number of programs, every call compared eagerly vs compiled.

A failure message carries the program's seed, its features and a shrunk reproducer; rerun one seed with
`python -m tests.fuzz.runner --count 1 --seed SEED --shrink` (see tests/fuzz/README.md).
"""

from __future__ import annotations

import pytest

from . import generator as gen
from . import runner

CHUNKS = 5
PER_CHUNK = 30          # 150 programs, 5 calls each


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fuzz_chunk(chunk):
    failures = []
    for seed in range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK):
        program = gen.generate(seed)
        mismatches = runner.compare(program.source, runner.program_calls(program))
        if mismatches:
            failures.append((program, mismatches[0]))
    if failures:
        program, first = failures[0]
        source, _ = runner.shrink(program.source, runner.program_calls(program), first.signature, budget=200)
        pytest.fail(f"{len(failures)} of {PER_CHUNK} programs differ; first: seed {program.seed}, features "
                    f"{sorted(program.features)}\n{first}\nshrunk reproducer:\n{source}")


def test_generator_is_reproducible():
    a, b = gen.generate(123), gen.generate(123)
    assert a.source == b.source and a.calls == b.calls and a.features == b.features
    compile(a.source, "<fuzz>", "exec")


def test_features_switch_off():
    for seed in range(20):
        program = gen.generate(seed, features=("ufunc", "reduce"))
        assert program.features <= {"ufunc", "reduce"}
        assert "print(" not in program.source and "global " not in program.source


def test_every_program_is_called_with_five_sizes_or_more_one_included():
    # issue 10's done-when: the size sweep (gen_sizes.py) reaches every program drawn with default features
    for seed in range(300):
        program = gen.generate(seed)
        firsts = {spec.shape[0] for spec in program.calls}
        assert len(firsts) >= 5 and 1 in firsts, (seed, [spec.shape for spec in program.calls])


def test_a_required_feature_is_in_every_program_and_its_statement_in_f():
    # `--require fori` (tests/fuzz/README.md): 2,000 programs that each fold a loop, not the 1 in 6 drawn
    for seed in range(40):
        program = gen.generate(seed, features=("ufunc", "fori"), require="fori")
        assert "fori" in program.features
        f_body = program.source.split("def f(", 1)[1]
        assert "for i" in f_body and " = np.zeros(x.shape[0])" in f_body, seed
        compile(program.source, "<fuzz>", "exec")
    plain = [gen.generate(seed, features=("ufunc", "fori")) for seed in range(40)]
    assert sum("for i" not in p.source for p in plain) > 5        # without it, many programs have none


def test_the_shrinker_cuts_programs_with_conditional_expressions_and_lambdas(monkeypatch):
    # IfExp.body / Lambda.body are expressions, not statement lists: the shrinker crashed on them
    # ("'Constant' object is not iterable") whenever it had a failing program to shrink
    source = ("import numpy as np\n\ndef f(x):\n    k = 1 if x.shape[0] > 2 else 0\n    g = lambda v: v + 1\n"
              "    y = np.sin(x) * 2\n    z = g(y) if k else y\n    return np.cos(z) + k\n")
    failing = ("result", "r")

    def fake_compare(src, make_calls, strict=True, **kw):
        return [runner.Mismatch(0, *failing, "differs")] if "np.sin" in src else []

    monkeypatch.setattr(runner, "compare", fake_compare)
    shrunk, calls = runner.shrink(source, lambda: [(1,), (2,)], failing, budget=200)
    assert "np.sin" in shrunk and len(shrunk) < len(source) and "lambda" not in shrunk
    assert len(calls()) == 1


def test_the_default_draw_has_issue_27s_idioms_and_the_old_draw_has_none():
    # generator.ROUND3 joined the default draw; generator.FEATURES (benchmarks/capture_time.py) stays without
    drawn = set().union(*(gen.generate(seed).features for seed in range(40)))
    assert set(gen.ROUND3) <= drawn
    assert not set(gen.ROUND3) & set().union(*(gen.generate(seed, gen.FEATURES).features for seed in range(40)))
    for feature in gen.ROUND3:
        compile(gen.generate(7, require=feature).source, "<fuzz>", "exec")
