"""One class per guard kind (guard.Guard's subclasses), grouped by what they read. Importing this package
registers every kind, so Guard(expr, kind, ...) can build each one."""

from . import arrays, attributes, containers, equals, holds, identity, warnings_list  # noqa: F401 (registers)
