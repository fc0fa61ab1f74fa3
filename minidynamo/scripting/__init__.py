"""The scripting front end: `script(fn)` parses fn's source and compiles a documented subset of Python into one
Graph, with data-dependent `if`/`while`/`for ... in range` kept as cond / while_loop nodes (no guards on branch
values). See compiler.py (statements) and expressions.py (expressions) for the subset; anything else raises
ScriptError naming the file, line and construct, with a hint.
"""

from .scripted import ScriptedFunction, script

__all__ = ["script", "ScriptedFunction"]
