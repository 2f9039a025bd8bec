"""Figures for the superposition chapters. Each function takes a run's arrays and returns a Figure;
every quantity it shows beyond those arrays comes from :mod:`.measures`."""

import matplotlib.pyplot as plt
import numpy as np
import plotly.graph_objects as go
from matplotlib.colors import ListedColormap
from plotly.subplots import make_subplots

from interp_repro.superposition.measures import (
    FRACTIONS,
    PHASES,
    REGULAR_GAP,
    analytic_losses_2_1,
    analytic_phase,
    chance_fraction_share,
    feature_norms,
    gram,
    packed_dims,
    represented,
    superposition,
)

PHASE_COLOURS = ListedColormap(["#d9d9d9", "#4c72b0", "#dd8452"])


def embeddings_2d(W: np.ndarray, titles: list[str], importance: np.ndarray | None = None,
                  bias: np.ndarray | None = None):
    """Feature directions W_i in a 2-D hidden space, one panel per model; colour = importance."""
    k = W.shape[0]
    cols = min(k, 5)
    rows = -(-k // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(2.2 * cols, 2.6 * rows), squeeze=False)
    for ax in axes.flat[k:]:
        ax.set_visible(False)
    colours = plt.cm.viridis(np.linspace(0, 0.9, W.shape[-1]))
    for j, ax in enumerate(axes.flat[:k]):
        for i in range(W.shape[-1]):
            ax.plot([0, W[j, 0, i]], [0, W[j, 1, i]], color=colours[i], lw=2)
            ax.scatter(W[j, 0, i], W[j, 1, i], color=colours[i], s=14, zorder=3)
        ax.set(xlim=(-1.3, 1.3), ylim=(-1.3, 1.3), aspect="equal", xticks=[], yticks=[])
        ax.set_title(titles[j], fontsize=9)
        if bias is not None:
            ax.set_xlabel(f"max bias {bias[j].max():+.2f}", fontsize=8)
    if importance is not None:
        handles = [plt.Line2D([], [], color=colours[i], lw=2, label=f"I={importance[i]:.2f}")
                   for i in range(W.shape[-1])]
        fig.legend(handles=handles, loc="center right", fontsize=7, frameon=False)
        fig.subplots_adjust(right=0.9)
    return fig


def gram_and_norms(W: np.ndarray, sparsities: np.ndarray, label: str):
    """Top: W^T W per sparsity. Bottom: ||W_i|| per feature, coloured by its superposition
    sum_{j != i} (W_i_hat . W_j)^2 (dark = a dimension of its own, yellow = shared)."""
    k = W.shape[0]
    fig, axes = plt.subplots(2, k, figsize=(1.9 * k, 4.4), gridspec_kw={"height_ratios": [1, 1.1]})
    for j in range(k):
        axes[0, j].imshow(gram(W[j]), cmap="RdBu", vmin=-1, vmax=1)
        axes[0, j].set(xticks=[], yticks=[], title=f"S = {sparsities[j]:g}")
        norms, sup = feature_norms(W[j]), superposition(W[j])
        colours = plt.cm.viridis(np.clip(sup, 0, 1))
        axes[1, j].barh(np.arange(len(norms)), norms, color=colours)
        axes[1, j].set(xlim=(0, 1.2), yticks=[], xlabel="||W_i||")
        axes[1, j].invert_yaxis()
    axes[0, 0].set_ylabel(f"{label}\nW^T W")
    axes[1, 0].set_ylabel("features (by importance)")
    fig.tight_layout()
    return fig


def gram_and_vectors(W: np.ndarray, sparsities: np.ndarray, label: str) -> go.Figure:
    """Interactive: at the sparsity the slider picks, W^T W, the feature vectors W_i (rows) and ||W_i||
    coloured by superposition, features by importance top to bottom; hover reads every value."""
    k, m, n = W.shape
    fig = make_subplots(rows=1, cols=3, shared_yaxes=True, column_widths=[n, 2 * m, 8],
                        horizontal_spacing=0.03, subplot_titles=["W^T W", "feature vectors W_i", "||W_i||"])
    features = [f"feature {i}" for i in range(n)]
    heat = {"colorscale": "RdBu", "zmin": -1, "zmax": 1, "showscale": False, "y": features}
    for j in range(k):
        visible = j == k - 1
        sup = superposition(W[j])
        fig.add_trace(go.Heatmap(z=gram(W[j]), x=features, visible=visible,
                                 hovertemplate="W_i . W_j = %{z:.3f}<br>%{y}, %{x}<extra></extra>", **heat),
                      row=1, col=1)
        fig.add_trace(go.Heatmap(z=W[j].T, x=[f"dim {d}" for d in range(m)], visible=visible,
                                 hovertemplate="%{y}, %{x}: %{z:.3f}<extra></extra>", **heat), row=1, col=2)
        bars = {"color": sup, "colorscale": "Viridis", "cmin": 0, "cmax": 1}
        fig.add_trace(go.Bar(x=feature_norms(W[j]), y=features, orientation="h", visible=visible, marker=bars,
                             customdata=sup, hovertemplate="%{y}: ||W_i|| = %{x:.3f}, superposition "
                                                           "%{customdata:.3f}<extra></extra>"), row=1, col=3)
    steps = [{"label": f"{s:g}", "method": "restyle",
              "args": [{"visible": [t // 3 == j for t in range(3 * k)]}]} for j, s in enumerate(sparsities)]
    slider = {"active": k - 1, "steps": steps, "currentvalue": {"prefix": "sparsity S = "}, "pad": {"t": 30}}
    fig.update_layout(template="none", height=460, showlegend=False, sliders=[slider],
                      title={"text": label, "x": 0, "font": {"size": 13}},
                      margin={"l": 10, "r": 10, "t": 50, "b": 10})
    fig.update_yaxes(autorange="reversed", showticklabels=False)
    fig.update_xaxes(showticklabels=False, row=1, col=1)
    fig.update_xaxes(showticklabels=False, row=1, col=2)
    fig.update_xaxes(range=[0, 1.2], row=1, col=3)
    return fig


def count_represented(results: dict[str, dict], sparsity_key: str = "sparsity"):
    """Number of represented features (||W_i|| > 0.5) against sparsity, one line per model."""
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for name, res in results.items():
        dens = 1 - res[sparsity_key]
        ax.plot(1 / dens, represented(res["W"]).sum(-1), marker="o", label=name)
    ax.set(xscale="log", xlabel="1 / (1 - S)", ylabel="features with ||W_i|| > 0.5")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def phase_diagram(res: dict, analytic: bool = True, title: str = ""):
    """The extra feature's phase over (relative importance, density); the analytic boundaries of the
    2 -> 1 or 3 -> 2 candidates dashed."""
    fig, ax = plt.subplots(figsize=(4.6, 3.8))
    r, s = res["importance"], res["density"]
    ax.pcolormesh(r, s, res["phase"], cmap=PHASE_COLOURS, vmin=-0.5, vmax=2.5, shading="nearest")
    if analytic:
        rr, ss = np.meshgrid(np.geomspace(r.min(), r.max(), 400), np.geomspace(s.min(), s.max(), 400))
        ax.contour(rr, ss, analytic_phase(res["W"].shape[-1])(ss, rr), levels=[0.5, 1.5], colors="k",
                   linestyles="--", linewidths=1)
    ax.set(xscale="log", yscale="log", xlabel="relative importance r of the extra feature",
           ylabel="feature density 1 - S", title=title)
    handles = [plt.Rectangle((0, 0), 1, 1, color=PHASE_COLOURS(i)) for i in range(3)]
    ax.legend(handles, PHASES, fontsize=7, loc="lower left")
    fig.tight_layout()
    return fig


def first_order(res: dict, row: int):
    """At the density of ``row`` of a 2 -> 1 run: the three analytic candidate losses against r,
    which cross at the boundaries, with the trained losses (left), and the extra feature's norm,
    which jumps there (right; every other density in grey)."""
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9, 3.4))
    r, s = res["importance"], res["density"][row]
    rr = np.geomspace(r.min(), r.max(), 400)
    for i, loss in enumerate(analytic_losses_2_1(s, rr)):
        ax.plot(rr, loss, color=PHASE_COLOURS(i), lw=2, label=PHASES[i])
    ax.scatter(r, res["loss"][row], color="k", s=14, zorder=3, label="trained")
    ax.set(xscale="log", yscale="log", xlabel="relative importance r", ylabel="loss",
           title=f"candidate losses at density {s:.3g}")
    ax.legend(fontsize=7)
    norms = feature_norms(res["W"])[..., -1]
    for j in range(norms.shape[0]):
        ax2.plot(r, norms[j], color="lightgrey", lw=0.8, zorder=1)
    ax2.plot(r, norms[row], color="k", marker="o", zorder=2)
    ax2.axhspan(0.2, 0.8, color="C3", alpha=0.08, label="half-way (0.2 to 0.8)")
    ax2.set(xscale="log", xlabel="relative importance r", ylabel="||W_extra||",
            title="the extra feature's norm")
    ax2.legend(fontsize=7)
    fig.tight_layout()
    return fig


def neighbour_gaps(res: dict):
    """The mean angular gap between the perturbed feature and its neighbours against its importance
    factor, with the regular pentagon's gap (:data:`~.measures.REGULAR_GAP`) dashed."""
    fig, ax = plt.subplots(figsize=(4.6, 3.2))
    ax.plot(res["factor"], res["gap"], marker="o", color="k")
    ax.axhline(REGULAR_GAP, color="grey", ls="--", lw=1,
               label=f"regular pentagon ({REGULAR_GAP:g} degrees)")
    ax.set(xscale="log", xlabel="importance factor of feature 0",
           ylabel="gap to its neighbours (degrees)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def dimensions_per_feature_plot(res: dict):
    """D* = m / ||W||_F^2 against 1/(1-S), one line per independent sweep, with the sticky values 1
    and 1/2 marked."""
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for k, dstar in enumerate(res["dstar"]):
        ax.plot(1 / res["density"], dstar, marker="o", ms=3, lw=1, color="k" if k == 0 else "0.6",
                label="first sweep" if k == 0 else ("other sweeps" if k == 1 else None), zorder=3 - k)
    for v in (1.0, 0.5):
        ax.axhline(v, color="grey", ls=":", lw=1)
    ax.set(xscale="log", xlabel="1 / (1 - S)", ylabel="dimensions per feature  m / ||W||_F^2")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def feature_dimensionality_scatter(res: dict):
    """Every learned feature's D_i against 1/(1-S), with lines at the named fractions (left), and
    sum_i D_i against m (right); every sweep's models, pooled."""
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9, 3.4), gridspec_kw={"width_ratios": [2, 1]})
    inv = 1 / res["density"]
    rng = np.random.default_rng(0)  # horizontal jitter for legibility only
    for j, x in enumerate(inv):
        d = res["dims"][:, j].ravel()
        d = d[d > 0.01]
        ax.scatter(x * np.exp(rng.uniform(-0.04, 0.04, d.size)), d, s=4, alpha=0.4, color="C0")
    for name, v in FRACTIONS.items():
        ax.axhline(v, color="grey", ls=":", lw=0.8)
        ax.text(inv.max() * 1.15, v, name, va="center", fontsize=8)
    ax.set(xscale="log", xlabel="1 / (1 - S)", ylabel="feature dimensionality D_i")
    m = res["W"].shape[-2]
    for k, dims in enumerate(res["dims"]):
        ax2.plot(inv, dims.sum(-1), marker="o", ms=3, color="k" if k == 0 else "0.6",
                 label="sum_i D_i" if k == 0 else None)
    ax2.axhline(m, color="C3", ls="--", label=f"m = {m}")
    ax2.set(xscale="log", xlabel="1 / (1 - S)", ylim=(0, 1.3 * m))
    ax2.legend(fontsize=8)
    fig.tight_layout()
    return fig


def dims_histogram(res: dict, min_dim: float = 0.1):
    """A histogram of the D_i of a geometry sweep's packed models (:func:`~.measures.packed_dims`,
    every sweep pooled) above ``min_dim``, with the named fractions dotted, and the height a uniform
    spread of as many features over (``min_dim``, 1] would give (:func:`~.measures.chance_fraction_share`)."""
    fig, ax = plt.subplots(figsize=(6, 3.2))
    dims = np.concatenate([packed_dims(res["density"], d, dd)
                           for d, dd in zip(res["dstar"], res["dims"], strict=True)])
    chance_share = chance_fraction_share(min_dim=min_dim)
    learned = dims[dims > min_dim]
    bins = np.linspace(min_dim, 1.0, 73)
    ax.hist(learned, bins=bins, color="C0")
    ax.axhline(learned.size / (len(bins) - 1), color="C3", ls="--", lw=1,
               label=f"uniform spread (puts {chance_share:.0%} near a fraction)")
    for name, v in FRACTIONS.items():
        if v > min_dim:
            ax.axvline(v, color="grey", ls=":", lw=0.8)
            ax.text(v, ax.get_ylim()[1], name, ha="center", va="bottom", fontsize=8)
    ax.set(xlabel="feature dimensionality D_i", ylabel="features")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    return fig


def dynamics_plot(res: dict):
    """D_i of every feature along training (top) and the loss (bottom)."""
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(6.5, 5), sharex=True,
                                  gridspec_kw={"height_ratios": [2, 1]})
    ax.plot(res["step"], res["dims"], lw=0.8, alpha=0.7)
    for v in FRACTIONS.values():
        ax.axhline(v, color="grey", ls=":", lw=0.6)
    ax.set(ylabel="D_i per feature")
    ax2.plot(res["step"], res["loss"], color="k", lw=1)
    ax2.set(xlabel="training step", ylabel="loss on the batch")
    fig.tight_layout()
    return fig


def weight_matrices(Ws: np.ndarray, titles: list[str], xlabel: str = "feature",
                    ylabel: str = "neuron"):
    """Heat maps of a stack of (m, n) weight matrices, blue negative, red positive."""
    k = Ws.shape[0]
    fig, axes = plt.subplots(1, k, figsize=(2.4 * k, 2.4), squeeze=False)
    vmax = np.abs(Ws).max()
    for j, ax in enumerate(axes[0]):
        ax.imshow(Ws[j], cmap="RdBu_r", vmin=-vmax, vmax=vmax, aspect="auto")
        ax.set(title=titles[j], xlabel=xlabel, xticks=[], yticks=[])
    axes[0, 0].set_ylabel(ylabel)
    fig.tight_layout()
    return fig
