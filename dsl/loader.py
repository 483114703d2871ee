"""Loading operators from a user's .py file (for the CLI)."""

from __future__ import annotations

import importlib.util
import sys
import uuid
from pathlib import Path

from .errors import ArgumentError, DslError
from .operator import InvalidOperator, Operator, collect_invalid


def load_operators(path: str | Path) -> dict[str, Operator | InvalidOperator]:
    """The file's operators by name, in definition order; one the frontend rejected is an
    ``InvalidOperator`` holding its ``DslError`` (reported when it is used)."""
    path = Path(path)
    if path.is_dir():
        raise ArgumentError(f"{path} is a directory, not a Python file")
    if not path.is_file():
        raise ArgumentError(f"no such file: {path}")
    if path.suffix != ".py":
        raise ArgumentError(f"{path} is not a Python file (.py)")
    mod_name = f"_dslc_user_{path.stem}_{uuid.uuid4().hex[:8]}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    sys.path.insert(0, str(path.parent.resolve()))
    try:
        with collect_invalid() as made:
            spec.loader.exec_module(module)
    except DslError:
        raise
    except SyntaxError as e:
        raise DslError(
            f"Python syntax error: {e.msg}", e.filename or str(path), e.lineno or 0, e.offset or 0, e.text
        ) from None
    except Exception as e:  # noqa: BLE001 - the user's module failed to import
        raise ArgumentError(f"importing {path} failed: {type(e).__name__}: {e}") from None
    finally:
        sys.path.pop(0)
    here = path.resolve()
    defined = [(o, f, explicit) for o, f, explicit in made if _defined_in(f, here)]
    check_unique_names(defined)
    ops = {o.name: o for o, _, _ in defined}
    for v in vars(module).values():  # operators the file imports from elsewhere
        if isinstance(v, (Operator, InvalidOperator)) and v.name not in ops:
            ops[v.name] = v
    if not ops:
        raise ArgumentError(f"{path} defines no @dsl.op operator")
    return ops


def _defined_in(fn, path: Path) -> bool:
    try:
        return Path(fn.__code__.co_filename).resolve() == path
    except (AttributeError, OSError):
        return False


def _name_location(fn, explicit: bool) -> tuple[str, int, int, str | None]:
    from frontend import name_location
    from frontend.source import read_source

    try:
        return name_location(read_source(fn), explicit)
    except DslError:  # no source to point into: the def line
        return fn.__code__.co_filename, fn.__code__.co_firstlineno, 1, None


def check_unique_names(defined: list) -> None:
    """A DslError at the second of two operators of a file with one name (one would silently
    replace the other), naming the line of the first."""
    first: dict[str, tuple] = {}
    for op, fn, explicit in defined:
        where = _name_location(fn, explicit)
        if op.name in first:
            line = first[op.name][1]
            raise DslError(
                f"operator name '{op.name}' is already used by the operator at line {line}; the operators "
                "of a file need different names (rename the function or pass @dsl.op(name=...))",
                *where,
            )
        first[op.name] = where


def pick_operator(ops: dict[str, Operator | InvalidOperator], name: str | None, path) -> Operator:
    """The operator --op names (or the file's only one); raises the DslError of a rejected one."""
    if name is None:
        if len(ops) == 1:
            return valid(next(iter(ops.values())))
        raise ArgumentError(f"{path} defines several operators ({', '.join(ops)}); choose one with --op")
    if name not in ops:
        raise ArgumentError(f"{path} has no operator '{name}' (it defines: {', '.join(ops)})")
    return valid(ops[name])


def valid(op: Operator | InvalidOperator) -> Operator:
    if isinstance(op, InvalidOperator):
        raise op.error
    return op
