"""Exceptions that end a frame's run before its return, raised by the interpreter loop and caught by
capture_function and the folding passes (a leaf: they catch it without importing the loop)."""


class Stop(Exception):
    """The root frame reached the instruction it was asked to stop before."""


class LoopBack(Exception):
    """A driven resume function reached its loop header: its iteration is done."""
