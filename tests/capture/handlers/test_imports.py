"""Import statements inside compiled functions (handlers/imports.py): imports of loaded modules are resolved
at capture time under guards on sys.modules and __import__; anything that would load a module, a replaced
entry, a replaced __import__, relative imports and missing names behave exactly as eagerly."""

from __future__ import annotations

import builtins
import itertools
import sys
import textwrap

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import captured, check

_names = itertools.count()


def loaded_imports(x):
    import math
    import numpy.linalg as la
    from numpy import tanh
    from collections import OrderedDict as OD
    return tanh(x) + la.norm(x) * math.pi, OD is not None


def missing_name(x):
    from math import no_such_name      # noqa: F401  ImportError, as eagerly
    return x


def optional_dependency(x):
    try:
        import minidynamo_no_such_module as extra     # noqa: F401
    except ImportError:
        extra = None
    return x * 2 if extra is None else x


def test_imports_of_loaded_modules_are_one_graph_without_a_break():
    x = np.linspace(-1, 1, 5)
    check(loaded_imports, x, calls=[(x + 1,)])
    out = md.explain(loaded_imports)(x)
    assert out.graph_count == 1 and out.graph_break_count == 0


def test_a_missing_name_raises_as_eagerly():
    check(missing_name, np.ones(3), calls=[(np.zeros(2),)], expect_fallback="cannot continue after IMPORT_FROM")


def test_a_missing_module_is_caught_as_eagerly():
    check(optional_dependency, np.ones(3), calls=[(np.zeros(2),)], expect_graph=False).assert_broke(
        "import of 'minidynamo_no_such_module' would load or initialise a module")


@pytest.fixture
def module_dir(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    made = []

    def write(body: str, package: str | None = None) -> str:
        name = f"md_import_test_{next(_names)}"
        target = tmp_path / package if package else tmp_path
        target.mkdir(exist_ok=True)
        (target / f"{name}.py").write_text(textwrap.dedent(body))
        made.append(f"{package}.{name}" if package else name)
        return name

    yield write
    for name in made:
        sys.modules.pop(name, None)


def test_an_import_that_loads_a_module_runs_it_once_and_again_after_removal(module_dir, capsys):
    name = module_dir("""
        print("loading")
        SCALE = 3.0
    """)
    ns: dict = {}
    exec(f"def f(x):\n    y = x + 1\n    import {name} as m\n    return y * m.SCALE\n", ns)
    cf = md.compile(ns["f"])
    x = np.arange(3.0)
    assert np.array_equal(cf(x), (x + 1) * 3.0) and capsys.readouterr().out == "loading\n"
    assert np.array_equal(cf(x), (x + 1) * 3.0) and capsys.readouterr().out == ""
    del sys.modules[name]                          # eager imports it again: so must the compiled code
    assert np.array_equal(cf(x), (x + 1) * 3.0) and capsys.readouterr().out == "loading\n"
    captured(cf).assert_resumed_after("IMPORT_NAME")       # the import runs as plain Python between graphs
    assert any("would load or initialise a module" in str(r) for r in captured(cf).reasons)


def test_a_replaced_sys_modules_entry_is_seen(module_dir):
    name = module_dir("SCALE = 3.0\n")
    __import__(name)
    ns: dict = {}
    exec(f"def f(x):\n    from {name} import SCALE\n    return x * SCALE\n", ns)
    cf = md.compile(ns["f"])
    x = np.arange(3.0)
    assert np.array_equal(cf(x), x * 3.0)
    replacement = type(sys)(name)
    replacement.SCALE = 5.0
    sys.modules[name] = replacement
    assert np.array_equal(cf(x), x * 5.0) and np.array_equal(ns["f"](x), x * 5.0)
    captured(cf).assert_no_breaks().assert_graph_ran()     # resolved at capture, under a guard that failed:
    assert md.stats(cf).guard_failures == [[f"sys.modules[{name!r}]: expected <module {name}>, "
                                            f"got <module {name}> (a different object)"]]


def test_a_replaced_import_function_is_called_as_eagerly(monkeypatch):
    seen = []
    original = builtins.__import__

    def spy(name, *args, **kwargs):
        if name in ("math", "numpy.linalg", "numpy", "collections"):    # not capture's own imports
            seen.append(name)
        return original(name, *args, **kwargs)

    cf = md.compile(loaded_imports)
    x = np.ones(2)
    cf(x)
    monkeypatch.setattr(builtins, "__import__", spy)
    compiled = cf(x)
    compiled_seen, seen[:] = list(seen), []
    eager = loaded_imports(x)
    assert compiled_seen == seen == ["math", "numpy.linalg", "numpy", "collections"]
    assert np.array_equal(compiled[0], eager[0])
    assert md.stats(cf).recompiles == 1                     # the guard on __import__ failed, and each import
    result = captured(cf).assert_resumed_after("IMPORT_NAME")      # then calls it, in plain Python
    reasons = [str(r.reason) for r in result.all_records if r.reason is not None]
    assert len(reasons) == 4 and all("__import__ is not the builtin one" in r for r in reasons), reasons


def test_relative_imports_resolve_against_the_package(tmp_path, monkeypatch):
    package = f"md_import_pkg_{next(_names)}"
    (tmp_path / package).mkdir()
    (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / package / "consts.py").write_text("K = 7\n")
    (tmp_path / package / "user.py").write_text(textwrap.dedent("""
        def run(x):
            from .consts import K
            from . import consts as c
            return x * K + c.K
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        run = __import__(f"{package}.user", fromlist=["run"]).run
        __import__(f"{package}.consts")
        check(run, np.arange(4.0), calls=[(np.ones(2),)])
        out = md.explain(run)(np.arange(4.0))
        assert out.graph_count == 1 and out.graph_break_count == 0
    finally:
        for name in (package, f"{package}.user", f"{package}.consts"):
            sys.modules.pop(name, None)
