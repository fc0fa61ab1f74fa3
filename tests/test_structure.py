"""Package structure (STYLE.md §1, §2, §8): layering, version isolation, sizes. Parses with `ast`; < 1 s.

Only files that exist are checked, so the rules can be written before the modules they govern.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "minidynamo"
PKG = "minidynamo"

# module (dotted, without the package) -> why it may exceed the module line limit. Empty on purpose.
MODULE_SIZE_EXCEPTIONS: dict[str, str] = {}
MODULE_LIMIT, FUNCTION_LIMIT, CLASS_LIMIT = 600, 80, 400
TOP_LEVEL_LIMIT = 12           # modules directly in minidynamo/ (issue 24); packages do not count
HANDLER_FILE_LIMIT, HANDLER_LIMIT = 400, 40

# Who may import what inside the package: module prefix -> allowed prefixes (None = no rule here).
# A prefix matches the module itself and everything below it.
ALLOWED: list[tuple[str, tuple[str, ...]]] = [
    ("graph", ("graph",)),
    ("backends", ("backends", "graph", "config")),
    ("guards", ("errors", "guards")),
    ("errors", ()),
    ("config", ()),
    ("pyversion", ()),
    ("newer_python", ("pyversion",)),      # loaded where the capture machinery must not be
]
FORBIDDEN: list[tuple[str, tuple[str, ...]]] = [
    ("capture", ("stitch", "api", "dispatch", "lint", "tracing", "backends")),   # backends: graph/lazy_values
    ("stitch", ("api", "dispatch", "lint")),        # dispatch/ (the cache) imports stitch.moving
]
VERSION_READER = "pyversion"


def modules() -> list[tuple[str, Path]]:
    """(dotted name without the package prefix, path) of every .py file of the package."""
    out = []
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out.append((".".join(parts), path))
    return out


@lru_cache(maxsize=None)
def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def is_submodule(dotted: str) -> bool:
    """True when `dotted` (relative to the package) names a module or subpackage that exists."""
    base = ROOT.joinpath(*dotted.split(".")) if dotted else ROOT
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports(name: str, path: Path) -> list[tuple[int, str]]:
    """(line, imported module relative to the package, "" for the package root) for package imports.

    `from .x import y` counts as importing x.y when x/y is a module, else x (y is a name inside x).
    """
    is_pkg = path.name == "__init__.py"
    here = name.split(".") if name else []
    package = here if is_pkg else here[:-1]
    found = []
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == PKG or alias.name.startswith(PKG + "."):
                    found.append((node.lineno, alias.name[len(PKG) + 1:]))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                module = ".".join(base + (node.module.split(".") if node.module else []))
            elif node.module == PKG or (node.module or "").startswith(PKG + "."):
                module = node.module[len(PKG) + 1:]
            else:
                continue
            for alias in node.names:
                sub = f"{module}.{alias.name}" if module else alias.name
                found.append((node.lineno, sub if is_submodule(sub) else module))
    return found


def under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layering_violations() -> list[str]:
    bad = []
    for name, path in modules():
        for line, target in imports(name, path):
            where = f"{path.relative_to(ROOT.parent)}:{line} imports {PKG}{'.' + target if target else ''}"
            if target == "" and name != "":
                bad.append(f"{where}: the package root (import its submodules instead)")
                continue
            for prefix, allowed in ALLOWED:
                if under(name, prefix) and not any(under(target, a) for a in allowed):
                    bad.append(f"{where}: {prefix} may import only {list(allowed) or 'nothing of the package'}")
            for prefix, denied in FORBIDDEN:
                if under(name, prefix) and any(under(target, d) for d in denied):
                    bad.append(f"{where}: {prefix} must not import {', '.join(denied)}")
    return bad


def test_layering():
    assert layering_violations() == []


# ---- import cycles and layers inside capture/ (issue 24) -----------------------------------------------
# Counted over the imports that run: module-level and inside functions (an import placed in a function to
# dodge a cycle still is one), not those under `if TYPE_CHECKING:` (annotations only). An import of a.b.c is
# an edge to that module, not to the packages above it.
CYCLE_LIMIT = 8                # modules in the largest strongly connected component of capture/'s imports
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    # variables below frame, folding passes, handlers and the interpreter; handlers below the interpreter;
    # the loop is passed in (Frame.run / Frame.run_until), the core Var kinds call up through variables.hooks
    ("capture.variables", ("capture.frame", "capture.fold", "capture.handlers", "capture.interpreter",
                           "capture.context", "capture.reads", "capture.graph_builder")),
    ("capture.frame", ("capture.fold", "capture.handlers", "capture.interpreter", "capture.context")),
    ("capture.fold", ("capture.handlers", "capture.interpreter", "capture.context")),
    ("capture.handlers", ("capture.interpreter", "capture.context")),
]


def type_checking_lines(path: Path) -> set[int]:
    """Lines of the imports under `if TYPE_CHECKING:` (or `if typing.TYPE_CHECKING:`)."""
    lines: set[int] = set()
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            lines |= {n.lineno for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))}
    return lines


def function_level_lines(path: Path) -> set[int]:
    """Lines of the imports inside functions."""
    return {n.lineno for fn in ast.walk(parse(path)) if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
            for n in ast.walk(fn) if isinstance(n, (ast.Import, ast.ImportFrom))}


def import_graph(prefix: str = "capture", in_functions: bool = True) -> dict[str, set[str]]:
    """module -> the modules under `prefix` it imports when it runs (see above); with in_functions=False,
    only those imported when it loads (what import order depends on)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules():
        if under(name, prefix):
            skip = type_checking_lines(path) | (set() if in_functions else function_level_lines(path))
            graph[name] = {target for line, target in imports(name, path)
                           if under(target, prefix) and target != name and line not in skip}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module, largest first (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found, key=lambda c: (-len(c), c))


def test_largest_import_cycle_inside_capture():
    found = cycles(import_graph())
    assert not found or len(found[0]) <= CYCLE_LIMIT, found[0]


def test_capture_modules_load_without_a_cycle():
    """Module-level imports alone form no cycle, so no capture module's loading depends on import order."""
    assert cycles(import_graph(in_functions=False)) == []


def layer_violations() -> list[str]:
    bad = []
    for name, path in modules():
        typing_only = type_checking_lines(path)
        for line, target in imports(name, path):
            for prefix, above in LAYERS:
                if under(name, prefix) and line not in typing_only and any(under(target, a) for a in above):
                    bad.append(f"{path.relative_to(ROOT.parent)}:{line} imports {PKG}.{target}: {prefix} is "
                               f"below {', '.join(above)}")
    return bad


def test_capture_layers():
    assert layer_violations() == []


VERSION_ATTRS = {"sys": {"version_info", "version", "hexversion"},
                 "platform": {"python_version", "python_version_tuple"}}


def version_reads(path: Path) -> list[int]:
    """Lines reading the interpreter version: sys.version_info, `from sys import version`, getattr(sys, ...)."""
    lines = []
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            if node.attr in VERSION_ATTRS.get(node.value.id, ()):
                lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module in VERSION_ATTRS:
            if any(a.name in VERSION_ATTRS[node.module] for a in node.names):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr" and len(node.args) >= 2:
            obj, attr = node.args[0], node.args[1]
            if isinstance(obj, ast.Name) and isinstance(attr, ast.Constant):
                if attr.value in VERSION_ATTRS.get(obj.id, ()):
                    lines.append(node.lineno)
    return sorted(lines)


def test_only_pyversion_reads_the_python_version():
    bad = [f"{path.relative_to(ROOT.parent)}:{line}" for name, path in modules() if name != VERSION_READER
           for line in version_reads(path)]
    assert bad == [], "read the version through minidynamo.pyversion instead"


def span(node: ast.AST) -> int:
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return node.end_lineno - first + 1


def size_violations() -> list[str]:
    bad = []
    for name, path in modules():
        rel = path.relative_to(ROOT.parent)
        in_handlers = under(name, "capture.handlers") and name != "capture.handlers"
        n_lines = len(path.read_text(encoding="utf-8").splitlines())
        limit = HANDLER_FILE_LIMIT if in_handlers else MODULE_LIMIT
        if n_lines > limit and name not in MODULE_SIZE_EXCEPTIONS:
            bad.append(f"{rel}: {n_lines} lines > {limit}")
        for node in ast.walk(parse(path)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                limit = HANDLER_LIMIT if in_handlers else FUNCTION_LIMIT
                if span(node) > limit:
                    bad.append(f"{rel}:{node.lineno} {node.name}: {span(node)} lines > {limit}")
            elif isinstance(node, ast.ClassDef) and span(node) > CLASS_LIMIT:
                bad.append(f"{rel}:{node.lineno} class {node.name}: {span(node)} lines > {CLASS_LIMIT}")
    return bad


def test_sizes():
    assert size_violations() == []


def top_level_modules() -> list[str]:
    """The .py files directly in the package folder (__init__ and __main__ included), not its packages."""
    return sorted(path.name for path in ROOT.glob("*.py"))


def test_at_most_twelve_modules_at_the_top_level():
    assert len(top_level_modules()) <= TOP_LEVEL_LIMIT, top_level_modules()


def test_size_exceptions_name_existing_modules_with_a_reason():
    names = {name for name, _ in modules()}
    for name, reason in MODULE_SIZE_EXCEPTIONS.items():
        assert name in names and reason.strip(), name


# ---- the checker checks itself on small samples, so a broken rule cannot pass silently ---------------

@pytest.fixture
def fake_module(tmp_path, monkeypatch):
    """Write modules into a throwaway package tree and point the checks at it."""
    root = tmp_path / PKG
    monkeypatch.setitem(globals(), "ROOT", root)

    def write(rel: str, text: str) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(root).parents:
            (root / parent / "__init__.py").touch()
        path.write_text(text)

    return write


def test_checker_finds_layering_breaks(fake_module):
    fake_module("errors.py", "")
    fake_module("graph/ir.py", "from .. import errors\nfrom ..graph import meta\n")
    fake_module("graph/meta.py", "import minidynamo\n")
    fake_module("backends/eager.py", "from ..graph import ir\nfrom ..capture.frame import Frame\n")
    fake_module("capture/frame.py", "from ..stitch import resume\nfrom .. import compile\n")
    bad = "\n".join(layering_violations())
    assert "graph/ir.py:1 imports minidynamo.errors: graph may import only" in bad
    assert "graph/ir.py:2" not in bad
    assert "graph/meta.py:1 imports minidynamo: the package root" in bad
    assert "backends/eager.py:2 imports minidynamo.capture.frame" in bad
    assert "capture/frame.py:1 imports minidynamo.stitch: capture must not import" in bad
    assert "capture/frame.py:2 imports minidynamo: the package root" in bad


def test_checker_finds_import_cycles_and_layer_breaks(fake_module):
    fake_module("capture/frame.py", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .handlers import x\n")
    fake_module("capture/variables/a.py", "from . import b\n")
    fake_module("capture/variables/b.py", "def f():\n    from .c import g\n")
    fake_module("capture/variables/c.py", "from .a import h\nfrom ..interpreter import run\n")
    fake_module("capture/handlers/x.py", "from ..frame import Frame\n")
    fake_module("capture/interpreter.py", "from .handlers import x\n")
    assert cycles(import_graph()) == [["capture.variables.a", "capture.variables.b", "capture.variables.c"]]
    assert cycles(import_graph(in_functions=False)) == []
    assert layer_violations() == ["minidynamo/capture/variables/c.py:2 imports minidynamo.capture.interpreter: "
                                  "capture.variables is below capture.frame, capture.fold, capture.handlers, "
                                  "capture.interpreter, capture.context, capture.reads, capture.graph_builder"]


def test_checker_counts_top_level_modules_only(fake_module):
    for i in range(3):
        fake_module(f"m{i}.py", "")
    fake_module("sub/inner.py", "")
    assert top_level_modules() == ["__init__.py", "m0.py", "m1.py", "m2.py"]


def test_checker_finds_version_reads_and_long_functions(fake_module):
    fake_module("stitch/emit.py", "import sys\nV = sys.version_info\nfrom platform import python_version\n")
    fake_module("capture/handlers/stack.py", "def nop(frame, inst):\n" + "    pass\n" * 40)
    assert version_reads(ROOT / "stitch" / "emit.py") == [2, 3]
    assert size_violations() == ["minidynamo/capture/handlers/stack.py:1 nop: 41 lines > 40"]


ENGINES = ("dask", "distributed", "jax", "jaxlib")
# The JAX backend's own modules import jax at module level; jax_lowering/__init__ imports them only inside
# the backend function (test_jax_package_imports_its_modules_lazily).
JAX_MODULES = tuple(f"backends.jax_lowering.{m}" for m in (
    "engine", "table", "ufuncs", "indexing", "runner", "control", "fori", "pynumbers", "staging", "trig",
    "persistent_cache"))
ENGINE_IMPORTERS = {"dask": ("backends.dask_backend",), "distributed": ("backends.dask_backend",),
                    "jax": JAX_MODULES, "jaxlib": JAX_MODULES}


def engine_imports(path: Path) -> list[tuple[int, str, bool]]:
    """(line, engine, inside a function) for every import of an optional engine."""
    inside: set[int] = set()
    tree = parse(path)
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inside |= {id(n) for n in ast.walk(fn)}
    out = []
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
        for name in names:
            if name.split(".")[0] in ENGINES:
                out.append((node.lineno, name.split(".")[0], id(node) in inside))
    return out


def test_engines_are_imported_only_by_their_backend_and_only_when_used():
    """The core never imports dask: only its backend does, inside the function that needs it."""
    bad = [f"{path.relative_to(ROOT.parent)}:{line} imports {engine}" + ("" if lazy else " at module level")
           for name, path in modules() for line, engine, lazy in engine_imports(path)
           if engine in ENGINE_IMPORTERS and (name not in ENGINE_IMPORTERS[engine]
                                              or not lazy and name not in JAX_MODULES)]
    assert bad == []


def test_jax_package_imports_its_modules_lazily():
    tree = parse(ROOT / "backends" / "jax_lowering" / "__init__.py")
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert all(n.level == 0 or n.module not in {m.rsplit(".", 1)[1] for m in JAX_MODULES} for n in top
               if isinstance(n, ast.ImportFrom))
    assert not [n for n in top if isinstance(n, ast.Import) and any(a.name.startswith("jax") for a in n.names)]


def test_checker_finds_engine_imports(fake_module):
    fake_module("capture/context.py", "import dask.array as da\n")
    fake_module("backends/dask_backend.py", "import dask\ndef f():\n    import dask.array\n")
    assert engine_imports(ROOT / "capture/context.py") == [(1, "dask", False)]
    assert engine_imports(ROOT / "backends/dask_backend.py") == [(1, "dask", False), (3, "dask", True)]
