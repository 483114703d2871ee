"""Seed 002's case on ascend950: QuantizeAddLayerNorm, x1/x2 [8192, 4096] bf16, per-channel scales,
bias per column: rows per UB step and UB round trips per element per step, read off the generated
kernel (RegBase, the default on 950, against --vector-path membase).

    python benchmarks/rows950_quant.py            # prints the table; benchmarks/rows950_quant.md has it

* **rows per step**: host tiling's rowStep for C = 4096 (the UB ledger plan-rows wrote: the
  formula host tiling evaluates, ``explain`` prints it).
* **UB accesses per element**: the instantiation's step code, the template flags resolved (the
  tiling key's ``Run<...>`` arguments, COLUMN_CHUNKS false). RegBase: every ``LoadAlign`` /
  ``StoreAlign`` inside a VF's column loop (``for (uint16_t i ...)``) moves one element per lane of
  the row: a load or a store per element; the per-row ``DIST_BRC_B32`` / ``DIST_FIRST_ELEMENT``
  moves (one element per row) are counted apart. MemBase: every vector call over the step's rows
  reads each tensor source and writes its destination once per element (the
  per-row Brcb blocks and per-row slots not counted).
* **UB round trips per element** = (row loads + stores) / 2: one row value written to UB and read
  back (or read in and written out) is one round trip; the resident columns' reads (gamma, beta,
  bias, scales: the same row for every row) are listed apart and in a second figure with them.
  seed 002's RegBase design: about 3 loads and 3 stores (the issue's target: <= 4 round trips).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

COLS, ROWS = 4096, 8192
ATTRS = ({"additional_output": False}, {"additional_output": True})
GUARD = re.compile(r"^\s*(\} else )?if constexpr \((.*)\) \{\s*$")
MEMBASE_CALL = re.compile(
    r"\b(Add|Sub|Mul|Div|Cast|Adds|Muls|Maxs|Mins|Exp|Ln|Sqrt|Rsqrt|Abs|Relu|Max|Min|Select|Compare|"
    r"RowsByValue|ReduceRows)\((.*)\);"
)


def _example():
    import importlib.util

    spec = importlib.util.spec_from_file_location("qaln", ROOT / "examples" / "quantize_add_layer_norm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.quantize_add_layer_norm


def _variant(compiled, dtype, attrs):
    for v in compiled.plan.variants:
        if v.dtype == dtype and all(v.bind.get(k) == val for k, val in attrs.items()):
            return v
    raise KeyError(attrs)


def rows_per_step(v, usable: int) -> int:
    from backends.ascendc.explain import func_ledger

    line = next(x for x in func_ledger(v.func, v.key, usable).lines() if x.startswith("  rows per step: "))
    return int(re.search(rf"C={COLS}: (\d+)", line).group(1))


def _env(text: str, key: int) -> dict:
    """The template flags of tiling key ``key``: Run<DTYPE, ARG...>'s arguments by parameter name."""
    params = re.search(r"template <typename T, ([^>]*)>\nclass Kernel", text).group(1)
    names = [p.split()[-1] for p in params.split(", ")]
    m = re.search(rf"TILING_KEY_IS\({key}\)\) {{\n\s*Run<\w+, ([^>]*)>", text)
    env = {"IS_FLOAT": False, "IS_HALF": False, "IS_BF16": True}
    for name, arg in zip(names, m.group(1).split(", ")):
        env[name] = {"true": True, "false": False}.get(arg, arg.replace("::", "__"))
    for mode in ("PER_CHANNEL", "PER_TENSOR", "MUL"):
        env[f"QuantMode__{mode}"] = f"QuantMode__{mode}"
    return env


def _holds(cond: str, env: dict) -> bool:
    expr = cond.replace("&&", " and ").replace("||", " or ").replace("::", "__")
    expr = re.sub(r"!(?!=)", " not ", expr)
    return bool(eval(expr, {}, dict(env)))


def live_step(text: str, env: dict) -> list[str]:
    """ProcessStep's lines the instantiation runs (``if constexpr`` chains resolved; conditions
    that span lines joined first)."""
    body = text[text.index("inline void ProcessStep(uint64_t s)") :]
    body = body[: body.index("\n    }\n")]
    joined, buf = [], ""
    for line in body.splitlines():
        buf = f"{buf} {line.strip()}" if buf else line
        if re.search(r"if constexpr \(", buf) and not buf.rstrip().endswith("{"):
            continue
        joined.append(buf)
        buf = ""
    out, stack = [], []
    for line in joined:
        text_ = line.split("//", 1)[0].strip()
        closes, opens = text_.startswith("}"), text_.endswith("{")
        top = stack.pop() if closes and stack else None
        m = GUARD.match(line)
        if closes and (m or re.match(r"^\s*\} else \{\s*$", line)):
            if top is not None and top[1] is not None:
                now = not top[1] and (_holds(m.group(2), env) if m else True)
                stack.append((now, top[1] or now))
            else:
                stack.append((True, None))
            continue
        if m:
            now = _holds(m.group(2), env)
            stack.append((now, now))
            continue
        if closes and not opens:
            continue
        if all(s[0] for s in stack):
            out.append(line)
        if opens:
            stack.append((True, None))
    return out


def regbase_counts(text: str, step: list[str]) -> dict:
    names = [m.group(1) for line in step for m in [re.search(r"asc_vf_call<(\w+)>", line)] if m]
    loads = col_loads = stores = per_row = passes = 0
    for name in names:
        vf = text[text.index(f"__simd_vf__ static inline void {name}(") :]
        vf = vf[: vf.index("\n    }\n")]
        depth_i = None
        for line in vf.splitlines():
            s = line.strip()
            if s.startswith("for (uint16_t i"):
                depth_i, passes = True, passes + 1
                continue
            if depth_i and s == "}":
                depth_i = None
                continue
            if "LoadAlign" in s or "StoreAlign" in s:
                if "DIST_BRC" in s or "DIST_FIRST_ELEMENT" in s:
                    per_row += 1
                elif depth_i:
                    column = "r * pitch" not in s  # a resident column: the same row for every row
                    loads += "LoadAlign" in s and not column
                    col_loads += "LoadAlign" in s and column
                    stores += "StoreAlign" in s
    return {
        "vfs": len(names),
        "passes": passes,
        "loads": loads,
        "col_loads": col_loads,
        "stores": stores,
        "per_row": per_row,
    }


def _args(call: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in call:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch in "([<"
        depth -= ch in ")]>"
        cur += ch
    return out + [cur.strip()]


def membase_counts(text: str, step: list[str]) -> dict:
    views = set(re.findall(r"LocalTensor<\w+> (\w+)", "\n".join(step)))
    blocks = set(re.findall(r"SpreadPerRow\((\w+),", "\n".join(step)))
    perrow = set(re.findall(r"ReduceRows<[^>]*>\((\w+),", "\n".join(step)))
    loads = col_loads = stores = calls = 0.0
    for line in step:
        m = MEMBASE_CALL.search(line)
        if not m:
            continue
        args = _args(m.group(2))
        base = [re.match(r"(\w+)", a).group(1) if re.match(r"\w+", a) else "" for a in args]
        tensors = [b for b in base if b in views and b not in blocks]
        if not tensors or tensors[0] in perrow and m.group(1) != "ReduceRows":
            continue  # per-row math (one element per row)
        calls += 1
        if m.group(1) == "ReduceRows":
            loads += 1
            continue
        stores += 1
        srcs = [a for a, b in zip(args[1:], base[1:]) if b in tensors]
        rowwise = any(
            "r * pitch_" in a for a in args
        )  # a per-row loop: a source without the row offset is a column
        cols = sum(1 for a in srcs if rowwise and "r * pitch_" not in a)
        loads += share * (len(srcs) - cols)
        col_loads += share * cols
    return {"calls": int(calls), "loads": loads, "col_loads": col_loads, "stores": stores}


def measure() -> list[dict]:
    import dsl
    from backends.ascendc.compile import lower
    from backends.ascendc.targets import get_target

    op = _example()
    usable = get_target("ascend950").ub_usable_bytes
    rows = []
    for path in ("auto", "membase"):
        compiled = lower(op, "ascend950", vector_path=path, warn_builtin=False)
        text = next(t for n, t in compiled.files.items() if n.startswith("op_kernel/"))
        for attrs in ATTRS:
            full = {"quant_mode": "per_channel", "with_zero_points": False, **attrs}
            v = _variant(compiled, dsl.bf16, full)
            step = live_step(text, {**_env(text, v.key), "COLUMN_CHUNKS": False})
            counts = regbase_counts(text, step) if path == "auto" else membase_counts(text, step)
            rows.append(
                {
                    "path": "RegBase" if path == "auto" else "MemBase",
                    "attrs": attrs,
                    "rows_per_step": rows_per_step(v, usable),
                    **counts,
                    "round_trips": (counts["loads"] + counts["stores"]) / 2,
                    "with_columns": (counts["loads"] + counts["col_loads"] + counts["stores"]) / 2,
                }
            )
    return rows


def table(rows: list[dict]) -> str:
    out = [
        "| path | additional_output | rows per UB step (C=4096) | row loads / element | column loads / element | "
        "stores / element | UB round trips / element (rows) | with the column reads | detail |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        detail = (
            f"{r['vfs']} VF, {r['passes']} passes over the row, {r['per_row']} per-row moves per row"
            if r["path"] == "RegBase"
            else f"{r['calls']} vector calls over the rows"
        )
        out.append(
            f"| {r['path']} | {r['attrs']['additional_output']} | {r['rows_per_step']} | {r['loads']:g} | "
            f"{r['col_loads']:g} | {r['stores']:g} | {r['round_trips']:g} | {r['with_columns']:g} | {detail} |"
        )
    return "\n".join(out)


if __name__ == "__main__":
    print(table(measure()))
