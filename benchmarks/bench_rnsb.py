"""RNSB's classifier training: scikit-learn one fit at a time against the batched solve.

    python benchmarks/bench_rnsb.py --previous DIR [--repeats R] [--models SPEC ...] [--quick]

Ranks the models (default: every installed catalog model and its variants, as
``wefe-same rank``) with the default queries and RNSB only, recording every RNSB call
(targets, attribute sets, options, seed) as the run makes it. Then times, on exactly
those calls, in turn (previous, this, previous, this, …; both sides see the same load):

* previous: ``metrics/rnsb.py`` of the checkout ``DIR`` (an unpacked older commit,
  ``git archive OLD | tar -x -C DIR``), loaded beside this one under another name —
  one scikit-learn fit per subsample;
* this checkout: ``prefit`` on all calls of a model (one batched solve), then ``rnsb``.

Both start each repeat with an empty classifier cache. Prints wall and CPU seconds
(medians), the number of fits and the largest difference between the two sides' values.
``--quick``: glove-6b-50d only, one repeat.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import sys
import time
from pathlib import Path

from wefe_same import Execution

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _common import header  # noqa: E402

from wefe_same.metrics import rnsb as current  # noqa: E402


def load_previous(checkout: Path):
    """The older checkout's metrics/rnsb.py as a module of its own (its imports resolve to
    this checkout's unchanged helpers: result, validation)."""
    spec = importlib.util.spec_from_file_location("previous_rnsb", checkout / "wefe_same" / "metrics" / "rnsb.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def record_calls(models: list[str] | None) -> dict[str, list[tuple]]:
    """Every RNSB call of a default-query rank of ``models``, grouped by model."""
    from wefe_same import rank
    from wefe_same.run import score as scoring_model

    calls: dict[str, list[tuple]] = {}
    current_model = [""]
    real_score_table, real_rnsb = scoring_model.score_table, current.rnsb

    def score_table(table, *args, **kwargs):
        current_model[0] = table.model
        return real_score_table(table, *args, **kwargs)

    def rnsb(targets, A1, A2, **options):
        seed = options.pop("random_state")
        calls.setdefault(current_model[0], []).append((targets, [A1, A2], options, seed))
        return real_rnsb(targets, A1, A2, random_state=seed, **options)

    scoring_model.score_table, current.rnsb = score_table, rnsb
    try:
        rank(models, metrics=["RNSB"], execution=Execution(cache=False, progress=False))
    finally:
        scoring_model.score_table, current.rnsb = real_score_table, real_rnsb
    return calls


def time_previous(module, calls: dict[str, list[tuple]]) -> tuple[float, float, list[float]]:
    module._CLASSIFIERS.clear()  # an older checkout's module-level cache
    wall, cpu = time.perf_counter(), time.process_time()
    values = [module.rnsb(t, *a, **o, random_state=s).value for per_model in calls.values() for t, a, o, s in per_model]
    return time.perf_counter() - wall, time.process_time() - cpu, values


def time_current(calls: dict[str, list[tuple]]) -> tuple[float, float, list[float]]:
    from wefe_same.metrics.memo import ModelMemo, RunMemo

    run = RunMemo()  # one run's memo; one model memo per model, its arrays numbered as scoring numbers them
    wall, cpu = time.perf_counter(), time.process_time()
    values = []
    for per_model in calls.values():  # as score_table does: prefit per chunk of a model's subqueries
        model, numbers = ModelMemo(run), {}
        bound = [(model.bind([*t, *a], [numbers.setdefault(id(x), len(numbers)) for x in (*t, *a)]), t, a, o, s)
                 for t, a, o, s in per_model]  # the calls hold their arrays: an id is not reused meanwhile
        for start in range(0, len(bound), 32):
            chunk = bound[start:start + 32]
            current.prefit(chunk)
            values += [current.rnsb(t, *a, **o, random_state=s, memo=m).value for m, t, a, o, s in chunk]
    return time.perf_counter() - wall, time.process_time() - cpu, values


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--previous", type=Path, required=True, help="an older checkout (its metrics/rnsb.py)")
    ap.add_argument("--repeats", type=int, default=3, help="timings of each side (default: 3)")
    ap.add_argument("--models", nargs="+", help="model specs (default: as wefe-same rank)")
    ap.add_argument("--quick", action="store_true", help="glove-6b-50d only, one repeat")
    args = ap.parse_args()
    if args.quick:
        args.models, args.repeats = ["glove-6b-50d"], 1
    header("RNSB's logistic fits: the previous rnsb.py (scikit-learn) against the batched solve")
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    calls = record_calls(args.models)
    n_calls = sum(len(c) for c in calls.values())
    print(f"models: {len(calls)}; RNSB calls: {n_calls}")
    previous = load_previous(args.previous)
    sides: dict[str, list[tuple[float, float]]] = {"previous (scikit-learn)": [], "this checkout (batched)": []}
    for _ in range(args.repeats):
        wall, cpu, old = time_previous(previous, calls)
        sides["previous (scikit-learn)"].append((wall, cpu))
        wall, cpu, new = time_current(calls)
        sides["this checkout (batched)"].append((wall, cpu))
    pairs = {current._key(*a, o.get("n_iterations", 10), float(o.get("train_fraction", 0.8)), s): o.get("n_iterations", 10)
             for per_model in calls.values() for _t, a, o, s in per_model}
    print(f"attribute pairs trained per repeat: {len(pairs)}, logistic fits: {sum(pairs.values())}")
    for name, runs in sides.items():
        print(f"{name}: {statistics.median(r[0] for r in runs):.2f} s wall, "
              f"{statistics.median(r[1] for r in runs):.2f} s CPU (median of {len(runs)})")
    diff = max(abs(a - b) for a, b in zip(old, new) if a == a and b == b)
    print(f"largest |difference| between the two sides' RNSB values: {diff:.2g}")


if __name__ == "__main__":
    main()
