"""The compiled function around its captures: the per-function cache and its generated dispatcher (cache.py,
with live_defaults.py and reserved_names.py), what compile() accepts and hands back (callables.py), misses
past the cache limit (mode_trial.py), what a miss changes for the next capture (trip_counts.py) and the
collector paused during a capture (gc_pause.py). api.py builds these; capture/ never imports them.
"""
