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


def cmd_compile(args) -> int:
    from backends.ascendc.compile import lower
    from backends.ascendc.explain import func_ledger
    from backends.ascendc.project import write_project
    from backends.ascendc.targets import get_target

    from .loader import load_operators, pick_operator

    ops = load_operators(args.file)
    chosen = [pick_operator(ops, args.op, args.file)] if args.op else list(ops.values())
    target = get_target(args.target)
    dump = (lambda s: sys.stderr.write(s)) if args.print_ir_after_all else None
    failed = 0
    for op in chosen:
        try:
            compiled = lower(
                op,
                args.target,
                dump=dump,
                dump_dir=Path(args.dump_ir) if args.dump_ir else None,
                verify_each=args.verify_each,
            )
            path = write_project(Path(args.out), compiled.plan, compiled.files, {})
        except CompileError as e:  # report it and go on with the file's other operators
            print(f"dslc: {e}", file=sys.stderr)
            failed += 1
            continue
        keys = ", ".join(str(v.key) for v in compiled.plan.variants)
        print(f"dslc: wrote {path} ({len(compiled.plan.variants)} kernel variants, tiling keys {keys})")
        if args.explain:
            for v in compiled.plan.variants:
                print("\n".join(func_ledger(v.func, v.key, target.ub_usable_bytes).lines()))
    return 1 if failed else 0


def parse_shape(text: str) -> tuple[int, ...]:
    try:
        dims = tuple(int(x) for x in text.replace("x", ",").split(",") if x.strip())
    except ValueError:
        raise UsageError(f"--shape expects comma-separated integers, got '{text}'") from None
    if any(d < 0 for d in dims):
        raise UsageError(f"--shape dims must be >= 0, got '{text}'")
    return dims


def random_call(args, default_shape: str):
    """(op, dtype, attrs, arrays): the operator a run/profile command names, with random inputs."""
    import numpy as np

    from backends.ascendc.verify import random_inputs

    from .dtypes import dtype_from_name
    from .loader import load_operators, pick_operator

    op = pick_operator(load_operators(args.file), args.op, args.file)
    attrs = parse_attrs(args.attr)
    dtype = dtype_from_name(args.dtype) if args.dtype else op.dtypes[0]
    if dtype not in op.dtypes:
        raise ArgumentError(f"{op.name} is not generated for {dtype}")
    values = op.check_attrs(attrs)
    tensors = [d for d in op._def.inputs if not d.is_scalar]
    shapes = [parse_shape(s) for s in (args.shape or [default_shape])]
    if len(shapes) not in (1, len(tensors)):
        raise UsageError(f"give one --shape for all tensor inputs or one per tensor input ({len(tensors)})")
    arrays = random_inputs(op, dtype, values, shapes, np.random.default_rng(args.seed))
    return op, dtype, attrs, arrays


def cmd_run(args) -> int:
    from backends.ascendc.simulate import simulate

    from .precision import compare, output_tolerances

    op, dtype, attrs, arrays = random_call(args, "4096")
    ref = op.reference(*arrays, **attrs)
    outs, result = simulate(op, arrays, attrs, target=args.target, cores=args.cores)
    refs = ref if isinstance(ref, tuple) else (ref,)
    outs = outs if isinstance(outs, tuple) else (outs,)
    tols = output_tolerances(op, dtype, **attrs)  # exact unless an approximated op is on the path
    ok = True
    for name, o, r in zip(op.outputs, outs, refs):
        if r is None:
            print(f"{name}: not produced by this variant")
            continue
        c = compare(o, r, tols[name])
        ok &= c.ok
        verdict = "ok" if c.ok else f"MISMATCH: {c.detail}"
        print(f"{name}: max abs err {c.max_abs:.3g}, max rel err {c.max_rel:.3g} ({tols[name]}) -> {verdict}")
    cnt = result.counters
    dma = sum(cnt.get(p, {}).get("dma", 0) for p in ("MTE2", "MTE3"))
    print(
        f"tiling key {result.tiling_key}, block dim {result.block_dim}, DMA copies {dma}, "
        f"UB peak {cnt.get('ub_peak_bytes', 0)} B"
    )
    print(f"{op.name}[{dtype}] {'matches' if ok else 'does NOT match'} the reference")
    return 0 if ok else 1


def cmd_profile(args) -> int:
    from backends.ascendc.profile import profile

    op, _, attrs, arrays = random_call(args, "1048576")
    report = profile(op, arrays, attrs, target=args.target, cores=args.cores)
    print(report)
    if args.trace:
        print(f"trace written to {report.save_trace(args.trace)}")
    return 0


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
    comp.add_argument("--explain", action="store_true", help="print the UB ledger and tile of every variant")
    comp.add_argument(
        "--verify-each",
        action="store_true",
        help="interpret the IR after every pass on random inputs and compare with the reference",
    )
    comp.set_defaults(run=cmd_compile)

    def random_run_args(parser) -> None:  # shared by run and profile
        parser.add_argument("file")
        parser.add_argument("--op")
        parser.add_argument("--shape", action="append")
        parser.add_argument("--dtype")
        parser.add_argument("--attr", action="append", metavar="K=V")
        parser.add_argument("--target", default="ascend910b")
        parser.add_argument("--cores", type=int)
        parser.add_argument("--seed", type=int, default=0)

    run = sub.add_parser("run", help="simulate on random inputs and compare with the reference")
    random_run_args(run)
    run.set_defaults(run=cmd_run)

    prof = sub.add_parser("profile", help="the performance model's report (and a Perfetto trace)")
    random_run_args(prof)
    prof.add_argument("--trace", help="write a Chrome/Perfetto trace JSON here")
    prof.set_defaults(run=cmd_profile)
    return p


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"dslc: warning: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    import warnings

    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return _main(argv)


def _main(argv: list[str] | None) -> int:
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
