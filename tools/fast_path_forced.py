"""The default backend's fast path forced on every region, small ones too: the fuzzer's and the NumPy-suite
plugin's `--fast-path` runs (issue 26 item 1: its exactness proved on programs it would not block by size).

`force()` sets the config (every region blocked, one step too, in blocks of the 64 rows the alignment rules
allow, so small arrays make several blocks; no timed choice of the code without the regions) and counts the outcomes of every region call from then on
(runner.Region.stats: 'fast', 'layout', 'error: FloatingPointError', ...) in the Counter it returns.
"""

from __future__ import annotations

from collections import Counter


def force() -> Counter:
    """Every region through the fast path (min bytes 0, smallest blocks); the outcomes of its calls."""
    from minidynamo import config
    from minidynamo.backends.fast_path.runner import Region
    config.set_config(fast_path_min_bytes=0, fast_path_one_step_bytes=0, fast_path_block_bytes=1,
                      fast_path_timed=False)
    outcomes: Counter = Counter()
    call = Region.__call__

    def counted(self, *inputs):
        before = dict(self.stats)
        result = call(self, *inputs)
        outcomes.update({k: v - before.get(k, 0) for k, v in self.stats.items() if v != before.get(k, 0)})
        return result

    Region.__call__ = counted
    return outcomes
