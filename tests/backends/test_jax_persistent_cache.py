"""backend="jax" with `jax_cache_dir`: the XLA executables of the backend's graphs are written to the folder and
read back by a later process (issue 26: "cache compiled executables across processes"), results unchanged;
a cache folder the program gave JAX itself stands, and the log says the option had no effect. Each run is a
fresh process: JAX's cache is per process, decided at its first compile."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests.extras import require

require("jax")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

PROGRAM = textwrap.dedent("""
    import collections
    import sys
    import jax
    import numpy as np
    import minidynamo as md
    events = collections.Counter()
    jax.monitoring.register_event_listener(lambda name, **kw: events.update([name.rpartition("/")[2]]))
    if len(sys.argv) > 2:                       # the program chose JAX's cache folder itself
        jax.config.update("jax_compilation_cache_dir", sys.argv[2])

    def f(x, w):
        return np.tanh(x @ w) * 2.0 + x

    x, w = np.linspace(-1.0, 1.0, 32).reshape(4, 8), np.linspace(0.5, -0.5, 64).reshape(8, 8)
    c = md.compile(f, backend="jax", options={"jax_cache_dir": sys.argv[1]})
    got, want = c(x, w), f(x, w)
    assert got.dtype == want.dtype and np.allclose(got, want, rtol=1e-12), (got, want)
    print(got.tobytes().hex())
    print(events["cache_hits"], events["cache_misses"])
""")


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-c", PROGRAM, *args], capture_output=True, text=True, env=env,
                          timeout=300)


def _entries(folder) -> set[str]:
    return {name for name in os.listdir(folder) if name.endswith("-cache")}


def test_a_second_process_reads_the_executables_the_first_wrote(tmp_path):
    first = _run(str(tmp_path))
    assert first.returncode == 0, first.stderr
    written = _entries(tmp_path)
    assert written, "nothing was cached"
    second = _run(str(tmp_path))
    assert second.returncode == 0, second.stderr
    (bits1, counts1), (bits2, counts2) = first.stdout.split("\n")[:2], second.stdout.split("\n")[:2]
    hits, misses = map(int, counts2.split())
    assert int(counts1.split()[1]) > 0 and hits > 0 and misses == 0, (counts1, counts2)
    assert _entries(tmp_path) == written            # nothing new: every executable came from the cache
    assert bits2 == bits1                           # the same results, bit for bit


def test_a_cache_folder_the_program_chose_stands(tmp_path):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    ours.mkdir()
    theirs.mkdir()
    run = _run(str(ours), str(theirs))
    assert run.returncode == 0, run.stderr
    assert not _entries(ours) and "jax_cache_dir" in run.stderr and "has no effect" in run.stderr


def test_the_option_is_a_string():
    import minidynamo as md
    with pytest.raises(TypeError, match="jax_cache_dir"):
        md.compile(lambda x: x, options={"jax_cache_dir": 3})
