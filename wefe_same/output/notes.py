"""Notes from the writer: what a figure or table could not show, and how it was handled,
turned into one warning line each for the user and the manifest."""

from __future__ import annotations

#: A note from a figure or table: (model or None, what, how it is handled),
#: e.g. ("m", "no values", "shown as missing").
Note = tuple[str | None, str, str]


def note_messages(stems: dict[Note, list[str]]) -> list[str]:
    """One line per (what, how, figures), naming every model it concerns.

    >>> note_messages({("a", "no values", "shown as missing"): ["scores_WEAT", "scores_RND"],
    ...                ("b", "no values", "shown as missing"): ["scores_WEAT", "scores_RND"],
    ...                (None, "drawing failed (ValueError: x)", "left out"): ["robustness"]})
    ["figures scores_WEAT, scores_RND: no values for models 'a', 'b'; shown as missing", \
'figure robustness: drawing failed (ValueError: x); left out']
    """
    models: dict[tuple[str, str, tuple[str, ...]], list[str | None]] = {}
    for (model, what, how), figures in stems.items():
        models.setdefault((what, how, tuple(figures)), []).append(model)
    messages = []
    for (what, how, where), names in models.items():
        shown = ", ".join(where) if len(where) <= 6 else f"{', '.join(where[:3])} and {len(where) - 3} more"
        place = f"figure{'s' if len(where) > 1 else ''} {shown}: " if where else "figures: "
        named = [n for n in names if n is not None]
        whom = (f" for model{'s' if len(named) > 1 else ''} " + ", ".join(repr(n) for n in named)) if named else ""
        messages.append(f"{place}{what}{whom}; {how}")
    return messages
