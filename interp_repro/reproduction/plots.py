"""The picture of a record: one figure per study, a row per claim (the Reproduction page).

Each row has its own scale, since claims measure different things: the paper's band as a grey bar
(running off the axis where the band is one-sided), the paper's value as a black tick, our estimate as
a dot coloured by its status with its 95% interval as a line, and on the right the measured status and
the result of the check. :func:`record_view` is the figure for the book: a static matplotlib one and an
interactive plotly one, whose hover reads each claim's statement, samples and band.
"""

import html

import matplotlib.pyplot as plt

from interp_repro.core.interactive import Interactive
from interp_repro.reproduction.claims import NOT_CHECKED
from interp_repro.reproduction.report import NOT_RUN, Outcome

STATUS_COLOURS = {"reproduced": "#2e7d32", "differs": "#d35400", "inconclusive": "#c9a400"}
"""The dot's colour for each measured status (the table's cells use lighter tones of the same hues)."""


def _number(value: object) -> float | None:
    """A value on a row's axis: numbers as they are, bools as 0 and 1; None for nothing."""
    if value is None:
        return None
    return float(value)


def _span(outcome: Outcome) -> tuple[float, float]:
    """The x-range of a claim's row: the band's finite edges, the paper's value and ours with its
    interval, padded by a fifth on each side (a bool claim's row runs from -0.5 to 1.5)."""
    band = outcome.claim.band
    if isinstance(band.equals, bool):
        return -0.5, 1.5
    points = [band.min, band.max, band.equals, _number(outcome.claim.paper_value), _number(outcome.value),
              *(outcome.interval or ())]
    points = [p for p in points if p is not None]
    low, high = min(points), max(points)
    pad = 0.2 * (high - low) if high > low else 0.2 * max(abs(low), 1.0)
    return low - pad, high + pad


def _band_edges(outcome: Outcome, low: float, high: float) -> tuple[float, float]:
    """The x-extent of a row's band bar: a sliver around an ``equals`` band, and the row's edge where a
    band is one-sided."""
    band = outcome.claim.band
    if band.equals is not None:
        at = float(band.equals)
        return at - 0.02 * (high - low), at + 0.02 * (high - low)
    return low if band.min is None else band.min, high if band.max is None else band.max


def record_figure(outcomes: list[Outcome], title: str):
    """One row per outcome (all of one study's claims at one scale): band, paper value, our estimate
    and interval coloured by status, and the check's result; returns the Figure."""
    fig, axes = plt.subplots(len(outcomes), 1, figsize=(8.5, 0.42 * len(outcomes) + 0.6), squeeze=False,
                             gridspec_kw={"hspace": 0.9})
    for ax, o in zip(axes[:, 0], outcomes, strict=True):
        low, high = _span(o)
        ax.axvspan(*_band_edges(o, low, high), color="0.85", lw=0)
        if o.claim.paper_value is not None:
            ax.axvline(_number(o.claim.paper_value), color="black", lw=1.2)
        if o.value is not None:
            colour = STATUS_COLOURS.get(o.status or "", "0.5")
            if o.interval:
                ax.plot(o.interval, [0, 0], color=colour, lw=2.5, solid_capstyle="butt")
            ax.plot([_number(o.value)], [0], "o", color=colour, ms=6,
                    markeredgecolor="red" if o.result == "FAIL" else colour, markeredgewidth=1.5)
        ax.set_xlim(low, high)
        ax.set_ylim(-1, 1)
        ax.set_yticks([])
        if isinstance(o.claim.band.equals, bool):
            ax.set_xticks([0, 1], ["false", "true"])
        else:
            ax.xaxis.set_major_locator(plt.MaxNLocator(4))
        ax.tick_params(axis="x", labelsize=7, length=2, pad=1)
        for side in ("left", "right", "top"):
            ax.spines[side].set_visible(False)
        ax.text(-0.02, 0.1, _label(o), transform=ax.transAxes, ha="right", va="center",
                fontsize=8)
        ax.text(1.02, 0.1, f"{_shown(o)}: {o.result}", transform=ax.transAxes, ha="left", va="center",
                fontsize=8, color="red" if o.result == "FAIL" else "black")
    fig.suptitle(title, x=0.02, ha="left", fontsize=10)
    height = fig.get_figheight()
    fig.subplots_adjust(left=0.36, right=0.8, top=1 - 0.45 / height, bottom=0.25 / height)
    return fig


def legend_figure():
    """A one-line key to :func:`record_figure`'s marks."""
    fig, ax = plt.subplots(figsize=(8.5, 0.4))
    handles = [plt.Rectangle((0, 0), 1, 1, color="0.85", label="paper band"),
               plt.Line2D([], [], color="black", lw=1.2, label="paper value"),
               *(plt.Line2D([], [], color=c, marker="o", lw=2.5, label=f"ours, {s}")
                 for s, c in STATUS_COLOURS.items()),
               plt.Line2D([], [], color="0.5", marker="o", markeredgecolor="red", lw=0, label="check FAILs")]
    ax.legend(handles=handles, ncol=len(handles), loc="center", frameon=False, fontsize=7, handlelength=1.6)
    ax.axis("off")
    return fig


def _label(o: Outcome) -> str:
    return o.claim.id.split(".", 1)[1]


def _shown(o: Outcome) -> str:
    return o.status or (NOT_CHECKED if o.result == NOT_CHECKED else NOT_RUN)


def _hover(o: Outcome) -> str:
    return (f"<b>{html.escape(o.claim.id)}</b><br>{html.escape(o.claim.statement)}<br>"
            f"ours: {html.escape(o.ours)}<br>paper: {html.escape(o.claim.paper)} "
            f"(band {html.escape(o.claim.band.describe())})<br>{_shown(o)}: {o.result}")


def record_plotly(outcomes: list[Outcome], title: str):
    """:func:`record_figure` as a light plotly figure: one axis, a row per claim, each row's x scaled
    to its own span (whose ends are printed under it), and a handful of traces in all; hover gives
    the statement, our value with its samples and interval, the paper's value and band, and the
    check."""
    import plotly.graph_objects as go

    fig = go.Figure()
    rows = range(len(outcomes))
    spans = [_span(o) for o in outcomes]

    def scaled(x: float, row: int) -> float:
        low, high = spans[row]
        return (x - low) / (high - low)

    edges = [[scaled(x, r) for x in _band_edges(o, *spans[r])] for r, o in zip(rows, outcomes, strict=True)]
    fig.add_bar(y=list(rows), base=[e[0] for e in edges], x=[e[1] - e[0] for e in edges], orientation="h",
                width=0.55, marker={"color": "#d9d9d9", "line_width": 0}, hoverinfo="skip", showlegend=False)
    papers = [(r, _number(o.claim.paper_value)) for r, o in zip(rows, outcomes, strict=True)
              if o.claim.paper_value is not None]
    fig.add_scatter(x=[scaled(v, r) for r, v in papers], y=[r for r, _ in papers], mode="markers",
                    marker={"symbol": "line-ns-open", "size": 16, "color": "black", "line_width": 1.5},
                    hoverinfo="skip", showlegend=False)
    for status in (*STATUS_COLOURS, None):
        mine = [(r, o) for r, o in zip(rows, outcomes, strict=True)
                if o.value is not None and (o.status if o.status in STATUS_COLOURS else None) == status]
        if not mine:
            continue
        colour = STATUS_COLOURS.get(status or "", "#808080")
        xs = [scaled(_number(o.value), r) for r, o in mine]
        pairs = list(zip(mine, xs, strict=True))
        plus = [scaled(o.interval[1], r) - x if o.interval else 0 for (r, o), x in pairs]
        minus = [x - scaled(o.interval[0], r) if o.interval else 0 for (r, o), x in pairs]
        fig.add_scatter(x=xs, y=[r for r, _ in mine], mode="markers", hovertext=[_hover(o) for _, o in mine],
                        hoverinfo="text", showlegend=False,
                        error_x={"type": "data", "symmetric": False, "array": plus, "arrayminus": minus,
                                 "color": colour, "thickness": 2.5, "width": 0},
                        marker={"color": colour, "size": 9, "line": {
                            "width": 2, "color": ["red" if o.result == "FAIL" else colour for _, o in mine]}})
    blank = [(r, o) for r, o in zip(rows, outcomes, strict=True) if o.value is None]
    if blank:  # nothing recorded: still a row that hovers and names the claim
        fig.add_scatter(x=[0.5] * len(blank), y=[r for r, _ in blank], mode="markers", marker={"opacity": 0},
                        hovertext=[_hover(o) for _, o in blank], hoverinfo="text", showlegend=False)
    ends = [(x, r, f"{v:.3g}") for r, o in zip(rows, outcomes, strict=True)
            if not isinstance(o.claim.band.equals, bool) for x, v in zip((0, 1), spans[r], strict=True)]
    ends += [(scaled(x, r), r, label) for r, o in zip(rows, outcomes, strict=True)
             if isinstance(o.claim.band.equals, bool) for x, label in ((0, "false"), (1, "true"))]
    fig.add_scatter(x=[x for x, _, _ in ends], y=[r + 0.38 for _, r, _ in ends], text=[t for _, _, t in ends],
                    mode="text", textfont={"size": 8, "color": "#777777"}, hoverinfo="skip", showlegend=False)
    fig.add_scatter(x=[1.04] * len(outcomes), y=list(rows), mode="text", textposition="middle right",
                    text=[f"{_shown(o)}: {o.result}" for o in outcomes], hoverinfo="skip", showlegend=False,
                    textfont={"size": 10,
                              "color": ["red" if o.result == "FAIL" else "black" for o in outcomes]})
    fig.update_xaxes(range=[-0.04, 1.5], showticklabels=False, showgrid=False, zeroline=False)
    fig.update_yaxes(tickvals=list(rows), ticktext=[_label(o) for o in outcomes], autorange="reversed",
                     tickfont_size=10, showgrid=False, zeroline=False)
    fig.update_layout(title=title, height=34 * len(outcomes) + 90, plot_bgcolor="white", bargap=0,
                      margin={"l": 10, "r": 10, "t": 50, "b": 20})
    return fig


def record_view(outcomes: list[Outcome], study: str, scale: str) -> Interactive:
    """The figure of one study's claims at ``scale`` for the book: static and interactive, named
    ``fig-record-<study>``."""
    title = f"{study} at {scale}"
    return Interactive(f"fig-record-{study.replace('_', '-')}", record_figure(outcomes, title),
                       record_plotly(outcomes, title))
