"""The ``dslc`` command line (contract: DESIGN.md section 3).

Exit status: 0 success, 1 user error (message, no traceback), 2 bad usage.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .ir.parser import parse_scalar_text
from .errors import ArgumentError, CompileError, DslError, IRParseError, SimulationError, VerifyError


class UsageError(Exception):
    pass


def parse_attrs(items: list[str] | None) -> dict:
    out = {}
    for item in items or []:
        if "=" not in item:
            raise UsageError(f"--attr expects key=value, got '{item}'")
        k, v = item.split("=", 1)
        out[k.strip()] = parse_scalar_text(v.strip())
    return out


def cmd_ir(args) -> int:
    from .loader import load_operators, pick_operator

    op = pick_operator(load_operators(args.file), args.op, args.file)
    attrs = parse_attrs(args.attr)
    sys.stdout.write(op.ir(args.dtype, **attrs) if args.dtype else op.ir(**attrs))
    return 0


def cmd_opt(args) -> int:
    from passes import PassManager, parse_pipeline

    from .ir import parse_module, print_module

    path = Path(args.file)
    text = sys.stdin.read() if args.file == "-" else (path.read_text() if path.is_file() else None)
    if text is None:
        raise ArgumentError(f"no such file: {args.file}")
    module = parse_module(text)
    pipeline = parse_pipeline(args.passes or "")
    dump = (lambda s: sys.stderr.write(s)) if args.print_ir_after_all else None
    PassManager(pipeline, verify_each=True, print_after_all=dump).run(module)
    sys.stdout.write(print_module(module))
    return 0


def cmd_not_ready(args) -> int:
    raise CompileError(f"'dslc {args.command}' needs the Ascend C backend, which is not implemented yet")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dslc", description="Compile @dsl.op Python operators to Ascend C.")
    sub = p.add_subparsers(dest="command", required=True)

    ir = sub.add_parser("ir", help="print the tensor-level IR of one specialization")
    ir.add_argument("file")
    ir.add_argument("--op")
    ir.add_argument("--dtype")
    ir.add_argument("--attr", action="append", metavar="K=V")
    ir.set_defaults(run=cmd_ir)

    opt = sub.add_parser("opt", help="parse textual IR, run passes, print IR (like mlir-opt)")
    opt.add_argument("file", help="an .ir file, or - for standard input")
    opt.add_argument("--passes", default="", help="comma-separated pipeline, e.g. canonicalize,specialize")
    opt.add_argument("--print-ir-after-all", action="store_true")
    opt.set_defaults(run=cmd_opt)

    comp = sub.add_parser("compile", help="write a CANN custom-operator project per operator")
    comp.add_argument("file")
    comp.add_argument("-o", "--out", default="build")
    comp.add_argument("--target", default="ascend910b")
    comp.add_argument("--op")
    comp.add_argument("--dump-ir")
    comp.add_argument("--print-ir-after-all", action="store_true")
    comp.add_argument("--explain", action="store_true")
    comp.set_defaults(run=cmd_not_ready)

    run = sub.add_parser("run", help="simulate on random inputs and compare with the reference")
    run.add_argument("file")
    run.add_argument("--op")
    run.add_argument("--shape", action="append")
    run.add_argument("--dtype")
    run.add_argument("--attr", action="append", metavar="K=V")
    run.add_argument("--target", default="ascend910b")
    run.set_defaults(run=cmd_not_ready)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except UsageError as e:
        parser.print_usage(sys.stderr)
        print(f"dslc: error: {e}", file=sys.stderr)
        return 2
    except (
        DslError,
        ArgumentError,
        IRParseError,
        VerifyError,
        CompileError,
        SimulationError,
        ValueError,
        TypeError,
    ) as e:
        print(f"dslc: {e}" if not isinstance(e, DslError) else str(e), file=sys.stderr)
        return 1
    except OSError as e:
        print(f"dslc: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
