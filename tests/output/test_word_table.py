"""The streamed per-word table: the same table, summaries and figures as the whole frame,
whether its parts stay in memory or go to disk, and no folder left behind."""

from __future__ import annotations

import gc
import os
import socket
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wefe_same.output import figures as plots
from wefe_same.output import word_table as wt
from wefe_same.output.word_table import WordSummary, WordTable
from wefe_same.processes import process_start

pytest.importorskip("pyarrow")

LABELS = ["model", "metric", "subquery", "word", "component"]


def model_rows(model: str, seed: int, *, same: bool = True) -> pd.DataFrame:
    """One model's per-word rows, compacted as a run holds them (labels as categories)."""
    rng = np.random.default_rng(seed)
    rows = []
    for metric, component in [("SAME", "b"), ("WEAT", "s"), ("SAME", "signed:a-b")]:
        if metric == "SAME" and not same:
            continue
        for sq in ["q:a+b|x", "q:a+b|y", "r:c+d|x"]:
            for w in rng.permutation([f"w{i}" for i in range(30)])[:20]:
                value = float(np.round(rng.normal(), 1))  # rounded: ties that the order must keep
                rows.append((model, metric, sq, str(w), component, value))
    rows.append((model, "SAME", "q:a+b|x", "nan-word", "b", np.nan))
    frame = pd.DataFrame(rows, columns=[*LABELS, "value"])
    return frame.astype({c: "category" for c in LABELS})


@pytest.fixture()
def parts() -> list[pd.DataFrame]:
    return [model_rows(f"m{i}", i, same=i != 1) for i in range(4)]


def whole(parts: list[pd.DataFrame]) -> pd.DataFrame:
    return wt.concat_frames(parts)


@pytest.mark.parametrize("spill", [0, 1 << 40])
def test_the_table_is_the_whole_frame_in_run_order(parts, tmp_path, spill):
    table = WordTable(spill_bytes=spill)
    for i in [2, 0, 3, 1]:  # models finish out of order
        table.add(i, parts[i])
    expected = whole(parts)
    pd.testing.assert_frame_equal(table.frame(), expected)
    table.write_parquet(tmp_path / "w.parquet", compression_level=3)
    back = pd.read_parquet(tmp_path / "w.parquet")
    pd.testing.assert_frame_equal(back, expected, check_categorical=False)
    assert back.to_csv(index=False, float_format="%.6g") == expected.to_csv(index=False, float_format="%.6g")
    table.write_csv(tmp_path / "w.csv", float_format="%.6g")
    assert (tmp_path / "w.csv").read_text() == expected.to_csv(index=False, float_format="%.6g")
    assert len(table) == len(expected)


def test_summaries_per_model_equal_the_summary_of_the_whole(parts):
    table = WordTable(spill_bytes=0)
    for i, part in enumerate(parts):
        table.add(i, part)
    assert table.chosen() == ("SAME", "b")
    got = table.summary()
    frame = whole(parts)
    direct = WordSummary.of_rows(wt.word_rows(frame, ("SAME", "b")))
    for name in ("top", "means"):  # per model, rows in the same order (the report reads them so)
        a, b = getattr(got, name), getattr(direct, name)
        assert set(a["model"]) == set(b["model"])
        for model in set(a["model"]):
            pd.testing.assert_frame_equal(a[a["model"] == model].reset_index(drop=True),
                                          b[b["model"] == model].reset_index(drop=True))
    # The old report's reading of the whole table (sort every row, then take the heads).
    rows = wt.word_rows(frame, ("SAME", "b")).astype({"model": str, "subquery": str, "word": str})
    rows["size"] = rows["value"].abs()
    ranked = rows.sort_values("size", ascending=False, kind="stable")
    old_top = ranked.groupby(["model", "subquery"], sort=False).head(wt.TOP_WORDS)
    for (model, sq), group in old_top.groupby(["model", "subquery"], sort=False):
        mine = got.top[(got.top["model"] == model) & (got.top["subquery"] == sq)]
        assert mine["word"].tolist() == group["word"].tolist()
        assert mine["value"].tolist() == group["value"].tolist()
    # Every model's figure draws the same bars from its figure rows as from all its rows.
    assert "m1" not in set(got.top["model"])  # m1 has no SAME rows
    for model in ["m0", "m2", "m3"]:
        a = plots.top_words(got.figure, model, metric="SAME", component="b")
        b = plots.top_words(frame, model, metric="SAME", component="b")
        pd.testing.assert_series_equal(a, b)


def test_a_table_without_preferred_values_has_no_summary():
    frame = model_rows("m", 0).iloc[:0]
    table = WordTable.from_frame(frame)
    assert table.chosen() is None and table.summary() is None


def test_the_parts_folder_goes_with_the_table(parts):
    table = WordTable(spill_bytes=0)
    table.add(0, parts[0])
    folder = table._folder
    assert folder is not None and any(folder.iterdir())
    del table
    gc.collect()
    assert not folder.exists()


def test_a_folder_left_by_a_killed_run_is_removed(parts):
    dead = Path(tempfile.gettempdir()) / f"{wt._PREFIX}{socket.gethostname()}-999999999-1-abc"
    dead.mkdir()
    (dead / "0.parquet").write_bytes(b"x")
    alive = Path(tempfile.mkdtemp(prefix=f"{wt._PREFIX}{socket.gethostname()}-{os.getpid()}-0-"))
    # A live run on host "HOST-2" sharing the temp folder: read from the left, its name
    # looked like this host's pid 2 with a start time that pid 2 does not have
    neighbour = Path(tempfile.mkdtemp(prefix=f"{wt._PREFIX}{socket.gethostname()}-2-{os.getpid()}-"
                                             f"{process_start(os.getpid())}-"))
    try:
        table = WordTable(spill_bytes=0)
        table.add(0, parts[0])
        assert not dead.exists() and alive.exists() and neighbour.exists()
    finally:
        for folder in (dead, alive, neighbour):
            if folder.exists():
                import shutil

                shutil.rmtree(folder)


def test_a_copy_holds_its_own_rows(parts):
    import pickle

    table = WordTable(spill_bytes=0)
    table.add(0, parts[0])
    copy = pickle.loads(pickle.dumps(table))
    del table
    gc.collect()
    pd.testing.assert_frame_equal(copy.frame(), whole(parts[:1]))


def test_a_result_replaced_with_new_rows_writes_the_new_rows(parts):
    """dataclasses.replace(result, word_bias=new) writes ``new``: the writer reads the
    result's table, which must not stay the old result's."""
    import dataclasses

    from wefe_same.result import RankResult

    table = WordTable(spill_bytes=0)
    for i, frame in enumerate(parts):
        table.add(i, frame)
    empty = pd.DataFrame()
    result = RankResult(scores={}, aggregates=empty, rankings=empty, correlations=empty,
                        correlation_pvalues=empty, by_query_set=empty, details=empty, lookups=empty,
                        word_table=table)
    new = parts[0].iloc[:5].copy()
    replaced = dataclasses.replace(result, word_bias=new)
    assert replaced.word_table is not table
    pd.testing.assert_frame_equal(replaced.word_table.frame().reset_index(drop=True),
                                  wt.concat_frames([new]).reset_index(drop=True))
    same = dataclasses.replace(result)  # nothing changed: the same table goes on
    assert same.word_table is table and len(same.word_bias) == sum(len(p) for p in parts)


def pandas_summary(rows: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The summary read with pandas' sorts and group-bys (what WordSummary.of_rows did
    before it worked on NumPy codes): the oracle of the test below."""
    coded, text = {}, {}
    for col in ("model", "subquery", "word"):
        codes, uniques = pd.factorize(rows[col])
        coded[col], text[col] = codes, np.array([str(u) for u in uniques], dtype=object)
    values = rows["value"].to_numpy(dtype=float)
    words = pd.DataFrame({**coded, "value": values, "size": np.abs(values)})
    ranked = words.sort_values("size", ascending=False, kind="stable")
    top = ranked.groupby(["model", "subquery"], sort=False).head(wt.TOP_WORDS)
    first = words[["model", "subquery"]].drop_duplicates()
    order = pd.Series(np.arange(len(first)), index=pd.MultiIndex.from_frame(first))
    top = top.iloc[np.argsort(order.reindex(pd.MultiIndex.from_frame(top[["model", "subquery"]])).to_numpy(),
                              kind="stable")]
    means = (words.groupby(["model", "word"], sort=False)["size"].mean().reset_index()
             .sort_values("size", ascending=False, kind="stable").groupby("model", sort=False).head(wt.TOP_WORDS))
    top_out = pd.DataFrame({col: text[col][top[col].to_numpy()] for col in ("model", "subquery", "word")})
    top_out["value"] = top["value"].to_numpy()
    means_out = pd.DataFrame({col: text[col][means[col].to_numpy()] for col in ("model", "word")})
    means_out["size"] = means["size"].to_numpy()
    return top_out, means_out


@pytest.mark.parametrize("seed", range(40))
def test_the_summary_equals_pandas_sorts_and_group_bys(seed):
    """Ties (values on a coarse grid, signs), groups met again later, several models, labels
    as strings or categories, NaN values, tables from empty to a few hundred rows."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 400)) if seed else 0
    rows = pd.DataFrame({"model": rng.choice(["m1", "m2", "m0"], n), "subquery": rng.choice(list("edcba"), n),
                         "word": rng.choice([f"w{i}" for i in range(int(rng.integers(1, 40)))], n),
                         "value": rng.integers(-5, 6, n) * (0.25 if seed % 2 else 1.0)})
    if seed % 5 == 4:  # NaN values (word_rows drops them; the summary sorts them last)
        rows.loc[rng.random(n) < 0.2, "value"] = np.nan
    if seed % 3 == 0:
        rows = rows.astype({"model": "category", "word": "category"})
    got = WordSummary.of_rows(rows)
    top, means = pandas_summary(rows)
    pd.testing.assert_frame_equal(got.top, top, check_exact=True)
    pd.testing.assert_frame_equal(got.means, means, check_exact=True)
    assert got.figure is None
