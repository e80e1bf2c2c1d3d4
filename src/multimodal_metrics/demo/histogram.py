"""The histogram of the per-example scores, drawn in HTML."""

import html
import math

from .headline import fmt, primary_key


def histogram(scores: list[float], bins: int = 10):
    """A DataFrame (`score` bin label, `examples` count) of the scores: bins over [0, 1] when every
    score lies there, else over [min, max]. Labels are the bins' lower and upper edges, in order (the
    plot keeps the data's order); no scores: no rows (nothing drawn)."""
    import numpy as np
    import pandas as pd

    values = np.array([s for s in scores if not math.isnan(s)], dtype=float)
    if values.size == 0:
        return pd.DataFrame({"score": pd.Series([], dtype=object), "examples": pd.Series([], dtype=int)})
    low, high = (0.0, 1.0) if values.min() >= 0 and values.max() <= 1 else (values.min(), values.max())
    if high == low:
        high = low + 1.0
    counts, edges = np.histogram(values, bins=bins, range=(low, high))
    # The plot orders the labels as strings: every edge gets the same decimals and the lower edges the
    # same width (padded with spaces, which sort before digits), so string order is numeric order.
    decimals = max(len(fmt(e).partition(".")[2]) for e in edges)
    texts = [f"{e:.{decimals}f}" for e in edges]
    width = max(len(t) for t in texts[:-1])
    labels = [f"{a.rjust(width)}–{b}" for a, b in zip(texts[:-1], texts[1:])]
    return pd.DataFrame({"score": labels, "examples": counts.astype(int)})


def count_ticks(top: int) -> list[int]:
    """Whole-number ticks from 0 to at least `top`, at most 6 of them, a step of 1, 2, 5, 10, 20, 50, ..."""
    top, step = max(int(top), 1), 1
    while -(-top // step) > 5:
        step = step * 5 // 2 if str(step)[0] == "2" else step * 2
    return list(range(0, -(-top // step) * step + 1, step))


def no_per_example_note(result: dict) -> str:
    """What the histogram's place says when the result has no per-example scores (fid_clip's FID alone)."""
    return f"<p>{html.escape(primary_key(result))} is one number for the whole set: there are no per-example scores to list or plot.</p>"


def histogram_html(scores: list[float], bins: int = 10, title: str = "per-example score (bins)") -> str:
    """The histogram of the scores (`histogram`'s bins) as HTML bars: whole-number count ticks, the bin
    labels written vertically under their bars (they never run together on a phone), each bar's count
    on it, and an aria-label `score: <bin>; examples: <n>` per bar. No scores: an empty string."""
    frame = histogram(scores, bins)
    if not len(frame):
        return ""
    counts = [int(c) for c in frame["examples"]]
    ticks = count_ticks(max(counts))
    top = ticks[-1]
    bars, labels = [], []
    for label, count in zip(frame["score"], counts):
        text = html.escape(label.strip())
        height = 100.0 * count / top
        bars.append(
            f'<div class="mm-bin"><div class="mm-bar" role="img" aria-roledescription="bar" '
            f'aria-label="score: {text}; examples: {count}" title="{text}: {count} example(s)" '
            f'style="height:{height:.2f}%">{f"<span>{count}</span>" if count else ""}</div></div>'
        )
        labels.append(f'<span class="mm-tick">{text}</span>')
    y_ticks = "".join(
        f'<span class="mm-tick" style="bottom:{100.0 * t / top:.2f}%">{t}</span>' for t in ticks
    )
    return (
        f"<style>{_HIST_CSS}</style>"
        '<figure class="mm-hist" aria-label="histogram of the per-example scores">'
        '<div class="mm-ytitle">examples</div>'
        f'<div class="mm-axis-y">{y_ticks}</div>'
        f'<div class="mm-plot">{"".join(bars)}</div>'
        f'<div class="mm-axis-x">{"".join(labels)}</div>'
        f"<figcaption>{html.escape(title)}</figcaption></figure>"
    )


_HIST_CSS = (
    ".mm-hist{display:grid;grid-template-columns:1.2em 2.2em 1fr;grid-template-rows:170px auto auto;margin:0;"
    "padding-top:1.6em;font-size:12px;color:var(--body-text-color,#333)}"
    ".mm-ytitle{grid-row:1;grid-column:1;writing-mode:vertical-rl;transform:rotate(180deg);text-align:center}"
    ".mm-axis-y{grid-row:1;grid-column:2;position:relative;border-right:1px solid #999}"
    ".mm-axis-y .mm-tick{position:absolute;right:4px;transform:translateY(50%);line-height:1}"
    ".mm-plot{grid-row:1;grid-column:3;display:flex;align-items:flex-end;gap:2px;border-bottom:1px solid #999}"
    ".mm-bin{flex:1;height:100%;display:flex;align-items:flex-end;min-width:0}"
    ".mm-bar{width:100%;background:#f97316;position:relative}"
    ".mm-bar span{position:absolute;top:-1.3em;left:0;right:0;text-align:center}"
    ".mm-axis-x{grid-row:2;grid-column:3;display:flex;gap:2px}"
    ".mm-axis-x .mm-tick{flex:1;min-width:0;writing-mode:vertical-rl;transform:rotate(180deg);"
    "text-align:right;white-space:nowrap;line-height:1.2;padding-top:3px;display:flex;align-items:center}"
    ".mm-hist figcaption{grid-row:3;grid-column:3;text-align:center;margin-top:4px}"
)
