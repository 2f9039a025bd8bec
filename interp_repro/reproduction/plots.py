"""The picture of a record: one figure per study, a row per claim (the Reproduction page).

Each row has its own axis, since claims measure different things: the paper's band as a grey bar
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


def _band(ax, outcome: Outcome, low: float, high: float) -> None:
    band = outcome.claim.band
    if band.equals is not None:
        at = float(band.equals)
        ax.axvspan(at - 0.02 * (high - low), at + 0.02 * (high - low), color="0.8", lw=0)
    else:
        ax.axvspan(low if band.min is None else band.min, high if band.max is None else band.max,
                   color="0.85", lw=0)


def record_figure(outcomes: list[Outcome], title: str):
    """One row per outcome (all of one study's claims at one scale): band, paper value, our estimate
    and interval coloured by status, and the check's result; returns the Figure."""
    fig, axes = plt.subplots(len(outcomes), 1, figsize=(8.5, 0.42 * len(outcomes) + 0.6), squeeze=False,
                             gridspec_kw={"hspace": 0.9})
    for ax, o in zip(axes[:, 0], outcomes, strict=True):
        low, high = _span(o)
        _band(ax, o, low, high)
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


def record_plotly(outcomes: list[Outcome], title: str):
    """:func:`record_figure` as a plotly figure: a subplot per claim, hover giving the statement, our
    value with its samples and interval, the paper's value and band, and the check."""
    from plotly.subplots import make_subplots

    n = len(outcomes)
    fig = make_subplots(rows=n, cols=1, vertical_spacing=0.35 / n)
    for row, o in enumerate(outcomes, start=1):
        low, high = _span(o)
        band = o.claim.band
        if band.equals is not None:
            at = float(band.equals)
            x0, x1 = at - 0.02 * (high - low), at + 0.02 * (high - low)
        else:
            x0 = low if band.min is None else band.min
            x1 = high if band.max is None else band.max
        axis = "" if row == 1 else str(row)
        fig.add_shape(type="rect", x0=x0, x1=x1, y0=0, y1=1, xref=f"x{axis}", yref=f"y{axis} domain",
                      fillcolor="#d9d9d9", line_width=0, layer="below")
        if o.claim.paper_value is not None:
            fig.add_vline(x=_number(o.claim.paper_value), line_color="black", line_width=1.2, row=row, col=1)
        hover = (f"<b>{html.escape(o.claim.id)}</b><br>{html.escape(o.claim.statement)}<br>"
                 f"ours: {html.escape(o.ours)}<br>paper: {html.escape(o.claim.paper)} "
                 f"(band {html.escape(band.describe())})<br>{_shown(o)}: {o.result}")
        if o.value is not None:
            colour = STATUS_COLOURS.get(o.status or "", "#808080")
            value = _number(o.value)
            error = ({} if not o.interval else
                     {"error_x": {"type": "data", "symmetric": False, "array": [o.interval[1] - value],
                                  "arrayminus": [value - o.interval[0]], "color": colour, "thickness": 2.5,
                                  "width": 0}})
            fig.add_scatter(x=[value], y=[0], mode="markers", row=row, col=1, hovertext=[hover],
                            hoverinfo="text", showlegend=False, **error,
                            marker={"color": colour, "size": 9,
                                    "line": {"color": "red" if o.result == "FAIL" else colour, "width": 2}})
        else:  # nothing recorded: a blank trace, so that the row still hovers and names the claim
            fig.add_scatter(x=[(low + high) / 2], y=[0], mode="markers", row=row, col=1, hovertext=[hover],
                            hoverinfo="text", showlegend=False, marker={"opacity": 0})
        ticks = {"tickvals": [0, 1], "ticktext": ["false", "true"]} if isinstance(band.equals, bool) else {
            "nticks": 4}
        fig.update_xaxes(range=[low, high], row=row, col=1, tickfont_size=9, showgrid=False, zeroline=False,
                         **ticks)
        fig.update_yaxes(range=[-1, 1], row=row, col=1, tickvals=[0], ticktext=[_label(o)], tickfont_size=10,
                         showgrid=False, zeroline=False)
        fig.add_annotation(text=f"{_shown(o)}: {o.result}", xref=f"x{axis} domain", yref=f"y{axis} domain",
                           x=1.02, y=0.5, xanchor="left", showarrow=False, font_size=10,
                           font_color="red" if o.result == "FAIL" else "black")
    fig.update_layout(title=title, height=42 * n + 90, margin={"l": 10, "r": 150, "t": 50, "b": 20},
                      plot_bgcolor="white")
    return fig


def record_view(outcomes: list[Outcome], study: str, scale: str) -> Interactive:
    """The figure of one study's claims at ``scale`` for the book: static and interactive, named
    ``fig-record-<study>``."""
    title = f"{study} at {scale}"
    return Interactive(f"fig-record-{study.replace('_', '-')}", record_figure(outcomes, title),
                       record_plotly(outcomes, title))
