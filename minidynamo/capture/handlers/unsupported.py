"""Opcodes capture leaves to plain Python, each with the reason a report shows. Reaching one during
capture is a graph break; a test checks every real opcode of the running Python is handled or listed."""

from __future__ import annotations

from .registry import unsupported_opcodes

unsupported_opcodes(
    "exception handling runs only when an exception is raised, which capture never does symbolically",
    "PUSH_EXC_INFO", "POP_EXCEPT", "CHECK_EXC_MATCH", "CHECK_EG_MATCH", "RERAISE", "PREP_RERAISE_STAR",
    "WITH_EXCEPT_START", "CLEANUP_THROW", "LOAD_ASSERTION_ERROR",
)
unsupported_opcodes("raising an exception: plain Python raises it", "RAISE_VARARGS")
unsupported_opcodes("async with runs eagerly", "BEFORE_ASYNC_WITH")
unsupported_opcodes(
    "generators and coroutines run eagerly",
    "SEND", "END_SEND", "GET_AWAITABLE", "GET_AITER", "GET_ANEXT",
    "END_ASYNC_FOR", "ASYNC_GEN_WRAP", "GET_YIELD_FROM_ITER",
)
unsupported_opcodes(
    "module and class bodies are not captured (only function code)",
    "LOAD_NAME", "STORE_NAME", "DELETE_NAME", "SETUP_ANNOTATIONS", "IMPORT_STAR",
    "LOAD_LOCALS", "LOAD_FROM_DICT_OR_GLOBALS", "LOAD_FROM_DICT_OR_DEREF", "LOAD_CLASSDEREF", "PRINT_EXPR",
)
unsupported_opcodes("pattern matching (match/case) is not captured", "MATCH_CLASS", "MATCH_KEYS",
                    "MATCH_MAPPING", "MATCH_SEQUENCE", "GET_LEN")
unsupported_opcodes("deleting globals or cells is not captured", "DELETE_GLOBAL", "DELETE_DEREF")
unsupported_opcodes("except* groups are not captured", "CALL_INTRINSIC_2")
unsupported_opcodes("interpreter-internal opcodes never appear in function bytecode", "INTERPRETER_EXIT",
                    "ENTER_EXECUTOR", "RESERVED", "EXIT_INIT_CHECK", "TRACE_RECORD")
