"""Figures for the Schur-RNN chapters. Each function takes computed results (units of
``experiments``, read through ``measures``) and returns a Figure. The display labels live beside
what they name (``measures.SUBSET_LABELS``, ``model.CONSTRUCTION_LABELS``), where the chapters'
tables (``experiments``) read them too."""

import matplotlib.pyplot as plt
import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from interp_repro.core import Unit
from interp_repro.schur_rnn.measures import PAPER_LEVEL_TOL, PARTS, SUBSET_LABELS, eigen_split, seeds_within
from interp_repro.schur_rnn.model import CONSTRUCTION_LABELS


def learning_curves(units: dict[str, Unit], title: str = ""):
    """Training loss against step for each labelled unit: seed median as a line, the seed range shaded."""
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for i, (label, unit) in enumerate(units.items()):
        curve = unit.trained["curve"]
        steps = np.arange(1, len(curve) + 1)
        ax.plot(steps, np.median(curve, axis=1), color=f"C{i}", lw=1, label=label)
        ax.fill_between(steps, curve.min(axis=1), curve.max(axis=1), color=f"C{i}", alpha=0.2, lw=0)
    ax.set(xlabel="training step", ylabel="training MSE", yscale="log", title=title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def fvu_curves(units: dict[str, Unit], variance: dict[str, float], paper: dict[str, float],
               window: int = 200):
    """Training FVU against step for each task's unit (training MSE over ``measures.target_variance``;
    each step's batch is fresh, so this is a held-out estimate), averaged over ``window`` steps: seed
    median as a line, the seed range shaded, the paper's full-model FVU dashed."""
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for i, (task, unit) in enumerate(units.items()):
        curve = unit.trained["curve"] / variance[task]
        n = len(curve) // window * window
        smooth = curve[:n].reshape(-1, window, curve.shape[1]).mean(axis=1)
        steps = np.arange(1, len(smooth) + 1) * window
        ax.plot(steps, np.median(smooth, axis=1), color=f"C{i}", lw=1, label=task)
        ax.fill_between(steps, smooth.min(axis=1), smooth.max(axis=1), color=f"C{i}", alpha=0.2, lw=0)
        if task in paper:
            ax.axhline(paper[task], color=f"C{i}", ls="--", lw=0.8)
    ax.set(xlabel="training step", ylabel=f"FVU (mean over {window} steps)", yscale="log")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def eigenvalues(units: dict[str, Unit], alpha: float, instance: int = 0):
    """Eigenvalues of one seed's W_hh per unit in the complex plane, R (|lambda| >= alpha rho) in
    colour and C in grey, with the circles |lambda| = rho and alpha rho."""
    fig, axes = plt.subplots(1, len(units), figsize=(3.1 * len(units), 3.2), squeeze=False)
    theta = np.linspace(0, 2 * np.pi, 200)
    for ax, (label, unit) in zip(axes[0], units.items(), strict=True):
        lam, in_r = eigen_split(unit.trained["W_hh"][instance], alpha)
        rho = np.abs(lam).max()
        ax.plot(rho * np.cos(theta), rho * np.sin(theta), color="k", lw=0.6)
        ax.plot(alpha * rho * np.cos(theta), alpha * rho * np.sin(theta), color="k", lw=0.6, ls="--")
        ax.scatter(lam.real[~in_r], lam.imag[~in_r], s=9, color="grey", label=f"C ({(~in_r).sum()})")
        ax.scatter(lam.real[in_r], lam.imag[in_r], s=12, color="C3", label=f"R ({in_r.sum()})")
        ax.set(aspect="equal", title=label, xlabel=r"Re $\lambda$")
        ax.legend(fontsize=7, loc="lower left")
    axes[0, 0].set_ylabel(r"Im $\lambda$")
    fig.tight_layout()
    return fig


def eigenvalue_plane(units: dict[str, Unit], alphas: tuple[float, ...], alpha: float, instance: int = 0
                     ) -> go.Figure:
    """Interactive: the eigenvalues of :func:`eigenvalues`, with a slider over ``alphas`` (starting at
    ``alpha``) that moves the R/C split; hover reads each eigenvalue and |lambda| / rho."""
    alphas = tuple(sorted({*alphas, alpha}))
    cols = min(len(units), 2)
    rows = -(-len(units) // cols)
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=list(units), horizontal_spacing=0.08,
                        vertical_spacing=0.12)
    circle = np.exp(1j * np.linspace(0, 2 * np.pi, 121))
    shown = []  # the alpha each trace belongs to (None: always shown)
    for i, unit in enumerate(units.values()):
        at = {"row": i // cols + 1, "col": i % cols + 1}
        lam = eigen_split(unit.trained["W_hh"][instance], alpha)[0]
        rho = np.abs(lam).max()
        fig.add_trace(go.Scatter(x=rho * circle.real, y=rho * circle.imag, mode="lines", hoverinfo="skip",
                                 line={"color": "black", "width": 1}, showlegend=False), **at)
        shown.append(None)
        for a in alphas:
            lam, in_r = eigen_split(unit.trained["W_hh"][instance], a)
            visible = a == alpha
            fig.add_trace(go.Scatter(x=a * rho * circle.real, y=a * rho * circle.imag, mode="lines",
                                     hoverinfo="skip", visible=visible, showlegend=False,
                                     line={"color": "black", "width": 1, "dash": "dash"}), **at)
            for part, keep, colour in (("R", in_r, "#c44e52"), ("C", ~in_r, "grey")):
                fig.add_trace(go.Scatter(
                    x=lam.real[keep], y=lam.imag[keep], mode="markers", visible=visible,
                    marker={"color": colour, "size": 6}, customdata=np.abs(lam[keep]) / rho,
                    name=f"{part}: |λ| {'≥' if part == 'R' else '<'} αρ", legendgroup=part, showlegend=i == 0,
                    hovertemplate=f"λ = %{{x:.3f}} %{{y:+.3f}}i<br>|λ| / ρ = %{{customdata:.3f}}"
                                  f"<extra>{part} ({keep.sum()} of {lam.size})</extra>"), **at)
            shown += [a] * 3
        fig.update_xaxes(title_text="Re λ", **at)
        fig.update_yaxes(title_text="Im λ", scaleanchor=f"x{i + 1 if i else ''}", **at)
    steps = [{"label": f"{a:g}", "method": "restyle",
              "args": [{"visible": [s is None or s == a for s in shown]}]} for a in alphas]
    slider = {"active": alphas.index(alpha), "steps": steps, "currentvalue": {"prefix": "α = "},
              "pad": {"t": 40}}
    legend = {"orientation": "h", "x": 1, "xanchor": "right", "y": 1, "yref": "container", "yanchor": "top"}
    fig.update_layout(template="none", height=380 * rows + 80, sliders=[slider], legend=legend,
                      margin={"l": 50, "r": 10, "t": 60, "b": 10})
    return fig


def schur_mass(units: dict[str, Unit]):
    """Stacked bars: the share of ||T||_F^2 in the diagonal blocks B, N_RR, T_C->R and N_CC,
    averaged over seeds, per unit."""
    labels = list(units)
    shares = np.array([u.measured["parts"].mean(axis=0) for u in units.values()])
    names = {"B": "diagonal blocks B", "RR": r"$N_{RR}$", "CR": r"$T_{C\to R}$", "CC": r"$N_{CC}$"}
    fig, ax = plt.subplots(figsize=(max(5, 1.2 * len(labels)), 3.4))
    bottom = np.zeros(len(labels))
    for j, part in enumerate(PARTS):
        ax.bar(labels, shares[:, j], bottom=bottom, color=f"C{j}", label=names[part])
        bottom += shares[:, j]
    ax.set(ylabel=r"share of $\|T\|_F^2$", ylim=(0, 1))
    ax.tick_params(axis="x", labelsize=8, rotation=20)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def ablation_grid(grid: dict[tuple[str, int], Unit], n_hiddens: tuple[int, ...],
                  constructions: tuple[str, ...]):
    """Figure-1 analogue: replay accuracy of the 8 ablation subsets (x) per construction (panels) and
    N_h (colours); each seed is a dot, the seed mean a dash, and a segment joins the two
    subsets of each pair that differ only by T_CC."""
    fig, axes = plt.subplots(1, len(constructions), figsize=(3.4 * len(constructions), 3.6), sharey=True,
                             squeeze=False)
    x = np.arange(len(SUBSET_LABELS))
    for ax, c in zip(axes[0], constructions, strict=True):
        for j, n in enumerate(n_hiddens):
            acc = grid[(c, n)].measured["accuracy"]
            shift = (j - (len(n_hiddens) - 1) / 2) * 0.2
            mean = acc.mean(axis=1)
            ax.scatter(np.repeat(x + shift, acc.shape[1]), acc.ravel(), s=5, color=f"C{j}", alpha=0.4)
            ax.scatter(x + shift, mean, marker="_", s=120, color=f"C{j}", label=f"N_h = {n}")
            for i in range(0, len(x), 2):
                ax.plot(x[i:i + 2] + shift, mean[i:i + 2], color=f"C{j}", lw=1)
        ax.set(title=CONSTRUCTION_LABELS[c], ylim=(0.4, 1.02))
        ax.set_xticks(x, SUBSET_LABELS, rotation=60, ha="right", fontsize=7)
    axes[0, 0].set_ylabel("replay accuracy (128 lags)")
    axes[0, 0].legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return fig


def seed_strip(accuracy: np.ndarray, paper: tuple[float, ...], tol: float = PAPER_LEVEL_TOL):
    """Strip plot of one unit's accuracy (8, K) per ablation subset: each seed a dot (spread sideways
    in seed order), the seed mean a dash, the paper's level ``paper`` (8,) a black bar inside a grey
    band of +-``tol``, and under each subset how many seeds land in that band
    (``measures.seeds_within``)."""
    counts = seeds_within(accuracy, paper, tol)
    n_sub, seeds = accuracy.shape
    x = np.arange(n_sub)
    spread = np.linspace(-0.22, 0.22, seeds) if seeds > 1 else np.zeros(1)
    fig, ax = plt.subplots(figsize=(7, 3.8))
    for i, level in enumerate(paper):
        ax.fill_between([i - 0.32, i + 0.32], level - tol, level + tol, color="0.85", lw=0,
                        label=f"within {tol:g} of the paper" if i == 0 else None)
        ax.plot([i - 0.32, i + 0.32], [level, level], color="k", lw=1.6,
                label="Draeger (2026), Figure 1" if i == 0 else None)
    ax.scatter((x[:, None] + spread).ravel(), accuracy.ravel(), s=10, color="C0", alpha=0.8, zorder=3,
               label="ours, one seed")
    ax.scatter(x, accuracy.mean(axis=1), marker="_", s=260, color="C3", zorder=4, label="ours, seed mean")
    low = min(0.4, float(accuracy.min()) - 0.05)
    for i, n in enumerate(counts):
        ax.text(i, low + 0.01, f"{n}/{seeds}", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(x, SUBSET_LABELS, rotation=45, ha="right", fontsize=8)
    ax.set(ylabel="replay accuracy (128 lags)", ylim=(low, 1.03))
    ax.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0, 0.08))
    fig.tight_layout()
    return fig


def accuracy_vs_size(sweep: dict[int, Unit], stored_bits: int):
    """Full-model replay accuracy of dense orthogonal networks against N_h, each seed a dot."""
    fig, ax = plt.subplots(figsize=(5, 3.2))
    sizes = sorted(sweep)
    for n in sizes:
        acc = sweep[n].measured["accuracy"][0]
        ax.scatter(np.full(acc.shape, n), acc, s=12, color="C0", alpha=0.6)
    ax.plot(sizes, [sweep[n].measured["accuracy"][0].mean() for n in sizes], "C0-", lw=1)
    ax.axvline(stored_bits, color="grey", ls="--", lw=1, label=f"s d = {stored_bits} stored bits")
    ax.set(xlabel="hidden units N_h", ylabel="replay accuracy (full model)", ylim=(0.4, 1.02))
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def rollout_panel(example: dict[str, np.ndarray], ablated_label: str, channels: int = 3):
    """Targets against full and ablated outputs on the masked steps of one held-out sequence,
    for the first ``channels`` output channels."""
    keep = example["mask"] > 0
    t = np.flatnonzero(keep)
    k = min(channels, example["targets"].shape[1])
    fig, axes = plt.subplots(k, 1, figsize=(7, 1.5 * k + 0.6), sharex=True, squeeze=False)
    for c, ax in enumerate(axes[:, 0]):
        ax.plot(t, example["targets"][keep, c], color="k", lw=1.2, label="target")
        ax.plot(t, example["full"][keep, c], color="C0", lw=1, label="full model")
        ax.plot(t, example["ablated"][keep, c], color="C3", lw=1, ls="--", label=ablated_label)
        ax.set_ylabel(f"out {c}", fontsize=8)
    axes[0, 0].legend(fontsize=7, ncol=3, loc="upper right")
    axes[-1, 0].set_xlabel("time step")
    fig.tight_layout()
    return fig


def neuro_profiles(units: dict[tuple[str, str], Unit], tasks: tuple[str, ...], constructions: tuple[str, ...],
                   metric: str = "delta_fvu"):
    """Delta FVU (or S_DeltaT) of the 7 nonempty ablations per task (panels) and construction
    (colours), each seed a dot and the seed median a marker."""
    fig, axes = plt.subplots(1, len(tasks), figsize=(4 * len(tasks), 3.6), squeeze=False)
    x = np.arange(1, len(SUBSET_LABELS))
    for ax, task in zip(axes[0], tasks, strict=True):
        for j, c in enumerate(constructions):
            values = units[(task, c)].measured[metric][1:]
            shift = (j - (len(constructions) - 1) / 2) * 0.18
            ax.scatter(np.repeat(x + shift, values.shape[1]), values.ravel(), s=5, color=f"C{j}", alpha=0.4)
            ax.scatter(x + shift, np.nanmedian(values, axis=1), marker="_", s=100, color=f"C{j}",
                       label=CONSTRUCTION_LABELS[c])
        ax.set_yscale("symlog", linthresh=1e-3)
        ax.axhline(0, color="k", lw=0.5)
        ax.set_xticks(x, SUBSET_LABELS[1:], rotation=60, ha="right", fontsize=7)
        ax.set_title(task)
    axes[0, 0].set_ylabel({"delta_fvu": r"$\Delta$FVU", "sensitivity": r"$S_{\Delta T}$"}[metric])
    axes[0, 0].legend(fontsize=7)
    fig.tight_layout()
    return fig
