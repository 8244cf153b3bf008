"""Run every benchmark: `python -m tests.bench [NAME...]` (names like `bank`, `answers`)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import tests.bench as package


def main(argv: list[str]) -> int:
    """Import each `bench_*` module and call its `main()`; print figures as they come."""
    wanted = set(argv)
    names = sorted(
        m.name for m in pkgutil.iter_modules(package.__path__) if m.name.startswith("bench_")
    )
    for name in names:
        if wanted and name.removeprefix("bench_") not in wanted:
            continue
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        importlib.import_module(f"tests.bench.{name}").main()
        print(f"   ({time.perf_counter() - started:.1f} s)\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
