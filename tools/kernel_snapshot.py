"""Print the sha256 of every file ``compile.lower`` generates, for a byte-identical refactor check.

Covers examples/*.py, tests/corpus/*.py and ``dslfuzz.generate(seed, family)`` for seeds 0..39 of
every family, on ascend910b at CANN 8.5 and 9.0 and on ascend950 at 9.0 (``--quick``: examples
only). One line per file, ``sha256  config/name/file``; a compile that fails prints its error
text instead. Usage: ``python tools/kernel_snapshot.py [--quick] > snap.txt`` before and after a
change, then ``diff`` the two.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import sys
import tempfile
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

CONFIGS = (("ascend910b", "8.5"), ("ascend910b", "9.0"), ("ascend950", "9.0"))
SEEDS = range(40)


def _module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def operators(quick: bool, workdir: Path):
    """(label, operator or the exception that made it) in a fixed order."""
    for path in sorted((ROOT / "examples").glob("*.py")):
        yield f"examples/{path.stem}", lambda p=path: getattr(_module(p, f"snap_ex_{p.stem}"), p.stem)
    if quick:
        return
    for path in sorted((ROOT / "tests" / "corpus").glob("*.py")):
        if path.name.startswith(("test_", "_", "conftest")):
            continue
        yield f"corpus/{path.stem}", lambda p=path: _module(p, f"snap_corpus_{p.stem}").OP
    import dslfuzz

    def fuzz_op(seed: int, family: str):
        where = workdir / f"{family}{seed}"
        where.mkdir()
        return dslfuzz.load(dslfuzz.generate(seed, family), where)

    for family in dslfuzz.FAMILIES:
        for seed in SEEDS:
            yield f"fuzz-{family}/{seed}", lambda s=seed, f=family: fuzz_op(s, f)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="examples only")
    args = parser.parse_args()
    from backends.ascendc.compile import lower

    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for label, make in operators(args.quick, workdir):
            try:
                op = make()
            except Exception as e:  # noqa: BLE001 - a program that does not load is part of the record
                print(f"load-error  {label}: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}")
                continue
            for target, cann in CONFIGS:
                config = f"{target}-{cann}"
                try:
                    files = lower(op, target, warn_builtin=False, cann=cann).files
                except Exception as e:  # noqa: BLE001
                    text = (
                        f"{type(e).__name__}: {e}".replace(str(workdir), "<work>")
                        .replace(str(ROOT), "<root>")
                        .replace("\n", " | ")
                    )
                    print(f"error  {config}/{label}: {text}")
                    continue
                for rel in sorted(files):
                    digest = hashlib.sha256(files[rel].encode()).hexdigest()
                    print(f"{digest}  {config}/{label}/{rel}")
                sys.stdout.flush()


if __name__ == "__main__":
    main()
