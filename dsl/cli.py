"""The ``dslc`` command line (contract: DESIGN.md section 3).

Exit status: 0 success, 1 user error (a message, no traceback), 2 bad usage (argparse style: the
usage line, then the message). Every diagnostic line starts ``dslc: error:`` (``dslc:
FILE:LINE:COL: error:`` for one with a source location, followed by the source line and a caret
under the column) or ``dslc: warning:``.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from pathlib import Path

from .errors import ArgumentError, CompileError, DslError, IRParseError, SimulationError, VerifyError
from .ir.parser import parse_scalar_text
from .sizes import format_size, parse_size

MAX_DIMS = 8
DEFAULT_RUN_SHAPE = "4096"
DEFAULT_PROFILE_SHAPE = "1048576"
MEMORY_SHARE = 0.5  # default limit of dslc run/profile: this share of the available memory
ENV_MAX_MEMORY = "DSLC_MAX_MEMORY"


class UsageError(Exception):
    """Bad usage found after argument parsing (exit 2)."""


class CliError(Exception):
    """A user error the CLI itself finds: a path, a limit (exit 1)."""


def version() -> str:
    try:
        from importlib.metadata import version as dist_version

        return dist_version("dslc")
    except Exception:  # noqa: BLE001 - not installed as a distribution
        return "unknown"


# -- argument types: a bad value is a usage error naming the option (exit 2) ------------------------


def shape_arg(text: str) -> tuple[int, ...]:
    parts = [p.strip() for p in re.split(r"[,x]", text)]
    if not text.strip() or not all(re.fullmatch(r"[+-]?\d+", p) for p in parts):
        raise argparse.ArgumentTypeError(
            f"expected sizes separated by commas, such as 4096 or 32,128, got '{text}'"
        )
    dims = tuple(int(p) for p in parts)
    if any(d < 0 for d in dims):
        raise argparse.ArgumentTypeError(f"sizes must be >= 0, got '{text}'")
    if len(dims) > MAX_DIMS:
        raise argparse.ArgumentTypeError(f"at most {MAX_DIMS} dims, got {len(dims)} in '{text}'")
    return dims


def named_shape_arg(text: str) -> tuple[str | None, tuple[int, ...] | None]:
    """``dslc check --shape``: ``SHAPE`` or ``NAME=SHAPE`` (``NAME=-``: the input is absent)."""
    name, eq, dims = text.partition("=")
    if not eq:
        return None, shape_arg(text)
    name = name.strip()
    if not name.isidentifier():
        raise argparse.ArgumentTypeError(f"'{name}' is not an input name (in '{text}')")
    return name, (None if dims.strip() == "-" else shape_arg(dims))


def fill_arg(text: str) -> tuple[str, float]:
    name, eq, value = text.partition("=")
    try:
        if not eq or not name.strip().isidentifier():
            raise ValueError
        return name.strip(), float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected NAME=NUMBER, such as lr=0.001, got '{text}'") from None


def positive_int(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return int(text)


def seed_arg(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got '{text}'")
    return int(text)


def attr_arg(text: str) -> tuple[str, object]:
    if "=" not in text or not text.split("=", 1)[0].strip():
        raise argparse.ArgumentTypeError(f"expected key=value, got '{text}'")
    k, v = text.split("=", 1)
    return k.strip(), parse_scalar_text(v.strip())


def range_arg(text: str) -> tuple[str | None, float, float]:
    name, _, bounds = text.rpartition("=")
    parts = bounds.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        lo, hi = float(parts[0]), float(parts[1])
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected LO,HI or NAME=LO,HI, such as -1,1 or x=0.1,4, got '{text}'"
        )
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo >= hi:
        raise argparse.ArgumentTypeError(f"expected finite bounds with LO < HI, got '{text}'")
    name = name.strip()
    if name and not name.isidentifier():
        raise argparse.ArgumentTypeError(f"'{name}' is not an input name (in '{text}')")
    return (name or None), lo, hi


def size_arg(text: str) -> int:
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _merge_negative_values(argv: list[str]) -> list[str]:
    """``--range -1,1`` -> ``--range=-1,1``: argparse would take ``-1,1`` for an option."""
    out: list[str] = []
    it = iter(range(len(argv)))
    for i in it:
        a = argv[i]
        if a in ("--range", "--shape") and i + 1 < len(argv) and re.match(r"-[\d.]", argv[i + 1]):
            out.append(f"{a}={argv[i + 1]}")
            next(it, None)
        else:
            out.append(a)
    return out


# -- paths --------------------------------------------------------------------------------------------


def _os_reason(e: OSError) -> str:
    text = e.strerror or (os.strerror(e.errno) if e.errno else str(e))
    return text[:1].lower() + text[1:]


def check_dir_option(option: str, value: str) -> Path:
    """A directory an option names, which dslc will create if needed: fail early, naming the
    option, when it is a file, lies under a file, or cannot be written."""
    path = Path(value)
    for parent in (path, *path.parents):
        if parent.exists():
            if not parent.is_dir():
                what = "not a directory" if parent == path else f"{parent} is not a directory"
                raise CliError(f"{option} {value}: {what}")
            if not os.access(parent, os.W_OK | os.X_OK):
                raise CliError(f"{option} {value}: {parent} is not writable (permission denied)")
            break
    return path


def check_file_option(option: str, value: str) -> Path:
    """A file an option names, which dslc will write."""
    path = Path(value)
    if path.is_dir():
        raise CliError(f"{option} {value}: is a directory")
    parent = path.parent
    if not parent.is_dir():
        raise CliError(f"{option} {value}: no such directory: {parent}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CliError(f"{option} {value}: {parent} is not writable (permission denied)")
    return path


def check_backend_options(args) -> None:
    """--target, --cann and --vector-path together: a release that lacks the target, or RegBase on
    a MemBase-only target, is bad usage (exit 2); RegBase on ascend950 is not implemented (exit 1)."""
    from backends.ascendc.cann import OLDEST_RELEASE, check_cann

    try:
        args.cann = check_cann(args.target, args.cann)
    except ArgumentError:
        oldest = OLDEST_RELEASE[args.target]
        raise UsageError(
            f"--cann {args.cann} does not support --target {args.target} (CANN {args.cann} has no "
            f"{args.target} implementation); use --cann {oldest} or later"
        ) from None
    if args.vector_path == "regbase" and args.target != "ascend950":
        raise UsageError(f"--vector-path regbase is for --target ascend950; {args.target} is MemBase only")


# -- commands ----------------------------------------------------------------------------------------


def cmd_ir(args) -> int:
    from .loader import load_operators, pick_operator

    op = pick_operator(load_operators(args.file), args.op, args.file)
    attrs = dict(args.attr or [])
    sys.stdout.write(op.ir(args.dtype, **attrs) if args.dtype is not None else op.ir(**attrs))
    return 0


def cmd_opt(args) -> int:
    from passes import PassManager, parse_pipeline

    from .ir import parse_module, print_module

    if args.file == "-":
        text = sys.stdin.read()
    else:
        path = Path(args.file)
        if not path.exists():
            raise ArgumentError(f"no such file: {args.file}")
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as e:
            reason = _os_reason(e) if isinstance(e, OSError) else "not a text file"
            raise CliError(f"{args.file}: {reason}") from None
    try:
        module = parse_module(text)
    except IRParseError as e:
        e.source_name = args.file if args.file != "-" else "<stdin>"
        raise
    pipeline = parse_pipeline(args.passes or "")
    dump = (lambda s: sys.stderr.write(s)) if args.print_ir_after_all else None
    PassManager(pipeline, verify_each=True, print_after_all=dump).run(module)
    sys.stdout.write(print_module(module))
    return 0


def cmd_compile(args) -> int:
    from backends.ascendc.compile import lower
    from backends.ascendc.explain import explain_lines
    from backends.ascendc.project import OutputError, write_project
    from backends.ascendc.targets import get_target

    from .loader import load_operators, pick_operator
    from .operator import InvalidOperator

    check_backend_options(args)
    out = check_dir_option("-o", args.out)
    dump_dir = check_dir_option("--dump-ir", args.dump_ir) if args.dump_ir else None
    ops = load_operators(args.file)
    chosen = [pick_operator(ops, args.op, args.file)] if args.op else list(ops.values())
    target = get_target(args.target)
    dump = (lambda s: sys.stderr.write(s)) if args.print_ir_after_all else None
    failed, done = [], []
    for op in chosen:  # every operator is checked before any project is written
        if isinstance(op, InvalidOperator):
            print(format_error(op.error), file=sys.stderr)
            failed.append(op.name)
            continue
        try:
            compiled = lower(
                op,
                args.target,
                dump=dump,
                dump_dir=dump_dir,
                verify_each=args.verify_each,
                cann=args.cann,
                vector_path=args.vector_path,
            )
        except CompileError as e:  # report it and go on with the file's other operators
            print(format_error(e), file=sys.stderr)
            failed.append(op.name)
            continue
        except OSError as e:
            raise CliError(f"--dump-ir {args.dump_ir}: {_os_reason(e)}") from None
        done.append((op, compiled))
    for op, compiled in done:
        try:
            path = write_project(out, compiled.plan, compiled.files, {})
        except OutputError as e:
            raise CliError(f"-o {args.out}: {e.reason}") from None
        variants = compiled.plan.variants
        dtypes = ", ".join(dict.fromkeys(v.dtype.name for v in variants))
        keys = sorted({v.func.attributes["tiling_key"] for v in variants})
        chunked = sorted({v.key for v in compiled.plan.chunk_variants})  # row ops: rows too long for UB
        twins = f"; column-chunked twins: tiling keys {chunked[0]}-{chunked[-1]}" if len(chunked) > 1 else ""
        twins = f"; column-chunked twin: tiling key {chunked[0]}" if len(chunked) == 1 else twins
        print(
            f"dslc: wrote {path} ({len(variants)} kernel variant{'s' if len(variants) > 1 else ''}: dtypes {dtypes} x "
            f"tiling key{'s' if len(keys) > 1 else ''} {', '.join(map(str, keys))}{twins})"
        )
        if args.verify_each:
            print(verify_summary(op, compiled))
        if args.explain:
            for v in variants:
                print("\n".join(explain_lines(v.func, v.key, target.ub_usable_bytes, target)))
    if failed:
        wrote = f"wrote the other {len(done)}" if done else "wrote nothing"
        print(
            f"dslc: error: {len(failed)} of {len(chosen)} operators failed ({', '.join(failed)}); {wrote}",
            file=sys.stderr,
        )
        return 1
    return 0


def verify_summary(op, compiled) -> str:
    checks = list(compiled.checks.values())
    passes = checks[0].passes if checks else []  # every dtype runs the same pipeline
    combos = max((len(c.cases) for c in checks), default=0)
    dtypes = ", ".join(dt.name for dt in compiled.checks)
    return (
        f"dslc: --verify-each: {op.name}: the IR after each of {len(passes)} passes ({', '.join(passes)}) "
        f"matches the reference for {dtypes} on {combos} static-attribute combination"
        f"{'s' if combos != 1 else ''} ({sum(c.comparisons for c in checks)} output comparisons)"
    )


# -- run / profile: random inputs ---------------------------------------------------------------------


def available_memory() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def memory_limit(args) -> tuple[int | None, str]:
    """(bytes, where the limit comes from) for a run's memory; None: no limit known."""
    if args.max_memory is not None:
        return args.max_memory, "--max-memory"
    env = os.environ.get(ENV_MAX_MEMORY)
    if env:
        try:
            return parse_size(env), ENV_MAX_MEMORY
        except ValueError as e:
            raise UsageError(f"{ENV_MAX_MEMORY}: {e}") from None
    avail = available_memory()
    if avail is None:
        return None, ""
    return int(avail * MEMORY_SHARE), f"half of the {format_size(avail)} available"


def run_memory_bytes(op, dtype, values, shapes: list[tuple[int, ...]]) -> int:
    """About how much memory ``dslc run`` needs: each input twice (the array, the emulator's GM
    copy), each output three times (GM, the copy read back, the reference), the reference
    interpreter's f32 intermediates (one per op of the variant), and float64 temporaries of the
    input draw and the comparison (six per element)."""
    variant = op.variant(dtype, values)
    sizes, k = [], 0
    total = 0
    for d in op._def.inputs:
        shape = (1,) if d.is_scalar else shapes[min(k, len(shapes) - 1)]
        k += 0 if d.is_scalar else 1
        n = math.prod(shape)
        sizes.append(n)
        total += 2 * n * (d.spec.dtype or dtype).np.itemsize
    n = max(sizes, default=0)
    total += sum(3 * n * o.type.dtype.np.itemsize for o in variant.outputs)
    total += (len(sizes) + sum(1 for _ in variant.walk())) * n * 4
    return total + 6 * 8 * n


def default_input_shape(op, flat: tuple[int, ...]) -> tuple[int, ...]:
    """The shape a run without --shape uses: ``flat`` for unshaped inputs; when an input declares
    more named dims (``Tensor["R", "C"]``), rows of 8 in front of the same element count."""
    dims = max((len(d.spec.dims) for d in op._def.inputs if not d.is_scalar and d.spec.dims), default=1)
    if dims <= len(flat):
        return flat
    lead = (8,) * (dims - len(flat))
    return lead + (max(flat[0] // 8 ** len(lead), 1),) + flat[1:]


def random_call(args, default_shape: str):
    """(op, dtype, attrs, arrays, notes): the operator a run/profile command names, with random
    inputs, and what was drawn for each input."""
    import numpy as np

    check_backend_options(args)

    from backends.ascendc.compile import refuse_matmul
    from backends.ascendc.verify import draw_inputs, input_shapes

    from .dtypes import dtype_from_name
    from .loader import load_operators, pick_operator

    op = pick_operator(load_operators(args.file), args.op, args.file)
    refuse_matmul(op, getattr(args, "target", None) or "ascend910b")  # before any input is drawn
    attrs = dict(args.attr or [])
    dtype = dtype_from_name(args.dtype) if args.dtype is not None else op.dtypes[0]
    if dtype not in op.dtypes:
        raise ArgumentError(f"{op.name} is not generated for {dtype}")
    values = op.check_attrs(attrs)
    try:
        shapes = input_shapes(op, args.shape or [default_input_shape(op, shape_arg(default_shape))])
    except ArgumentError as e:  # the --shape options do not fit the inputs: bad usage
        raise UsageError(str(e)) from None
    need = run_memory_bytes(op, dtype, values, shapes)
    limit, why = memory_limit(args)
    if limit is not None and need > limit:
        given = " ".join(f"--shape {','.join(map(str, s))}" for s in shapes)
        raise CliError(
            f"{given}: this run needs about {format_size(need)} of memory (inputs, outputs, the "
            f"reference's intermediates and the emulator's copies), more than the limit of "
            f"{format_size(limit)} ({why}); use a smaller --shape, or set the limit with "
            f"--max-memory SIZE or {ENV_MAX_MEMORY}=SIZE"
        )
    ranges = {name: (lo, hi) for name, lo, hi in args.range or []}
    arrays, notes = draw_inputs(op, dtype, values, shapes, np.random.default_rng(args.seed), ranges=ranges)
    return op, dtype, attrs, arrays, notes


def inputs_line(notes: dict[str, str], seed: int) -> str:
    from backends.ascendc.verify import DECLARED

    groups: dict[str, list[str]] = {}
    for name, text in notes.items():
        groups.setdefault(text, []).append(name)
    line = f"inputs (seed {seed}): " + "; ".join(f"{', '.join(n)}: {t}" for t, n in groups.items())
    if any(text.endswith(DECLARED) for text in notes.values()):
        line += "\n(declared: the range the operator's @dsl.op(ranges=...) gives; --range NAME=LO,HI overrides it)"
    return line


def cmd_run(args) -> int:
    import numpy as np

    from backends.ascendc.simulate import simulate

    from .precision import compare, output_tolerances

    op, dtype, attrs, arrays, notes = random_call(args, DEFAULT_RUN_SHAPE)
    print(inputs_line(notes, args.seed))
    ref = op.reference(*arrays, dtype=dtype, **attrs)
    outs, result = simulate(
        op,
        arrays,
        attrs,
        target=args.target,
        cores=args.cores,
        vector_path=args.vector_path,
        cann=args.cann,
        dtype=dtype,
    )
    refs = ref if isinstance(ref, tuple) else (ref,)
    outs = outs if isinstance(outs, tuple) else (outs,)
    tols = output_tolerances(op, dtype, **attrs)  # exact unless an approximated op is on the path
    from .precision import func_matmul_bound

    bound = func_matmul_bound(op.func(dtype), dict(zip(op.inputs, arrays)))  # None without a matmul
    ok, nonfinite = True, False
    for name, o, r in zip(op.outputs, outs, refs):
        if r is None:
            print(f"{name}: not produced by this variant")
            continue
        c = compare(o, r, tols[name], bound=bound if tols[name].matmul else None)
        ok &= c.ok
        verdict = "ok" if c.ok else f"MISMATCH: {c.detail}"
        line = f"{name}: max abs err {c.max_abs:.3g}, max rel err {c.max_rel:.3g} ({tols[name]}) -> {verdict}"
        if r.size == 0:
            line = f"{name}: empty (shape {r.shape}), nothing to compare -> ok"
        elif r.dtype.kind == "f" or r.dtype.name == "bfloat16":
            bad = int(np.count_nonzero(~np.isfinite(np.asarray(r, dtype=np.float64))))
            if bad:
                nonfinite = True
                line += f" ({bad} of {r.size} reference values are NaN/inf, compared NaN-aware)"
        print(line)
    if nonfinite:
        print(
            "note: NaN/inf come from inputs outside a function's domain (sqrt or log of a negative, "
            "division by 0); --range LO,HI or --range NAME=LO,HI draws from a narrower range"
        )
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

    trace = check_file_option("--trace", args.trace) if args.trace else None
    op, dtype, attrs, arrays, notes = random_call(args, DEFAULT_PROFILE_SHAPE)
    print(inputs_line(notes, args.seed))
    report = profile(
        op,
        arrays,
        attrs,
        target=args.target,
        cores=args.cores,
        sku=args.sku,
        l2=args.l2,
        project=args.project,
        vector_path=args.vector_path,
        cann=args.cann,
        dtype=dtype,
    )
    print(report.describe(verbose=args.verbose))
    if trace is not None:
        try:
            print(f"trace written to {report.save_trace(trace)}")
        except OSError as e:
            raise CliError(f"--trace {args.trace}: {_os_reason(e)}") from None
    return 0


def cmd_check(args) -> int:
    from backends.ascendc.check import CheckUsageError, format_report, include_dirs, load_golden, run_check
    from backends.ascendc.targets import get_target

    try:
        golden = load_golden(args.golden) if args.golden else None
        dtypes = [d.strip() for d in args.dtype.split(",")] if args.dtype else None
        report = run_check(
            Path(args.dir),
            args.op,
            get_target(args.target),
            shapes=args.shape,
            dtypes=dtypes,
            attrs=args.attr or [],
            includes=include_dirs(args.include or []),
            golden=golden,
            max_faults=args.max_faults,
            seed=args.seed,
            cores=args.cores,
            fills=args.fill or [],
        )
    except CheckUsageError as e:
        raise UsageError(str(e)) from None
    print(format_report(report, args.seed))
    return 0 if report.ok else 1


# -- the parser ---------------------------------------------------------------------------------------


class _Version(argparse.Action):
    """--version, looked up (importlib.metadata) only when asked for."""

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(f"dslc {version()}\n")
        parser.exit(0)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse style, with the dslc prefix every diagnostic has
        self.print_usage(sys.stderr)
        self.exit(2, f"dslc: error: {message}\n")


EPILOG = """exit status: 0 success, 1 user error (a message, no traceback), 2 bad usage.
environment: DSLC_CACHE (cache folder, default ~/.cache/dslc), DSLC_CACHE_MAX (its size
bound, default 1G), DSLC_MAX_MEMORY (memory limit of run/profile, default half the available),
DSLC_CHECK_INCLUDE (include folders of check, separated by ':', searched after the -I ones)."""


def build_parser() -> argparse.ArgumentParser:
    from backends.ascendc.cann import CANN_RELEASES
    from backends.ascendc.perf.constants import SKUS
    from backends.ascendc.targets import TARGETS, VECTOR_PATHS

    targets = sorted(TARGETS)
    fmt = argparse.RawDescriptionHelpFormatter
    p = _Parser(
        prog="dslc",
        description="Compile @dsl.op Python operators to Ascend C (CANN custom-operator projects).",
        epilog=EPILOG,
        formatter_class=fmt,
    )
    p.add_argument("--version", action=_Version, nargs=0, help="show program's version number and exit")
    sub = p.add_subparsers(dest="command", required=True, metavar="{ir,opt,compile,run,check,profile}")

    def subparser(name: str, help: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=help, epilog=EPILOG, formatter_class=fmt)
        sp.set_defaults(parser=sp)
        return sp

    def backend_args(sp) -> None:  # compile, run, profile
        sp.add_argument(
            "--vector-path",
            default="auto",
            choices=VECTOR_PATHS,
            help="the vector API the kernels use: membase (LocalTensor), regbase (register vector functions; "
            "ascend950 only) or auto, the select-vector-path rule per tile loop (default: auto)",
        )
        sp.add_argument(
            "--cann",
            choices=CANN_RELEASES,
            help="the CANN release whose API spellings to emit where releases differ (default: the oldest "
            "that supports the target: 8.5 for ascend910b, 9.0 for ascend950)",
        )

    def op_args(sp, what: str) -> None:
        sp.add_argument("file", help="a Python file with @dsl.op operators")
        sp.add_argument("--op", metavar="NAME", help=f"the operator to {what} (default: the file's only one)")

    def dtype_arg(sp) -> None:
        sp.add_argument(
            "--dtype",
            metavar="T",
            help="element type T: f16, bf16, f32, i8, i32, u8 (default: the op's first)",
        )

    def attr_args(sp) -> None:
        sp.add_argument(
            "--attr",
            action="append",
            type=attr_arg,
            metavar="K=V",
            help="an attribute value, e.g. amsgrad=true (repeatable; default: the declared defaults)",
        )

    ir = subparser("ir", "print the tensor-level IR of one specialization")
    op_args(ir, "print")
    dtype_arg(ir)
    attr_args(ir)
    ir.set_defaults(run=cmd_ir)

    opt = subparser("opt", "parse textual IR, run passes, print IR (like mlir-opt)")
    opt.add_argument("file", help="an .ir file, or - for standard input")
    opt.add_argument(
        "--passes",
        default="",
        metavar="P1,P2",
        help="comma-separated pipeline, e.g. canonicalize,specialize{amsgrad=true} (default: none)",
    )
    opt.add_argument(
        "--print-ir-after-all", action="store_true", help="print the IR after every pass to stderr"
    )
    opt.set_defaults(run=cmd_opt)

    comp = subparser("compile", "write a CANN custom-operator project per operator")
    op_args(comp, "compile")
    comp.add_argument(
        "-o", "--out", default="build", metavar="OUT", help="write OUT/<op>/ per operator (default: build)"
    )
    comp.add_argument("--target", default="ascend910b", choices=targets, help="the NPU (default: ascend910b)")
    backend_args(comp)
    comp.add_argument("--dump-ir", metavar="DIR", help="write the final IR of each dtype to DIR/<op>.<T>.ir")
    comp.add_argument(
        "--print-ir-after-all", action="store_true", help="print the IR after every pass to stderr"
    )
    comp.add_argument("--explain", action="store_true", help="print the UB ledger and tile of every variant")
    comp.add_argument(
        "--verify-each",
        action="store_true",
        help="interpret the IR after every pass on random inputs and compare with the reference",
    )
    comp.set_defaults(run=cmd_compile)

    def random_run_args(sp, what: str, default_shape: str) -> None:  # shared by run and profile
        op_args(sp, what)
        sp.add_argument(
            "--shape",
            action="append",
            type=shape_arg,
            metavar="N[,M...]",
            help=f"input shape: one for all tensor inputs, or one per tensor input (default: {default_shape})",
        )
        dtype_arg(sp)
        attr_args(sp)
        sp.add_argument(
            "--target", default="ascend910b", choices=targets, help="the NPU (default: ascend910b)"
        )
        backend_args(sp)
        sp.add_argument(
            "--cores",
            type=positive_int,
            metavar="N",
            help="AI cores the platform reports (default: the target's)",
        )
        sp.add_argument(
            "--seed", type=seed_arg, default=0, metavar="S", help="random seed of the inputs (default: 0)"
        )
        sp.add_argument(
            "--range",
            action="append",
            type=range_arg,
            metavar="[NAME=]LO,HI",
            help="draw inputs (or input NAME) uniformly from [LO, HI); repeatable (default: floats in "
            "[-2, 2) with 1/16 exact zeros, integers in [-8, 8), unsigned in [0, 16))",
        )
        sp.add_argument(
            "--max-memory",
            type=size_arg,
            metavar="SIZE",
            help=f"refuse a run needing more memory than SIZE, e.g. 8G (default: ${ENV_MAX_MEMORY}, "
            "else half the available memory)",
        )

    run = subparser("run", "simulate on random inputs and compare with the reference")
    random_run_args(run, "run", DEFAULT_RUN_SHAPE)
    run.set_defaults(run=cmd_run)

    chk = subparser(
        "check",
        "run a CANN operator folder (op_host/ with its OpDef, op_kernel/) on the emulator as it is: "
        "every fault with its line, and the outputs against a golden function",
    )
    chk.add_argument("dir", help="the operator folder (op_host/*.cpp with OP_ADD, op_kernel/<op>.cpp)")
    chk.add_argument("--op", required=True, metavar="OpType", help="the OpType its OpDef registers")
    chk.add_argument(
        "-I",
        dest="include",
        action="append",
        metavar="DIR",
        help="a folder searched for the headers the sources include (repeatable; also $DSLC_CHECK_INCLUDE)",
    )
    chk.add_argument(
        "--shape",
        action="append",
        type=named_shape_arg,
        metavar="[NAME=]N[,M...]",
        help="input shape: one for all required inputs, one per required input, or one per input "
        "(default: 4096); NAME=SHAPE sets input NAME's (an optional one becomes present), NAME=- leaves "
        "it absent",
    )
    chk.add_argument(
        "--dtype",
        metavar="T[,T...]",
        help="the first input's dtype, or one per input: picks the OpDef's DataType column (default: "
        "the first column)",
    )
    attr_args(chk)
    chk.add_argument(
        "--fill",
        action="append",
        type=fill_arg,
        metavar="NAME=VALUE",
        help="input NAME is VALUE everywhere instead of random (a learning rate, an epsilon); repeatable",
    )
    chk.add_argument(
        "--golden",
        metavar="MODULE:FUNCTION",
        help="compare the outputs with FUNCTION(*inputs, **attrs) of MODULE (a module name or a .py file)",
    )
    chk.add_argument(
        "--max-faults",
        type=positive_int,
        default=20,
        metavar="N",
        help="stop after N distinct faults (default: 20)",
    )
    chk.add_argument("--target", default="ascend910b", choices=targets, help="the NPU (default: ascend910b)")
    chk.add_argument(
        "--cores",
        type=positive_int,
        metavar="N",
        help="AI cores the platform reports (default: the target's)",
    )
    chk.add_argument(
        "--seed", type=seed_arg, default=0, metavar="S", help="random seed of the inputs (default: 0)"
    )
    chk.set_defaults(run=cmd_check)

    prof = subparser("profile", "the performance model's report (and a Perfetto trace)")
    random_run_args(prof, "profile", DEFAULT_PROFILE_SHAPE)
    prof.add_argument("--trace", metavar="FILE", help="write a Chrome/Perfetto trace JSON to FILE")
    prof.add_argument(
        "--verbose",
        action="store_true",
        help="also print the HBM roofline and every model constant with its source",
    )
    prof.add_argument(
        "--sku",
        choices=sorted(SKUS),
        help="the chip the model prices the kernel on (default: 910B1 for ascend910b, 950PR for ascend950)",
    )
    prof.add_argument(
        "--l2",
        choices=("warm", "cold", "flushed"),
        default="warm",
        help="warm: inputs that fit in L2 are there, as in repeated runs; cold: they come from HBM; "
        "flushed: cold, and the L2 is full of a previous kernel's dirty lines, so outputs cost HBM "
        "write-backs too (default: warm)",
    )
    prof.add_argument(
        "--project",
        metavar="DIR",
        help="profile the sources of a project `dslc compile` wrote (and you may have edited) instead of "
        "generating it anew",
    )
    prof.set_defaults(run=cmd_profile)
    return p


# -- errors and main ----------------------------------------------------------------------------------

_LOCATED = re.compile(r"^\S.*?:\d+:\d+: error: ")


def format_error(e: BaseException) -> str:
    """``dslc: FILE:LINE:COL: error: ...`` (with the source excerpt) or ``dslc: error: ...``."""
    if isinstance(e, IRParseError) and e.line:
        name = getattr(e, "source_name", "<ir>")
        return f"dslc: {name}:{e}"
    if isinstance(e, IRParseError):
        return f"dslc: error: {e.msg}"
    if isinstance(e, DslError) and not e.lineno:
        return f"dslc: error: {e.msg}"
    text = str(e)
    return f"dslc: {text}" if _LOCATED.match(text) else f"dslc: error: {text}"


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"dslc: warning: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    import warnings

    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    try:
        args, extra = parser.parse_known_args(
            _merge_negative_values(list(sys.argv[1:] if argv is None else argv))
        )
        if extra:  # reported with the subcommand's usage line, not the top-level one
            args.parser.error(f"unrecognized arguments: {' '.join(extra)}")
    except SystemExit as e:  # bad usage (2), or --help/--version (0): a status, also in-process
        return e.code if isinstance(e.code, int) else 0
    try:
        return args.run(args)
    except UsageError as e:
        args.parser.print_usage(sys.stderr)
        print(f"dslc: error: {e}", file=sys.stderr)
        return 2
    except (
        CliError,
        DslError,
        ArgumentError,
        IRParseError,
        VerifyError,
        CompileError,
        SimulationError,
        ValueError,
        TypeError,
    ) as e:
        print(format_error(e), file=sys.stderr)
        return 1
    except BrokenPipeError:  # `dslc run ... | head`: the reader left; not an error of the run
        try:
            sys.stdout = open(os.devnull, "w")  # the interpreter's final flush must not fail again
        except OSError:
            pass
        return 141  # 128 + SIGPIPE, what a shell reports for a command killed by the pipe
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"dslc: error: {where}{_os_reason(e)}", file=sys.stderr)
        return 1
    except MemoryError:
        print("dslc: error: out of memory (try a smaller --shape or a lower --max-memory)", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("dslc: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # noqa: BLE001 - a bug in dslc: say so in one line, never a traceback
        if os.environ.get("DSLC_TRACEBACK"):
            raise
        print(
            f"dslc: error: internal compiler error ({type(e).__name__}: {e}); this is a bug in dslc, "
            "please report it with the operator's source (DSLC_TRACEBACK=1 shows the traceback)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
