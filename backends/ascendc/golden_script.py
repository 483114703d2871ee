"""The golden-data script placed in every generated project (DESIGN section 10).

A user with a real NPU generates inputs and reference outputs with dslc's interpreter, runs the
built operator on the inputs, and compares its outputs under dslc's precision standard.
"""

GOLDEN_PY = '''"""Golden data for {op_type}, from dslc's reference interpreter (needs `pip install dslc`).

    python golden/golden.py gen --shape 4096 [--shape R,C per input] [--dtype f16] [--attr k=v]
                                [--seed 0] -o data
        writes data/input_<name>.bin, data/golden_<name>.bin and data/meta.json; one --shape for
        all tensor inputs (an input with named dims, such as Tensor["C"], takes the trailing dims
        it declares) or one per tensor input, as for `dslc run`
    python golden/golden.py compare data
        compares data/output_<name>.bin (written by your NPU run, raw little-endian) with the
        golden under dslc's precision standard; exit status 0 when every output matches
"""

import argparse
import importlib.util
import json
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
OP_NAME = "{op_name}"


def load_op():
    from dsl.operator import Operator, collect_invalid

    spec = importlib.util.spec_from_file_location("dslc_golden_source", HERE / "{source_name}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    with collect_invalid():  # another operator of the file may be one dslc rejected
        spec.loader.exec_module(module)

    for value in vars(module).values():
        if isinstance(value, Operator) and value.name == OP_NAME:
            return value
    raise SystemExit(f"{{HERE / '{source_name}'}} defines no operator {{OP_NAME}}")


def parse_value(text):
    from dsl.ir.parser import parse_scalar_text

    return parse_scalar_text(text)


def shape_arg(text):
    parts = text.split(",")
    if not all(p.strip().isdigit() for p in parts):
        raise argparse.ArgumentTypeError(f"expected sizes separated by commas, such as 4096 or 32,128, got '{{text}}'")
    return tuple(int(p) for p in parts)


def gen(args, parser):
    from backends.ascendc.verify import input_shapes, random_inputs
    from dsl.dtypes import dtype_from_name

    op = load_op()
    dtype = dtype_from_name(args.dtype) if args.dtype else op.dtypes[0]
    attrs = dict(kv.split("=", 1) for kv in args.attr or [])
    attrs = {{k: parse_value(v) for k, v in attrs.items()}}
    values = op.check_attrs(attrs)
    try:
        shapes = input_shapes(op, args.shape or [(4096,)])
    except ValueError as e:  # the --shape options do not fit the inputs
        parser.error(str(e))
    arrays = random_inputs(op, dtype, values, shapes, np.random.default_rng(args.seed))
    ref = op.reference(*arrays, dtype=dtype, **attrs)
    refs = ref if isinstance(ref, tuple) else (ref,)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    meta = {{"op": OP_NAME, "dtype": dtype.name, "attrs": attrs, "inputs": [], "outputs": []}}
    for kind, prefix, names, arrs in (("inputs", "input", op.inputs, arrays), ("outputs", "golden", op.outputs, refs)):
        for name, arr in zip(names, arrs):
            entry = {{"name": name, "present": arr is not None}}
            if arr is not None:
                np.ascontiguousarray(arr).tofile(out / f"{{prefix}}_{{name}}.bin")
                entry.update(dtype=str(arr.dtype), shape=list(arr.shape))
            meta[kind].append(entry)
    (out / "meta.json").write_text(json.dumps(meta, indent=2))
    print(f"wrote {{len(op.inputs)}} inputs and {{len(refs)}} golden outputs to {{out}}")


def compare(args):
    import ml_dtypes  # noqa: F401  (registers bfloat16 with numpy)

    from dsl.dtypes import dtype_from_name
    from dsl.precision import compare as check
    from dsl.precision import output_tolerances

    data = pathlib.Path(args.data)
    meta = json.loads((data / "meta.json").read_text())
    # per output: exact unless an approximated function (exp, sqrt, ...) is on its path
    tols = output_tolerances(load_op(), dtype_from_name(meta["dtype"]), **meta["attrs"])
    ok = True
    for entry in meta["outputs"]:
        if not entry["present"]:
            continue
        dt = np.dtype(entry["dtype"])
        golden = np.fromfile(data / f"golden_{{entry['name']}}.bin", dtype=dt).reshape(entry["shape"])
        path = data / f"output_{{entry['name']}}.bin"
        if not path.exists():
            print(f"{{entry['name']}}: missing {{path}}")
            ok = False
            continue
        got = np.fromfile(path, dtype=dt)
        if got.size != golden.size:
            print(f"{{entry['name']}}: {{got.size}} elements, expected {{golden.size}}")
            ok = False
            continue
        tol = tols[entry["name"]]
        if args.rtol is not None and not tol.exact:
            tol = tol.with_rtol(args.rtol)
        c = check(got.reshape(golden.shape), golden, tol)
        ok &= c.ok
        verdict = "ok" if c.ok else f"MISMATCH: {{c.detail}}"
        print(
            f"{{entry['name']}}: max abs err {{c.max_abs:.3g}}, max rel err {{c.max_rel:.3g}} ({{tol}}) -> {{verdict}}"
        )
    return 0 if ok else 1


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument(
        "--shape",
        action="append",
        type=shape_arg,
        help="one for all tensor inputs, or one per tensor input (default: 4096)",
    )
    g.add_argument("--dtype")
    g.add_argument("--attr", action="append")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("-o", "--out", default="data")
    c = sub.add_parser("compare")
    c.add_argument("data")
    c.add_argument(
        "--rtol",
        type=float,
        default=None,
        help="another f32 relative tolerance for outputs with approximated math (exact ones stay exact)",
    )
    args = p.parse_args()
    from dsl.errors import ArgumentError, DslError

    try:
        if args.cmd == "gen":
            gen(args, g)
            return 0
        return compare(args)
    except (ArgumentError, DslError) as e:  # a shape, dtype or attribute the operator does not take
        print(f"golden.py: error: {{e}}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
'''
