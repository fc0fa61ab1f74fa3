"""The operator-overloading front ends: `trace()` (one call on proxy arrays) and `LazyRunner` (lazy arrays).

Imports graph and errors only. Modules: proxy.py (ArrayProxy, Recorder), tracer.py (trace, modes),
execute.py (run, check_guards, TraceGuard), lazy.py (LazyRunner), functions.py (F).

>>> g = trace(lambda x: F.tanh(x) * 2.0, {"x": (4, 8)})
>>> run(g, {"x": np.zeros((4, 8))})[0].shape
(4, 8)
"""

from ..errors import TraceError
from .execute import TraceGuard, check_guards, run
from .functions import F
from .lazy import LazyArray, LazyRunner
from .proxy import ArrayProxy
from .tracer import MODES, TracedArray, trace

__all__ = ["F", "LazyArray", "LazyRunner", "MODES", "TraceError", "TraceGuard", "TracedArray", "ArrayProxy",
           "check_guards", "run", "trace"]
