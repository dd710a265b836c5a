"""Figures. matplotlib is imported lazily; every function takes ``ax=None`` and returns the Axes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    from matplotlib.axes import Axes


def correlation_heatmap(rho: pd.DataFrame, *, ax: Axes | None = None, title: str | None = None,
                        cmap: str = "RdBu_r") -> Axes:
    """Annotated heatmap of a correlation matrix on a diverging scale fixed to −1..1.

    NaN cells (undefined correlations) are left blank and annotated "n/a".
    """
    import matplotlib.pyplot as plt

    if ax is None:
        size = 1.2 + 0.75 * len(rho.columns)
        _, ax = plt.subplots(figsize=(size + 1.5, size))
    values = rho.to_numpy(dtype=float)
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=-1, vmax=1)
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="rank correlation")
    ax.set_xticks(range(len(rho.columns)), labels=rho.columns, rotation=45, ha="right")
    ax.set_yticks(range(len(rho.index)), labels=rho.index)
    for (i, j), v in np.ndenumerate(values):
        text = "n/a" if np.isnan(v) else f"{v:.2f}"
        ax.text(j, i, text, ha="center", va="center", fontsize=8,
                color="white" if not np.isnan(v) and abs(v) > 0.6 else "black")
    ax.set_title(title or "Spearman correlation between rankings")
    return ax
