"""A run for `python -m minidynamo report`: the tour's programs compiled and called the way a user would,
so the page shows a whole graph and a recompile on a new shape (mlp_block), a data-dependent `if` folded
into the graph as a cond node (sign_switch), the same `if` with a print in one arm, a real graph break
taken both ways with a resume function per way (loud_switch), and a training loop whose body is captured
once and driven per iteration (fit_logistic). tests/test_docs.py checks each of these claims.

    python -m minidynamo report docs/report_demo.py -o report.html --screenshot docs/report.png
"""

import numpy as np

import minidynamo as md
from minidynamo.examples.tour_programs import fit_logistic, loud_switch, make_inputs, make_regression, \
    mlp_block, sign_switch

x, params = make_inputs()
block = md.compile(mlp_block)
block(x, params)
block(x, params)
block(np.ones((6, 8)), params)            # a new shape: the guard on x.shape fails, block is captured again

switch = md.compile(sign_switch)
for v in (np.abs(x), -np.abs(x)):
    switch(v)                             # both arms are array code: one graph with a cond node, no break

loud = md.compile(loud_switch)
for v in (np.abs(x), -np.abs(x), np.abs(x)):
    loud(v)                               # an arm prints: the `if` is a break, each way its resume function

w, X, y = make_regression()
fit = md.compile(fit_logistic)
weights, steps = fit(w, X, y, 0.05)
print(f"fit_logistic: {steps} iterations")
