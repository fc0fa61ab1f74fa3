"""minidynamo: a small, readable TorchDynamo for NumPy programs.

    import minidynamo as md
    fast = md.compile(fn)          # bytecode-level capture with guards and a cache
    print(md.explain(fn)(x, w))    # graphs, graph breaks, guards

The lecture's tracing front end is here too: trace, run, F, LazyRunner, check_guards, TraceError; and the
scripting front end: script (ScriptError).
"""

from . import config, pyversion
from .errors import (GraphBreakError, InternalError, MinidynamoError, ScriptError, TraceError, VerificationError,
                     VerificationWarning)

if pyversion.SUPPORTED:
    from .api import compile, explain, reset, stats
    from .lint import lint
else:   # a newer Python: nothing that reads bytecode is loaded; compiled functions run eagerly
    from .newer_python import compile, explain, lint, reset, stats
from .capture.dynamic_shapes import mark_dynamic, mark_static
from .graph.ir import ArraySpec
from .hatches import allow_in_graph, disable, register_op, substitute_in_graph
from .scripting import script
from .tracing import F, LazyRunner, check_guards, run, trace

__all__ = ["compile", "explain", "lint", "reset", "stats", "mark_dynamic", "mark_static", "disable", "register_op", "substitute_in_graph",
           "allow_in_graph", "ArraySpec", "config",
           "trace", "run", "F", "LazyRunner", "check_guards", "script", "TraceError", "GraphBreakError", "InternalError",
           "MinidynamoError", "ScriptError", "VerificationError", "VerificationWarning"]
__version__ = "0.1.0"
