"""The docs say what the code does: the README's sample output is what `explain` prints now (compared line
by line, timings normalized), and the tour shows what its section headers promise (a folded cond beside a
real graph break with its resume functions and stitched entry), and ARCHITECTURE.md names every module and
only paths, functions and guard methods that exist."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import minidynamo as md
from minidynamo.__main__ import tour
from minidynamo.examples.tour_programs import loud_switch

ROOT = Path(__file__).resolve().parents[1]
TIMING = re.compile(r"\d+\.\d+ ms")


def _blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block of a markdown text."""
    return re.findall(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)


def test_readme_sample_output_is_what_explain_prints():
    readme = (ROOT / "README.md").read_text()
    start = readme.index("## Quick start")
    blocks = _blocks(readme[start:])
    code = next(body for lang, body in blocks if lang == "python")
    sample = next(body for lang, body in blocks if lang == "" and body.startswith("explain(block):"))
    namespace = {"print": lambda *a, **k: None, "__name__": "readme"}
    exec(compile(code, "README.md", "exec"), namespace)      # the quick start, as a new user runs it
    shown = str(md.explain(namespace["block"])(namespace["x"], namespace["w"]))
    assert TIMING.sub("T ms", sample.rstrip("\n")).splitlines() == TIMING.sub("T ms", shown).splitlines()


def _tour_text() -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert tour() == 0
    return out.getvalue()


def _section(text: str, number: int) -> str:
    parts = re.split(r"^={78}\n(?=\d\. )", text, flags=re.M)
    return next(p for p in parts if p.startswith(f"{number}. "))


def test_tour_shows_a_folded_cond_beside_a_real_graph_break():
    text = _tour_text()
    folded, broken = _section(text, 2), _section(text, 3)
    assert "folded into the one graph as a cond node: no break" in folded
    assert "explain(sign_switch): 1 graph, 0 graph breaks" in folded and "= cond(" in folded
    # the break: the graph before the `if`, the stitched entry, and a resume function for each path
    line = loud_switch.__code__.co_firstlineno + 5         # `if s > 0:`
    assert "one arm prints, which a cond node cannot hold" in broken
    assert "explain(loud_switch): " in broken and "graph breaks, by cause:" in broken
    assert f"tour_programs.py:{line} in loud_switch: [MD0009] branch on the value of a NumPy bool" in broken
    assert f"── 2. resume at line {line}, after `if s > 0:` was True " in broken
    assert f"resume at line {line}, after `if s > 0:` was False" in broken
    assert f"resume at line {line + 1}, after `print(\"sum is positive\")`" in broken   # the True path's print
    entry = broken.split("── 1. loud_switch")[1].split("── 2.")[0]
    # (3.13 compiles `s > 0` in an `if` to a comparison that gives a bool: `bool(___o[0] > 0)` there)
    assert "___r = bool(___o[0]" in entry and "return ___e0_resume" in entry and "= cond(" not in broken
    assert "matches eager on both paths: True" in broken


def test_the_report_demo_does_what_its_comments_say():
    import runpy

    from minidynamo import api
    from minidynamo.report.html import function_counts
    from minidynamo.report.run import outputs_of_run

    with api.record_run() as records, contextlib.redirect_stdout(io.StringIO()):
        runpy.run_path(str(ROOT / "docs" / "report_demo.py"), run_name="__main__")
    outputs = {o.function: o for o in outputs_of_run(records)}
    assert list(outputs) == ["mlp_block", "sign_switch", "loud_switch", "fit_logistic"]
    block, switch, loud, fit = outputs.values()
    assert function_counts(block)["recompiles"] == 1 and block.graph_break_count == 0
    assert switch.graph_break_count == 0 and [b.kind for b in switch.folded_branches] == ["if"]
    titles = [t for t in str(loud).splitlines() if t.startswith("── ")]
    assert any("after `if s > 0:` was True" in t for t in titles)
    assert any("after `if s > 0:` was False" in t for t in titles)
    assert any("loop body of `while loss > tol:`" in t for t in str(fit).splitlines() if t.startswith("── "))


# ARCHITECTURE.md: the module tree names every module, and the paths and `file.py:name` references of its
# Modules, Data flow and Guard kinds sections exist (a newcomer finds each step and guard kind from it).
PACKAGE = ROOT / "minidynamo"
MODULES = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _architecture_section(title: str) -> str:
    text = (ROOT / "ARCHITECTURE.md").read_text()
    start = text.index(f"\n## {title}") + 1
    end = text.find("\n## ", start)
    return text[start:] if end < 0 else text[start:end]


def _tree() -> dict[str, str]:
    """Each entry of the Modules tree (`capture/fold/`, `capture/frame.py`) -> its text (its line, its
    continuation lines and its children's). An entry is a line at most 2 deeper than the last entry."""
    block = _blocks(_architecture_section("Modules"))[0][1].splitlines()[1:]     # (after `minidynamo/`)
    entries, stack = {}, []         # stack: (indent, path) of the open packages
    for i, line in enumerate(block):
        indent = len(line) - len(line.lstrip())
        if stack and indent > stack[-1][0] + 2 or not line.strip():
            continue                                                      # a continuation line
        while stack and indent <= stack[-1][0]:
            stack.pop()
        name = (stack[-1][1] if stack else "") + line.split()[0].rstrip(",")
        rest = [l for l in block[i + 1:]]
        end = next((j for j, l in enumerate(rest) if l.strip() and len(l) - len(l.lstrip()) <= indent), len(rest))
        entries[name] = "\n".join([line, *rest[:end]])
        if name.endswith("/"):
            stack.append((indent, name))
    return entries


def test_architecture_modules_tree_names_every_module_and_only_real_ones():
    tree = _tree()
    packages = {m.rsplit("/", 1)[0] + "/" for m in MODULES if "/" in m}
    assert sorted(packages - set(tree)) == [], "packages without an entry in ARCHITECTURE.md's Modules tree"
    missing = []
    for module in MODULES:
        package, _, name = module.rpartition("/")
        if name == "__init__.py" and package:
            continue
        text = tree[package + "/"] if package else "\n".join(tree.values())
        if not re.search(rf"(?<![\w.]){re.escape(name[:-3])}(\.py)?\b", text):
            missing.append(module)
    assert missing == [], "modules ARCHITECTURE.md's Modules tree does not name (in their package's entry)"
    stale = [e for e in tree if e.endswith((".py", "/")) and not (PACKAGE / e).exists()]
    assert stale == [], "Modules tree entries that are not in the package"


def _doc_sections() -> str:
    text = "\n".join(_architecture_section(t) for t in ("Modules", "Data flow", "Guard kinds"))
    return re.sub(r"`[^`\n]*\s[^`\n]*`", "", text)     # code with spaces (`lint file.py`) names no path


def _resolve(path: str) -> list[str]:
    """The package's modules `path` can name: itself under minidynamo/, else those ending in /path (a
    reference `containers.py:LenGuard` is right when one of them defines the name)."""
    return [path] if path in MODULES else [m for m in MODULES if m.endswith("/" + path)]


def _defines(source: str, name: str) -> bool:
    """Whether a module's source defines `name` (a function, class or assignment; `Class.attr` inside)."""
    top, _, attr = name.partition(".")
    return bool(re.search(rf"^(?:(?:async )?def|class) {top}\b|^{top}\s*[:=]", source, re.M)) and \
        (not attr or bool(re.search(rf"\b(?:def|class) {attr}\b|^\s*(?:self\.)?{attr}\s*[:=]", source, re.M)))


def test_architecture_paths_and_references_exist():
    text = _doc_sections()
    paths = set(re.findall(r"(?<![\w/.])((?:\w+/)*\w+\.py)\b", text))
    real = {p for p in paths if _resolve(p) or (ROOT / p).exists()}
    assert sorted(paths - real) == [], "paths in ARCHITECTURE.md that are no file"
    refs = set(re.findall(r"(?<![\w/.])((?:\w+/)*\w+\.py):(\w+(?:\.\w+)?)", text))
    wrong = [f"{path}:{name}" for path, name in sorted(refs)
             if not any(_defines((PACKAGE / m).read_text(), name) for m in _resolve(path))]
    assert wrong == [], "file.py:name references in ARCHITECTURE.md whose name the file does not define"


def test_architecture_guard_table_names_each_kinds_own_methods():
    from minidynamo.guards import GuardKind
    from minidynamo.guards.guard import CLASSES

    rows = [r.strip("|").split("|") for r in _architecture_section("Guard kinds").splitlines()
            if r.startswith("| ") and not r.startswith("| kind ")]
    assert sorted(r[0].strip() for r in rows) == sorted(k.value for k in GuardKind)
    for kind, cls_ref, _made, *methods in rows:
        cls = CLASSES[GuardKind(kind.strip())]
        module, name = cls_ref.strip().split(":")
        assert (cls.__name__, cls.__module__) == (name, "minidynamo.guards.kinds." + module[:-3]), kind
        for ref in ", ".join(methods).split(","):
            owner, method = ref.strip().split(".")
            # the class named is the one whose method the kind's class uses (its own, or the one it inherits)
            assert next(c for c in cls.__mro__ if method in vars(c)).__name__ == owner, (kind, ref)
