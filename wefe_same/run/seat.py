"""``wefe-same seat``: SEAT test files (May et al. 2019) scored on sentence encoders, as
bias-bench's runner does (McGill-NLP/bias-bench, commit 291426aab926f78ecfc7bd040b531429ee8123e0,
``bias_bench/benchmark/seat/seat.py``; the maths in :mod:`wefe_same.metrics.seat`).

Items (``items=``):

* ``"sentences"`` (default): every sentence is an item of its set, encoded alone with the
  model's pooling (``hf:`` the default ``mean`` over every token, specials included, as
  bias-bench's ``_encode``; ``sbert:`` the model's own pooling). With ``templates`` (e.g.
  ``"seat"``), each example of a word file (SEAT's ``weat*.jsonl``) becomes one item per
  template sentence, as SEAT's generated ``sent-weat*`` files do.
* ``"words"``: each example is one item whose vector is the mean of its template sentences'
  vectors (``rank --templates seat --template-items words``); without templates the same as
  ``"sentences"``. ``rank --templates seat`` makes every sentence an item too (its default).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from wefe_same.errors import QueryError
from wefe_same.validation import check_choice

if TYPE_CHECKING:  # numpy, pandas and the maths load when a test is scored, not with the CLI's parser
    import pandas as pd

    from wefe_same.metrics.seat import SeatTest

SeatItems = Literal["sentences", "words"]
SEAT_ITEMS: tuple[SeatItems, ...] = ("sentences", "words")
#: :data:`wefe_same.metrics.seat.P_VALUE_CONVENTIONS` (a test checks they agree).
P_VALUES = ("tool", "bias-bench")
#: bias-bench's default ``n_samples`` (:data:`wefe_same.metrics.seat.BIAS_BENCH_SAMPLES`).
SAMPLES = 100_000
FUNC = "seat"


def item_texts(test: SeatTest, items: SeatItems, templates: Sequence[str], name_templates: Sequence[str]
               ) -> list[list[str]]:
    """The texts that are the items of each set (targ1, targ2, attr1, attr2), in file order.

    >>> from wefe_same.metrics.seat import SeatSet, SeatTest
    >>> t = SeatTest("t", *(SeatSet(k, (k,)) for k in ("a", "b", "c", "d")))
    >>> item_texts(t, "sentences", ["This is {word}.", "{word} is here."], ())[0]
    ['This is a.', 'a is here.']
    """
    from wefe_same.models.encoders.contexts import template_texts

    out = []
    for seat_set in test.sets():
        if items == "sentences" and templates:
            out.append([text for w in seat_set.examples for text, _ in template_texts(w, templates, name_templates)])
        else:
            out.append(list(seat_set.examples))
    return out


def score_seat(models: Sequence[str], files: Sequence[str | Path], *, items: SeatItems = "sentences",
               templates: Sequence[str] | str | None = None, permutations: int = SAMPLES,
               p_value: str = "tool", seed: int = 0) -> pd.DataFrame:
    """One row per (model, SEAT file): effect size, p-value, the p-value's method and splits.

    ``p_value`` is ``"tool"`` ((k + 1)/(N + 1), exact up to 100,000 splits; DESIGN.md) or
    ``"bias-bench"`` (exact when C(2n, n) ≤ ``permutations``, else (1 + #{s_i ≥ s})/n with the
    observed split among the n); see :mod:`wefe_same.metrics.seat`.
    """
    import numpy as np
    import pandas as pd

    from wefe_same.metrics.seat import read_seat_file, seat_test
    from wefe_same.models.catalog import resolve_model
    from wefe_same.models.encoders.contexts import template_options
    from wefe_same.models.specs import LoadOptions

    check_choice(items, "items", FUNC, SEAT_ITEMS)
    check_choice(p_value, "p_value", FUNC, P_VALUES)
    chosen = template_options(templates) if templates else {"templates": (), "name_templates": (),
                                                             "template_label": None}
    tests = [read_seat_file(f) for f in files]
    rows = []
    for spec in models:
        # "words": the encoder averages each word's template vectors (rank's --templates);
        # "sentences": every text is encoded alone, templates filled here.
        source = resolve_model(spec, LoadOptions(**chosen, template_items="words") if items == "words"
                               else LoadOptions())
        for test in tests:
            sets = item_texts(test, items, chosen["templates"], chosen["name_templates"])  # type: ignore[arg-type]
            distinct = sorted({t for s in sets for t in s})
            vectors = source.lookup(distinct)
            missing = [t for t in distinct if t not in vectors]
            if missing:
                raise QueryError(f"SEAT file {test.name}: model {source.name} has no vector for {len(missing)} "
                                 f"item(s), first {missing[0]!r}; SEAT needs a sentence encoder (hf:, sbert:, onnx:)")
            X, Y, A, B = (np.vstack([np.asarray(vectors[t], dtype=np.float64) for t in s]) for s in sets)
            result = seat_test(X, Y, A, B, permutations=permutations, p_value=p_value,  # type: ignore[arg-type]
                               random_state=seed)
            rows.append({"model": source.name, "test": test.name, "items": items,
                         "n_target": len(X), "n_attribute": f"{len(A)}/{len(B)}",
                         "effect_size": result.effect_size, "p_value": result.p_value,
                         "p_value_method": f"{result.method} ({p_value} convention)", "n_splits": result.n_splits})
    return pd.DataFrame(rows)


def add_seat_parser(sub) -> None:
    """The ``seat`` subcommand of ``wefe-same`` (its parser; run by :func:`_cmd_seat`)."""
    p = sub.add_parser("seat", help="SEAT test files (May et al. 2019) on sentence encoders, as bias-bench scores them")
    p.add_argument("--models", nargs="+", required=True, metavar="SPEC", help="sentence encoders (hf:, sbert:, onnx:)")
    p.add_argument("--tests", nargs="+", required=True, metavar="FILE",
                   help="SEAT-format files: one JSON object {targ1, targ2, attr1, attr2: {category, examples}}")
    p.add_argument("--templates", dest="template_set", metavar="seat|FILE",
                   help="put each example (a word) in these templates (as rank --templates)")
    p.add_argument("--seat-items", choices=SEAT_ITEMS, default="sentences",
                   help="sentences: every sentence is an item (SEAT, bias-bench; default); words: each example's "
                        "template vectors averaged into one item (rank --templates)")
    p.add_argument("--permutations", type=int, default=SAMPLES, help="permutation samples (default: %(default)s)")
    p.add_argument("--seat-p-value", choices=P_VALUES, default="tool",
                   help="tool: (k+1)/(N+1), exact up to 100,000 splits (default); bias-bench: exact when "
                        "C(2n,n) <= --permutations, else (1+#{s_i>=s})/n")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampled splits (default: 0)")
    p.add_argument("--out", metavar="FILE", help="also write the table as CSV")
    p.set_defaults(run=_cmd_seat)


def _cmd_seat(args: argparse.Namespace) -> int:
    from wefe_same.validation import check_int

    check_int(args.permutations, "--permutations", "wefe-same seat", minimum=0)
    table = score_seat(args.models, args.tests, items=args.seat_items, templates=args.template_set,
                       permutations=args.permutations, p_value=args.seat_p_value, seed=args.seed)
    print(table.to_string(index=False))
    if args.out:
        table.to_csv(args.out, index=False)
        print(f"\nWrote {args.out}")
    return 0
