"""Report, for every elementwise example and dtype, what the Ascend C backend generates:

* tile size (elements per UB tile) and UB bytes used against the target's usable UB, from the
  backend's UB ledger ``backends.ascendc.explain.ledger(op, dtype, target, **attrs)``;
* DMA transfers per MB moved (MTE2 = GM->UB, MTE3 = UB->GM) and bytes in/out, from the emulator
  counters (``backends.ascendc.sim.simulate_project(...).counters``) of one run on random data;
* compile time of ``op.compile`` (generate + format the project) and the emulator's wall time
  (the first run of a project includes building it with g++; later runs hit the binary cache).

Usage::

    python benchmarks/elementwise_report.py [--size N] [--cores C] [--target T]
        [--op NAME ...] [--dtype f16 ...] [--all-keys] [--buffers] [--json OUT.json]

If the backend is not there yet, the script says so and exits with status 2.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
EXAMPLES = ROOT / "examples"

# The elementwise examples (each defines an operator named like its file).
STEMS = (
    "apply_adam_w",
    "gelu_tanh",
    "silu",
    "leaky_relu",
    "lerp",
    "sgd_momentum",
    "clamp",
    "axpby",
    "softplus",
    "rms_prop",
    "fake_quant",
    "threshold",
    "is_close",
)
MB = 1 << 20


def load_op(stem: str):
    spec = importlib.util.spec_from_file_location(f"dslc_bench_{stem}", EXAMPLES / f"{stem}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return getattr(module, stem)


def backend_or_exit():
    """The backend entry points this report needs, or a clear message and exit status 2."""
    missing = []
    try:
        from backends.ascendc.targets import get_target
    except ImportError as e:  # pragma: no cover - the table exists from the first commit
        missing.append(f"backends.ascendc.targets ({e})")
    try:
        from backends.ascendc.explain import ledger
    except ImportError as e:
        ledger = None
        missing.append(f"backends.ascendc.explain.ledger ({e})")
    try:
        from backends.ascendc.sim import simulate_project
    except ImportError as e:
        simulate_project = None
        missing.append(f"backends.ascendc.sim.simulate_project ({e})")
    if missing:
        print(
            "elementwise_report: the Ascend C backend is not (fully) there yet; missing:\n  "
            + "\n  ".join(missing)
            + "\nop.compile/op.simulate land with the elementwise backend (README, issue 4).",
            file=sys.stderr,
        )
        sys.exit(2)
    return get_target, ledger, simulate_project


def static_combos(op) -> list[dict]:
    """Every combination of the op's static attributes (bool; Literal values read from the IR)."""
    head = op.ir().splitlines()[0]
    values: dict[str, tuple] = {}
    for name, default in op.attrs.items():
        if isinstance(default, bool):
            values[name] = (default, not default)
        elif isinstance(default, str):
            m = re.search(rf"\b{re.escape(name)}: literal<([^>]*)>", head)
            choices = tuple(re.findall(r'"([^"]*)"', m.group(1))) if m else (default,)
            values[name] = (default, *(c for c in choices if c != default))
    keys = list(values)
    return [dict(zip(keys, v)) for v in itertools.product(*(values[k] for k in keys))]


def make_inputs(op, t, n: int, attrs: dict, rng) -> list:
    """Positive-ish random data every example accepts (optimizer states >= 0 where needed);
    an optional input is given only when a static attribute needs it (AdamW's amsgrad)."""
    import dsl

    out = []
    for name in op.inputs:
        is_scalar = f"%{name}: scalar<" in op.ir(t).splitlines()[0]
        if name == "max_grad_norm" and not attrs.get("amsgrad", False):
            out.append(None)
            continue
        if is_scalar:
            pinned = re.search(rf"%{name}: scalar<(\w+)>", op.ir(t).splitlines()[0]).group(1)
            dt = getattr(dsl, pinned).np
            val = {"beta1_power": 0.81, "beta2_power": 0.99, "beta1": 0.9, "beta2": 0.999}.get(name, 0.01)
            out.append(np.array([val], dtype=dt))
        else:
            out.append(rng.uniform(0.0, 0.01, n).astype(np.float32).astype(t.np))
    return out


def _buffer_row(b) -> dict:
    """One ledger buffer, given as a (name, dsl_value(s), bytes_per_elem, slots) tuple or as an
    object with those fields (``dsl_values``: a list of DSL values with their lines)."""
    if isinstance(b, (tuple, list)):
        name, value, bpe, slots = b
    else:
        name = b.name
        value = getattr(b, "dsl_values", None) or getattr(b, "dsl_value", "")
        bpe, slots = b.bytes_per_elem, b.slots
    if isinstance(value, (list, tuple)):
        value = ", ".join(map(str, value))
    return {"name": str(name), "value": str(value), "bytes_per_elem": int(bpe), "slots": int(slots)}


def report_one(op, t, attrs, args, get_target, ledger, simulate_project, workdir: Path) -> dict:
    target = get_target(args.target)
    row: dict = {"op": op.name, "dtype": t.name, "attrs": attrs}

    t0 = time.perf_counter()
    project = Path(op.compile(target=args.target, out_dir=workdir / f"{op.name}_{t.name}"))
    row["compile_s"] = time.perf_counter() - t0

    led = ledger(op, t, args.target, **attrs)
    row["tile_elems"] = int(led.tile_elems)
    row["ub_used_bytes"] = int(led.ub_used_bytes)
    row["ub_usable_bytes"] = int(led.ub_usable_bytes)
    row["buffers"] = [_buffer_row(b) for b in led.buffers]

    rng = np.random.default_rng(0)
    inputs = make_inputs(op, t, args.size, attrs, rng)
    expected = op.reference(*inputs, **attrs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    t0 = time.perf_counter()
    res = simulate_project(
        project,
        op.name,
        inputs=inputs,
        outputs=[(e.shape, e.dtype) for e in expected],
        attrs=[{**op.attrs, **attrs}[k] for k in op.attrs],
        target=target,
        cores=args.cores,
    )
    row["sim_s"] = time.perf_counter() - t0
    c = res.counters
    row["tiling_key"] = res.tiling_key
    row["block_dim"] = res.block_dim
    row["dma_mte2"] = int(c.get("MTE2", {}).get("dma", 0))
    row["dma_mte3"] = int(c.get("MTE3", {}).get("dma", 0))
    row["bytes_in"] = int(sum(c.get(p, {}).get("bytes_in", 0) for p in ("S", "V", "MTE2", "MTE3")))
    row["bytes_out"] = int(sum(c.get(p, {}).get("bytes_out", 0) for p in ("S", "V", "MTE2", "MTE3")))
    moved_mb = (row["bytes_in"] + row["bytes_out"]) / MB
    row["dma_per_mb"] = (row["dma_mte2"] + row["dma_mte3"]) / moved_mb if moved_mb else float("nan")
    row["ub_peak_bytes"] = int(c.get("ub_peak_bytes", 0))
    row["matches_reference"] = all(
        np.array_equal(a.view(np.uint8), e.view(np.uint8)) or np.allclose(a, e, rtol=1e-3, atol=1e-3)
        for a, e in zip(res.outputs, (np.asarray(x) for x in expected))
    )
    return row


def print_table(rows: list[dict], show_buffers: bool) -> None:
    cols = [
        ("op", "{:<14}"),
        ("dtype", "{:<5}"),
        ("key", "{:<24}"),
        ("tile", "{:>7}"),
        ("UB used/usable", "{:>22}"),
        ("blk", "{:>4}"),
        ("DMA in", "{:>7}"),
        ("DMA out", "{:>7}"),
        ("DMA/MB", "{:>7}"),
        ("MB moved", "{:>8}"),
        ("compile s", "{:>9}"),
        ("sim s", "{:>7}"),
        ("ok", "{:>3}"),
    ]
    print("  ".join(f.format(h) for h, f in cols))
    for r in rows:
        if "error" in r:
            print(f"{r['op']:<14}  {r['dtype']:<5}  {_key(r['attrs']):<24}  ERROR: {r['error']}")
            continue
        pct = 100.0 * r["ub_used_bytes"] / r["ub_usable_bytes"] if r["ub_usable_bytes"] else float("nan")
        cells = [
            r["op"],
            r["dtype"],
            _key(r["attrs"]),
            r["tile_elems"],
            f"{r['ub_used_bytes']}/{r['ub_usable_bytes']} ({pct:.0f}%)",
            r["block_dim"],
            r["dma_mte2"],
            r["dma_mte3"],
            f"{r['dma_per_mb']:.1f}",
            f"{(r['bytes_in'] + r['bytes_out']) / MB:.2f}",
            f"{r['compile_s']:.2f}",
            f"{r['sim_s']:.2f}",
            "yes" if r["matches_reference"] else "NO",
        ]
        print("  ".join(f.format(v) for (_, f), v in zip(cols, cells)))
        if show_buffers:
            for b in r["buffers"]:
                print(
                    f"{'':>16}{b['name']:<20} {b['value']:<20} {b['bytes_per_elem']} B/elem x "
                    f"{b['slots']} slot(s) = {b['bytes_per_elem'] * b['slots'] * r['tile_elems']} B"
                )


def _key(attrs: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in attrs.items()) or "-"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=(1 << 18) + 17, help="elements per tensor (default 262161)")
    p.add_argument(
        "--cores", type=int, default=None, help="AI cores the platform reports (default: target's)"
    )
    p.add_argument("--target", default="ascend910b")
    p.add_argument("--op", action="append", choices=STEMS, help="only these examples (repeatable)")
    p.add_argument("--dtype", action="append", choices=("f16", "f32", "bf16"), help="only these dtypes")
    p.add_argument(
        "--all-keys", action="store_true", help="every static-attribute combination, not only the defaults"
    )
    p.add_argument("--buffers", action="store_true", help="print the UB ledger's buffers under each row")
    p.add_argument("--json", type=Path, help="also write the rows as JSON")
    args = p.parse_args(argv)

    get_target, ledger, simulate_project = backend_or_exit()
    import dsl

    rows = []
    with tempfile.TemporaryDirectory(prefix="dslc-ew-report-") as tmp:
        for stem in args.op or STEMS:
            op = load_op(stem)
            combos = static_combos(op) if args.all_keys else [static_combos(op)[0]]
            for t in op.dtypes:
                if args.dtype and t.name not in args.dtype:
                    continue
                for attrs in combos:
                    try:
                        rows.append(
                            report_one(op, t, attrs, args, get_target, ledger, simulate_project, Path(tmp))
                        )
                    except (
                        dsl.CompileError,
                        dsl.SimulationError,
                        dsl.ArgumentError,
                        NotImplementedError,
                    ) as e:
                        first = str(e).splitlines()[0] if str(e) else type(e).__name__
                        rows.append({"op": op.name, "dtype": t.name, "attrs": attrs, "error": first})
    print(f"target {args.target}, {args.size} elements per tensor, cores={args.cores or 'target default'}")
    print_table(rows, args.buffers)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2, default=str))
        print(f"wrote {args.json}")
    return 1 if any("error" in r or not r["matches_reference"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
