"""Pass registry and pass manager.

A pass is a frozen dataclass: ``name`` is its command-line spelling, its fields are options,
``run`` rewrites a module in place. Pipelines are written ``a,b{opt=1},c``.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

from dsl.ir import Module, print_module
from dsl.ir.parser import parse_scalar_text
from dsl.ir.verifier import verify_module


class PassError(ValueError):
    """A pipeline that names an unknown pass or a bad option."""


@dataclass(frozen=True)
class Pass:
    name: ClassVar[str] = ""

    def run(self, module: Module) -> None:
        raise NotImplementedError

    def spelling(self) -> str:
        opts = [
            f"{f.name}={getattr(self, f.name)}"
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        ]
        return self.name + ("{" + ",".join(opts) + "}" if opts else "")


@dataclass(frozen=True)
class FunctionPass(Pass):
    """A pass that rewrites each function of one IR level on its own.

    ``level`` is "tensor" (before ``tile``), "tile" (after it) or "any".
    """

    level: ClassVar[str] = "any"

    def run(self, module: Module) -> None:
        for func in module.funcs:
            at_tile = func.attributes.get("level") == "tile"
            if self.level == "any" or (self.level == "tile") == at_tile:
                self.run_on(func)

    def run_on(self, func) -> None:
        raise NotImplementedError


PASSES: dict[str, type[Pass]] = {}


def register(cls: type[Pass]) -> type[Pass]:
    assert cls.name and cls.name not in PASSES, cls.name
    PASSES[cls.name] = cls
    return cls


def function_pass(name: str, level: str, transform: Callable[[Any], None]) -> type[FunctionPass]:
    """Registers and returns the option-less pass ``name`` that runs ``transform`` on each function
    of ``level`` ("tensor", "tile" or "any"); its class is named after it (compare-f16 ->
    CompareF16Pass) and lives in ``transform``'s module."""
    assert level in ("tensor", "tile", "any"), level
    title = "".join(part[:1].upper() + part[1:] for part in name.split("-")) + "Pass"
    module, attr = transform.__module__, transform.__name__

    def run_on(self, func) -> None:
        # Looked up at each run, as a method calling the module's function would: a test that
        # patches the module function (a mutated insert-sync) changes the pass.
        getattr(sys.modules.get(module), attr, transform)(func)

    body = {
        "name": name,
        "level": level,
        "run_on": run_on,
        "__module__": transform.__module__,
        "__qualname__": title,
        "__doc__": transform.__doc__,
    }
    return register(dataclass(frozen=True)(type(title, (FunctionPass,), body)))


_ITEM = re.compile(r"\s*([a-z][a-z0-9-]*)\s*(\{[^}]*\})?\s*(,|$)")


def parse_pipeline(text: str) -> list[Pass]:
    """``"canonicalize,specialize{amsgrad=true}"`` -> pass instances."""
    passes, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _ITEM.match(text, pos)
        if not m:
            raise PassError(f"cannot parse pass pipeline at '{text[pos:]}' (expected name or name{{k=v}})")
        name, opts = m.group(1), m.group(2)
        cls = PASSES.get(name)
        if cls is None:
            raise PassError(f"unknown pass '{name}' (known: {', '.join(sorted(PASSES))})")
        kwargs: dict[str, Any] = {}
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for item in filter(None, (opts or "{}")[1:-1].split(",")):
            if "=" not in item:
                raise PassError(f"option '{item}' of pass '{name}' must be key=value")
            k, v = (s.strip() for s in item.split("=", 1))
            if k not in fields and not getattr(cls, "accepts_any_option", False):
                raise PassError(f"pass '{name}' has no option '{k}' (options: {', '.join(fields) or 'none'})")
            kwargs[k] = parse_scalar_text(v)
        passes.append(cls.from_options(kwargs) if hasattr(cls, "from_options") else cls(**kwargs))
        pos = m.end()
    return passes


@dataclass
class PassManager:
    passes: list[Pass]
    verify_each: bool = True
    print_after_all: Callable[[str], None] | None = None
    after_each: Callable[[Pass, Module], None] | None = None  # e.g. a numeric check

    def run(self, module: Module) -> Module:
        if self.verify_each:
            verify_module(module)
        for p in self.passes:
            p.run(module)
            if self.verify_each:
                verify_module(module)
            if self.print_after_all is not None:
                self.print_after_all(
                    f"// -----// IR Dump After {p.spelling()} //----- //\n" + print_module(module)
                )
            if self.after_each is not None:
                self.after_each(p, module)
        return module
