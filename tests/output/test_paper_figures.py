"""Every figure fits a paper page (issue 29, item 4): at most 7 × 9 inches (a double column)
as saved, for a 40-model run with 12 metrics, 60 subqueries, bootstrap ranks, robustness and
six debiased variants; what does not fit is split into pages (extra files), and every model
is on some page."""

from __future__ import annotations

import io
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from wefe_same.output.figure_jobs import MAX_H, MAX_W, PAGE_ROWS, figure_jobs, pages
from wefe_same.output.rendering import DPI, render

N_MODELS, N_SUBQUERIES = 40, 60
METRICS = ["WEAT", "WEAT-ES", "RND", "RNSB", "MAC", "SAME", "DirectBias", "gWEAT", "ECT", "RIPA", "SAME-skew",
           "SAME-stereotype"]
MODELS = [f"model-with-a-longish-name-{i:03d}" for i in range(100)]
SUBQUERIES = [f"religion:christianity_terms+islam_terms|positive_words+negative_words_{j}"
              for j in range(N_SUBQUERIES)]


def synthetic_run(n_models: int = N_MODELS, n_bases: int = 8) -> SimpleNamespace:
    """What figure_jobs reads of a result, with known shapes (values drawn at random)."""
    rng = np.random.default_rng(0)
    models = MODELS[:n_models]
    rankings = pd.DataFrame({m: rng.permutation(n_models) + 1 for m in METRICS}, index=models)
    rho = pd.DataFrame(np.corrcoef(rng.normal(size=(len(METRICS), 30))), index=METRICS, columns=METRICS)
    scores = {m: pd.DataFrame(rng.normal(size=(n_models, N_SUBQUERIES)), index=models, columns=SUBQUERIES)
              for m in METRICS[:2]}
    stability = pd.DataFrame([{"model": mo, "metric": me, "rank": r, "rank_ci_low": max(1, r - 2),
                               "rank_ci_high": min(n_models, r + 2)}
                              for me in METRICS for mo, r in zip(models, rankings[me])])
    robustness = pd.DataFrame([{"model": mo, "metric": me, "mean_abs_change": rng.random()}
                               for mo in models for me in METRICS])
    effect = pd.DataFrame([{"base": models[b], "variant": f"{models[b]}{meth}", "method": meth, "metric": me,
                            "order": "descending" if me == "ECT" else "abs", "base_score": 1.0 + rng.random(),
                            "debiased_score": rng.random(), "difference": -rng.random(), "diff_low": -1.0,
                            "diff_high": 0.1, "effect": "reduced"}
                           for b in range(n_bases) for meth in ("+hard-debias", "+debias-race", "+debias-religion")
                           for me in METRICS])
    agg = pd.DataFrame({"model": models, "mean_rank": rankings.mean(axis=1).rank(method="min").to_numpy()})
    return SimpleNamespace(correlations=rho, set_apart=[], rankings=rankings, scores=scores, word_table=None,
                           rank_stability=stability, metric_names=METRICS, manifest={"metrics": []},
                           extra={"aggregation": agg, "debias_effect": effect, "robustness": robustness})


@pytest.fixture(scope="module")
def rendered() -> dict[str, tuple[tuple[int, int], object]]:
    """Each figure's saved PNG size in pixels, and its job."""
    jobs, _ = figure_jobs(synthetic_run(), "all")
    out = {}
    for job in jobs:
        files, notes = render(job, ["png"])
        assert "png" in files, (job.stem, notes)
        out[job.stem] = (Image.open(io.BytesIO(files["png"])).size, job)
    return out


def test_every_figure_of_a_40_model_run_fits_7_by_9_inches(rendered):
    too_big = {stem: (w / DPI, h / DPI) for stem, ((w, h), _) in rendered.items() if w > 7 * DPI or h > 9 * DPI}
    assert too_big == {}
    assert MAX_W <= 7 and MAX_H <= 9


def test_what_does_not_fit_is_split_into_pages_and_no_model_is_lost(rendered):
    stems = set(rendered)
    # 40 models fit one page; 60 subqueries do not (2 pages of 30); 12 stability panels are
    # 3 pages of 4; the debiasing effect of 8 bases is 2 pages of 4 bases, 3 methods each.
    assert {"correlations", "accumulated_rankings", "robustness"} <= stems
    assert "accumulated_rankings_page2" not in stems and "robustness_page2" not in stems
    assert {"scores_WEAT", "scores_WEAT_page2"} <= stems and "scores_WEAT_page3" not in stems
    assert {"rank_stability", "rank_stability_page2", "rank_stability_page3"} <= stems
    assert "rank_stability_page4" not in stems
    assert {"debias_effect", "debias_effect_page2"} <= stems and "debias_effect_page3" not in stems
    shown = pd.concat([rendered[s][1].args[0] for s in ("debias_effect", "debias_effect_page2")])
    assert sorted(shown["base"].unique()) == MODELS[:8] and len(shown) == 8 * 3 * len(METRICS)
    columns = [c for s in ("scores_WEAT", "scores_WEAT_page2") for c in rendered[s][1].args[0].columns]
    assert columns == SUBQUERIES
    # one colour scale for the pages of one heatmap
    assert rendered["scores_WEAT"][1].args[3] == rendered["scores_WEAT_page2"][1].args[3] is not None


def test_a_run_of_100_models_gets_pages_of_at_most_40_and_keeps_every_model():
    jobs, _ = figure_jobs(synthetic_run(n_models=100, n_bases=1), "paper")
    accumulated = [j for j in jobs if j.stem.startswith("accumulated_rankings")]
    assert [j.stem for j in accumulated] == ["accumulated_rankings", "accumulated_rankings_page2",
                                             "accumulated_rankings_page3"]
    rows = [list(j.args[0].index) for j in accumulated]
    assert sorted(m for part in rows for m in part) == sorted(MODELS)
    assert all(len(part) <= PAGE_ROWS for part in rows)
    assert len({j.args[1] for j in accumulated}) == 1  # the same axis on every page
    for job in accumulated[:1]:
        files, _ = render(job, ["png"])
        w, h = Image.open(io.BytesIO(files["png"])).size
        assert w <= 7 * DPI and h <= 9 * DPI


def test_pages_are_balanced():
    assert [s.stop - s.start for s in pages(100, 40)] == [34, 34, 32]
    assert [s.stop - s.start for s in pages(40, 40)] == [40]
    assert pages(0, 40) == [slice(0, 0)]


def test_laying_out_without_a_draw_gives_the_files_of_a_full_draw(monkeypatch):
    """``rendering._fix_layout`` runs the layout engine alone; the files (SVG: every position
    is written as a number) and notes equal those laid out by a whole draw without output,
    as before: a heatmap beside its colour bar, panels with a shared legend, bars."""
    from wefe_same.output import rendering

    jobs, _ = figure_jobs(synthetic_run(n_models=3, n_bases=1), "paper")
    chosen = [j for j in jobs if j.stem in ("correlations", "debias_effect", "accumulated_rankings")]
    assert len(chosen) == 3
    ours = [render(job, ["svg"]) for job in chosen]

    def by_a_draw(fig):
        fig.draw_without_rendering()
        fig.set_layout_engine("none")
        fig.set_layout_engine(None)

    monkeypatch.setattr(rendering, "_fix_layout", by_a_draw)
    assert [render(job, ["svg"]) for job in chosen] == ours
    assert all(files for files, _ in ours)
