"""Folding passes: control flow on graph values made into one higher-order node instead of a break (an `if`
into a cond, a `while` into a while_loop, a `for i in range(...)` into a fori_loop; a branch one of whose ways
only raises into a check), and the bytecode analyses they use (post-dominators, loop regions). They sit
above capture.variables and capture.frame and below the handlers that call them; the interpreter loop is
passed in (frame.run_until), never imported.
"""
