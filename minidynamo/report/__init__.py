"""What people read about captures: the explain() text, the HTML report page, and the log channels.

Drawn only from CaptureRecords (graph, guards, entry code, break reason, timing) and the IR; imports
graph.ir and guards, never capture or api. Modules: records (CaptureRecord, ExplainOutput, log channels),
pieces (one captured piece named by its source line, guards in words), text (explain's text), svg (the
graph drawn as a layered DAG), html + assets (the self-contained page), run (the page of a whole run).
"""

from .records import CHANNELS, CaptureRecord, ExplainOutput, log

__all__ = ["CHANNELS", "CaptureRecord", "ExplainOutput", "log"]
