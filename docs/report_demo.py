"""A run for `python -m minidynamo report`: the tour's programs compiled and called the way a user would,
so the page shows a whole graph, a data-dependent branch taken both ways, a recompile on a new shape and
a training loop whose body is captured once and driven per iteration.

    python -m minidynamo report docs/report_demo.py -o report.html --screenshot docs/report.png
"""

import numpy as np

import minidynamo as md
from minidynamo.examples.tour_programs import fit_logistic, make_inputs, make_regression, mlp_block, sign_switch

x, params = make_inputs()
block = md.compile(mlp_block)
block(x, params)
block(x, params)
block(np.ones((6, 8)), params)            # a new shape: the guard on x.shape fails, block is captured again

switch = md.compile(sign_switch)
for v in (np.abs(x), -np.abs(x), np.abs(x)):
    switch(v)                             # the `if` runs in plain Python; each outcome has a resume function

w, X, y = make_regression()
fit = md.compile(fit_logistic)
weights, steps = fit(w, X, y, 0.05)
print(f"fit_logistic: {steps} iterations")
