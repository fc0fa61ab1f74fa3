"""Table 2, overhead: what a warm compiled call costs on top of eager NumPy.

(a) Tiny generated functions on [4, 8] float32 arrays, by number of array arguments (1, 4, 16) and number of
graph breaks (0, 1, 3; each break is an always-true `if` on an array value). (b) The target function
`np.tanh(x @ w) + x`. (c) The corpus: overhead as a percentage of eager time, for compile and LazyRunner.
Every ratio comes from interleaved rounds (timing.interleaved), never from two separate runs.
"""

from __future__ import annotations

import statistics

import numpy as np

import minidynamo as md

from .corpus import MODELS
from .frontends import lazy_call
from .report import NO_PLOTS, RESULTS, pyplot, table, write
from .timing import Progress, Spread, interleaved, quiet, ratios, time_limit

ARGS = (1, 4, 16)
BREAKS = (0, 1, 3)


def tiny_source(n_args: int, n_breaks: int) -> str:
    names = [f"a{i}" for i in range(n_args)]
    lines = [f"def tiny_{n_args}_{n_breaks}({', '.join(names)}):", "    s = np.tanh(a0)"]
    lines += [f"    s = s + {name}" for name in names[1:]]
    for _ in range(n_breaks):
        lines += ["    if s[0, 0] > -1e30:", "        s = s * 0.5"]
    lines.append("    return s")
    return "\n".join(lines) + "\n"


def make_tiny(n_args: int, n_breaks: int):
    namespace = {"np": np}
    exec(compile(tiny_source(n_args, n_breaks), f"<tiny_{n_args}_{n_breaks}>", "exec"), namespace)
    return namespace[f"tiny_{n_args}_{n_breaks}"]


def target_fn(x, w):
    return np.tanh(x @ w) + x


def warm_up(cfn, args, calls: int = 10) -> None:
    """Call until the steady state: a model whose guards fail on every call (a Python step counter that it
    increments itself) recompiles up to the cache size limit (8) and then runs eagerly."""
    for _ in range(calls):
        cfn(*args)


def compare_warm(fn, args, rounds: int, batch_ns: float) -> dict:
    cfn = md.compile(fn)
    warm_up(cfn, args)
    samples = interleaved({"eager": lambda: fn(*args), "compiled": lambda: cfn(*args)}, rounds, batch_ns)
    diffs = [c - e for c, e in zip(samples["compiled"], samples["eager"])]
    return {"eager": Spread.of(samples["eager"]), "compiled": Spread.of(samples["compiled"]),
            "overhead_ns": Spread.of(diffs), "ratio": Spread.of(ratios(samples["compiled"], samples["eager"])),
            "graphs": md.explain(fn)(*args).graph_count}


def tiny_table(rounds: int, batch_ns: float) -> tuple[list, dict]:
    rng = np.random.default_rng(0)
    progress = Progress("overhead", len(ARGS) * len(BREAKS) + 1)
    rows, grid = [], {}
    for n in ARGS:
        for b in BREAKS:
            args = tuple(rng.standard_normal((4, 8)).astype(np.float32) for _ in range(n))
            r = compare_warm(make_tiny(n, b), args, rounds, batch_ns)
            grid[(n, b)] = r
            rows.append([n, b, r["eager"].fmt(1e-3, unit=" µs"), r["compiled"].fmt(1e-3, unit=" µs"),
                         r["overhead_ns"].fmt(1e-3, unit=" µs"), r["ratio"].fmt(digits=2, unit="×"), r["graphs"]])
            progress.step(f"tiny function, {n} arrays, {b} breaks: +{r['overhead_ns'].median / 1e3:.2f} µs")
    x = rng.standard_normal((4, 8)).astype(np.float32)
    w = rng.standard_normal((8, 8)).astype(np.float32)
    grid["target"] = compare_warm(target_fn, (x, w), rounds * 2, batch_ns)
    progress.step(f"np.tanh(x @ w) + x: {grid['target']['ratio'].median:.2f}× eager")
    return rows, grid


def corpus_table(size: str, rounds: int, batch_ns: float, limit: float) -> list[dict]:
    progress = Progress("corpus", len(MODELS))
    out = []
    for m in MODELS:
        fn = m.function(size)
        entry = {"model": m.name}
        try:
            with quiet(), time_limit(limit):
                args = m.build(size, 0)
                cfn = md.compile(fn)
                warm_up(cfn, args)
                candidates = {"eager": lambda: fn(*args), "compile": lambda: cfn(*args)}
                try:
                    lazy_call(fn, args)
                    candidates["lazy"] = lambda: lazy_call(fn, args)
                except Exception as e:
                    entry["lazy_error"] = type(e).__name__
                samples = interleaved(candidates, rounds, batch_ns)
        except Exception as e:
            entry["error"] = f"{type(e).__name__}: {e}"[:120]
            out.append(entry)
            progress.step(f"{m.name}: skipped ({entry['error']})")
            continue
        entry["eager"] = Spread.of(samples["eager"])
        for name in ("compile", "lazy"):
            if name in samples:
                entry[name] = Spread.of([100 * (r - 1) for r in ratios(samples[name], samples["eager"])])
        out.append(entry)
        progress.step(f"{m.name}: eager {entry['eager'].median / 1e6:.3f} ms, compile "
                      f"{entry['compile'].median:+.1f}%" + (f", lazy {entry['lazy'].median:+.1f}%" if "lazy" in entry else ""))
    return out


def corpus_summary(entries: list[dict], key: str) -> dict:
    values = [(e[key].median, e["model"]) for e in entries if key in e]
    if not values:
        return {"n": 0}
    worst = max(values)
    return {"n": len(values), "median": statistics.median(v for v, _ in values), "worst": worst[0],
            "worst_model": worst[1]}


def plot(grid: dict, entries: list[dict]) -> str:
    plt = pyplot()
    if plt is None:
        return NO_PLOTS
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for b in BREAKS:
        med = [grid[(n, b)]["overhead_ns"].median / 1e3 for n in ARGS]
        lo = [med[i] - grid[(n, b)]["overhead_ns"].q1 / 1e3 for i, n in enumerate(ARGS)]
        hi = [grid[(n, b)]["overhead_ns"].q3 / 1e3 - med[i] for i, n in enumerate(ARGS)]
        axes[0].errorbar(ARGS, med, yerr=[lo, hi], marker="o", capsize=3, label=f"{b} graph breaks")
    axes[0].set(xscale="log", xlabel="array arguments", ylabel="warm overhead over eager (µs)",
                title="Tiny functions: compiled − eager per call")
    axes[0].set_xticks(ARGS, [str(a) for a in ARGS])
    axes[0].legend()
    names = [e["model"] for e in entries if "compile" in e]
    comp = [e["compile"].median for e in entries if "compile" in e]
    axes[1].bar(range(len(comp)), comp, label="compile")
    lazy = [e["lazy"].median if "lazy" in e else np.nan for e in entries if "compile" in e]
    axes[1].plot(range(len(lazy)), lazy, "r.", label="LazyRunner")
    axes[1].set(yscale="symlog", ylabel="overhead, % of eager time", title="Corpus: per-model overhead")
    axes[1].set_xticks(range(len(names)), names, rotation=90, fontsize=5)
    axes[1].legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "overhead.png", dpi=130)
    plt.close(fig)
    return "![overhead](overhead.png)"


def main(quick: bool) -> dict:
    rounds, batch = (9, 2e6) if quick else (21, 10e6)
    rows, grid = tiny_table(rounds, batch)
    size = "small" if quick else "large"
    entries = corpus_table(size, 5 if quick else 11, 2e6 if quick else 20e6, 60.0)
    comp, lazy = corpus_summary(entries, "compile"), corpus_summary(entries, "lazy")
    t = grid["target"]
    text = ["## (a) Tiny functions, warm call", "",
            table(["array args", "graph breaks", "eager", "compiled", "overhead", "compiled / eager", "graphs"], rows),
            "", "Arrays are float32 [4, 8]; the body is `tanh(a0) + a1 + ...`, and each graph break is an `if` on "
            "an array element that is always true. Median (IQR) over interleaved rounds.", "",
            "## (b) Target function `np.tanh(x @ w) + x` (x f32[4,8], w f32[8,8])", "",
            table(["eager", "compiled", "overhead", "compiled / eager"],
                  [[t["eager"].fmt(1e-3, unit=" µs"), t["compiled"].fmt(1e-3, unit=" µs"),
                    t["overhead_ns"].fmt(1e-3, unit=" µs"), t["ratio"].fmt(unit="×")]]), "",
            f"## (c) Corpus at {'small (quick run)' if quick else 'realistic (large)'} sizes: overhead as % of eager time",
            "", table(["front end", "models timed", "median overhead", "worst overhead (model)"],
                      [[fe, s["n"], f"{s.get('median', float('nan')):+.1f}%", f"{s.get('worst', float('nan')):+.1f}% "
                        f"({s.get('worst_model', '—')})"] for fe, s in (("compile", comp), ("LazyRunner", lazy))]), "",
            table(["model", "eager per call", "compile overhead", "LazyRunner overhead"],
                  [[e["model"], e["eager"].fmt(1e-6, 3, " ms") if "eager" in e else e.get("error", ""),
                    e["compile"].fmt(digits=1, unit="%") if "compile" in e else "—",
                    e["lazy"].fmt(digits=1, unit="%") if "lazy" in e else e.get("lazy_error", "—")] for e in entries]),
            "", plot(grid, entries)]
    write("overhead", "Table 2: warm overhead over eager NumPy", "\n".join(text), quick)
    return {"tiny": grid, "target": t, "corpus_compile": comp, "corpus_lazy": lazy, "corpus_size": size}
