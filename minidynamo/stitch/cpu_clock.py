"""The clock minidynamo's own timed choices use (stitch/loop_choice.LoopChoice, dispatch/mode_trial.ModeTrial).

Imports only the stdlib. The calling thread's CPU time where the clock is fine-grained (Linux, macOS), else
perf_counter. On a shared machine wall time counts the time other programs hold the core (a driven way 10%
slower, mandelbrot1, won half of LoopChoice's decisions on that noise), and another thread of the program
running meanwhile would count too; both ways of a choice wait for the same I/O, so the caller's CPU time
ranks them alike. Work a way hands to other threads (the fast path's pool) is not counted: that way also
returns sooner. benchmarks/ time in CPU time of the whole process (they run one call at a time).
"""

from __future__ import annotations

import time

NS = time.thread_time_ns if time.get_clock_info("thread_time").resolution <= 1e-6 else time.perf_counter_ns
