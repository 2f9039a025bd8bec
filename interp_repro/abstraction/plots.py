"""Figures for the abstraction chapters. Each function takes computed results and returns a Figure."""

from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np

from interp_repro.abstraction.measures import noiseless_cells
from interp_repro.abstraction.model import LEAKY_SLOPE

if TYPE_CHECKING:
    from interp_repro.abstraction.experiments.nonlinear import KernelResults, PrePost

KERNEL_LABELS = {"erf": "erf", "relu": "ReLU", "leaky_relu": f"leaky ReLU ({LEAKY_SLOPE})", "gelu": "GELU"}
"""Display name of each activation's kernel map."""


def alpha_over_time(curves: dict[str, tuple[np.ndarray, np.ndarray]],
                    theory: dict[str, tuple[np.ndarray, np.ndarray]] | None = None,
                    alpha_inf: float | None = None, title: str = ""):
    """alpha(t) on a log time axis: simulations as markers, theory as lines, terminal law dashed."""
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for i, (label, (t, a)) in enumerate(curves.items()):
        keep = t > 0
        ax.plot(t[keep], a[keep], "o", ms=3, color=f"C{i}", label=f"{label} (simulation)")
    for i, (label, (t, a)) in enumerate((theory or {}).items()):
        keep = t > 0
        ax.plot(t[keep], a[keep], "-", lw=1.5, color=f"C{i}", label=f"{label} (theory)")
    if alpha_inf is not None:
        ax.axhline(alpha_inf, color="k", ls="--", lw=1, label=r"terminal law $\alpha_\infty$")
    ax.set(xscale="log", xlabel="training time t (learning rate x steps)", ylabel=r"abstraction $\alpha$",
           title=title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def terminal_heatmap(nu: np.ndarray, alpha: np.ndarray):
    """The terminal law alpha_inf over a (nu_x, nu_y) grid."""
    fig, ax = plt.subplots(figsize=(4.6, 3.8))
    mesh = ax.pcolormesh(nu, nu, alpha, cmap="viridis", vmin=0, vmax=1, shading="nearest")
    ax.contour(nu, nu, alpha, levels=[0.25, 0.5, 0.75, 0.9], colors="w", linewidths=0.7)
    fig.colorbar(mesh, ax=ax, label=r"$\alpha_\infty$")
    ax.set(xlabel=r"target inverse SNR $\nu_y$", ylabel=r"input inverse SNR $\nu_x$", aspect="equal")
    fig.tight_layout()
    return fig


def terminal_sim_vs_law(res: dict[str, np.ndarray]):
    """Each trained network's final alpha against the terminal law over a (nu_x, nu_y) grid; cells
    with a noiseless input or target in orange."""
    noiseless = noiseless_cells(res["nus"]).ravel()
    law, sim = res["law"].ravel(), res["alpha"].ravel()
    fig, ax = plt.subplots(figsize=(4.2, 3.8))
    ax.plot([0, 1], [0, 1], color="0.6", lw=1, label="simulation = law")
    ax.plot(law[~noiseless], sim[~noiseless], "o", color="C0", label=r"$\nu_x \nu_y > 0$")
    ax.plot(law[noiseless], sim[noiseless], "s", color="C1", label="input or target noiseless")
    ax.set(xlabel=r"terminal law $\alpha_\infty$", ylabel=r"trained network's final $\alpha$",
           aspect="equal", xlim=(-0.05, 1.05), ylim=(-0.05, 1.05))
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig


def max_alpha_plot(kappas: np.ndarray, best: np.ndarray, alpha_inf: float, alpha_x: float,
                   t: np.ndarray, trajectories: dict[float, np.ndarray]):
    """Left: max_t alpha(t) against the init scale kappa. Right: alpha(t) for a few kappas."""
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(9, 3.4))
    ax.plot(kappas, best, "k-o", ms=3)
    ax.axhline(alpha_inf, color="C3", ls="--", lw=1, label=r"$\alpha_\infty$")
    ax.axhline(alpha_x, color="grey", ls=":", lw=1, label=r"$\alpha_x$ (input)")
    ax.set(xscale="log", xlabel=r"init scale $\kappa$", ylabel=r"max$_t\ \alpha(t)$")
    ax.legend(fontsize=8)
    keep = t > 0
    for kappa, a in trajectories.items():
        ax2.plot(t[keep], a[keep], label=rf"$\kappa$ = {kappa:g}")
    ax2.axhline(alpha_inf, color="C3", ls="--", lw=1)
    ax2.set(xscale="log", xlabel="time t", ylabel=r"$\alpha(t)$")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    return fig


def layer_profiles(profiles: dict[int, np.ndarray], theory: dict[int, np.ndarray] | None = None):
    """arctanh(alpha) against the relative layer l/L for several depths (simulation markers,
    theory lines)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    for i, (L, a) in enumerate(profiles.items()):
        x = np.arange(L + 1) / L
        ax.plot(x, np.arctanh(np.clip(a, -0.999999, 0.999999)), "o", color=f"C{i}", label=f"L = {L}")
        if theory is not None and L in theory:
            ax.plot(x, np.arctanh(np.clip(theory[L], -0.999999, 0.999999)), "-", color=f"C{i}", lw=1)
    ax.set(xlabel="relative depth l / L (0 = input)", ylabel=r"arctanh $\alpha^{(l)}$")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def attenuation_scatter(res: "KernelResults", max_points: int = 3000):
    """|alpha_K| (after the nonlinearity) against |alpha_Q| (before), one panel per kernel map;
    the attenuation law says every point lies on or below the diagonal."""
    k = len(res.abs_alpha_K)
    fig, axes = plt.subplots(1, k, figsize=(3.2 * k, 3.2), squeeze=False)
    for ax, name in zip(axes[0], res.abs_alpha_K, strict=True):
        ax.plot(res.abs_alpha_Q[name][:max_points], res.abs_alpha_K[name][:max_points], ".", ms=2, alpha=0.5)
        ax.plot([0, 1], [0, 1], "k--", lw=1)
        ax.set(xlim=(0, 1), ylim=(0, 1), aspect="equal", title=KERNEL_LABELS[name],
               xlabel=r"$|\alpha_Q|$ pre-activation")
    axes[0, 0].set_ylabel(r"$|\alpha_K|$ post-activation")
    fig.tight_layout()
    return fig


def pre_post(res: "PrePost", title: str = ""):
    """alpha(t) of pre-activations (dashed) and post-activations (solid), one colour per activation,
    and the exact linear theory on the same data where it holds (black, dotted; noise-free data)."""
    fig, ax = plt.subplots(figsize=(6, 3.6))
    keep = res.t > 0
    if res.theory is not None:
        ax.plot(res.t[keep], res.theory[keep], ":", color="k", lw=1.5, label="linear theory")
    for i, act in enumerate(res.pre):
        ax.plot(res.t[keep], res.pre[act][keep], "--", color=f"C{i}", lw=1.2)
        ax.plot(res.t[keep], res.post[act][keep], "-", color=f"C{i}", lw=1.5, label=act)
    ax.plot([], [], "k--", lw=1, label="pre-activation")
    ax.plot([], [], "k-", lw=1, label="post-activation")
    ax.set(xscale="log", xlabel="time t", ylabel=r"abstraction $\alpha$", title=title)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    return fig


def anti_abstraction_sweep(res: dict[str, np.ndarray]):
    """End-of-training alpha of the ReLU sweep against the input inverse SNR nu_x (log axis), one
    column per within-class noise level, pre-activations (top) and post-activations (bottom), one
    colour per width: markers at the mean over seeds, bars from the lowest seed to the highest
    (widths nudged apart along x). Dotted, the input's own alpha_x; grey, nu_x = 1, past which the
    interaction mode outweighs the shape mode."""
    nu, noises, widths = res["nu_xs"], res["noise_xs"], res["widths"]
    fig, axes = plt.subplots(2, noises.size, figsize=(2.6 * noises.size + 0.8, 5.4), sharex=True,
                             sharey=True, squeeze=False)
    nudge = np.exp(0.06 * (np.arange(widths.size) - (widths.size - 1) / 2))
    for row, (kind, label) in enumerate((("pre", "pre-activation"), ("post", "post-activation"))):
        for j, noise in enumerate(noises):
            ax = axes[row, j]
            ax.axhline(0, color="0.8", lw=0.8)
            ax.axvline(1, color="0.6", lw=0.8)
            ax.plot(nu, res["alpha_x"], "k:", lw=1.2, label=r"input $\alpha_x$")
            for k, width in enumerate(widths):
                cell = res[kind][:, j, k]  # (nu_x, seeds)
                mean = cell.mean(-1)
                ax.errorbar(nu * nudge[k], mean, yerr=(mean - cell.min(-1), cell.max(-1) - mean), fmt="o-",
                            ms=3, lw=1, capsize=2, color=f"C{k}", label=f"width {width}")
            ax.set(xscale="log", ylim=(-1.05, 1.05))
            if row == 0:
                ax.set_title(f"within-class noise {noise:g}", fontsize=9)
            else:
                ax.set_xlabel(r"input inverse SNR $\nu_x$")
        axes[row, 0].set_ylabel(f"ReLU {label} $\\alpha$")
    axes[0, 0].legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return fig


def ablation_bars(res: dict):
    """Per block: mean alpha (left) and cross-context probe accuracy (right), intact vs with that
    block's GELU replaced by the identity; error bars are the standard deviation over seeds."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    blocks = np.arange(res["alpha_intact"].shape[1])
    for ax, key, label in ((axes[0], "alpha", r"abstraction $\alpha$"),
                           (axes[1], "probe", "cross-context probe accuracy")):
        for j, (state, colour) in enumerate((("intact", "C0"), ("ablated", "C3"))):
            per_seed = res[f"{key}_{state}"].mean(-1)  # (seeds, blocks), mean over concepts
            ax.bar(blocks + (j - 0.5) * 0.38, per_seed.mean(0), 0.38, yerr=per_seed.std(0),
                   color=colour, label=state, capsize=3)
        ax.set(xticks=blocks, xticklabels=[f"block {b + 1}" for b in blocks], ylabel=label)
        ax.legend(fontsize=8)
    axes[1].set_ylim(0.4, 1.0)
    fig.tight_layout()
    return fig


SENSITIVITY_MARKERS = {"alpha_up": ("o", "C0", r"$\alpha$ (block output)"),
                       "probe_up": ("s", "C3", "probe (block output)"),
                       "walpha_up": ("D", "C2", r"whitened $\alpha$ (block output)"),
                       "hidden_probe_up": ("^", "C1", "probe (hidden layer)")}
"""Marker, colour and label of each up-fraction that :func:`gelu_sensitivity` draws."""


def gelu_sensitivity(settings: tuple[str, ...], res: dict):
    """Left: per setting of the GELU ablation sweep, the fraction of (seed, block) pairs in which each
    score rises when the block's GELU is ablated (grey line: one half, the paper's direction above it).
    Right: the intact networks' cross-context probe accuracy and held-out 4-way accuracy, with Gemma's
    intact probe accuracy (dotted)."""
    from interp_repro.abstraction.experiments.ablation import PAPER_PROBE

    fig, axes = plt.subplots(1, 2, figsize=(10, 0.45 * len(settings) + 1.4), sharey=True,
                             gridspec_kw={"width_ratios": (3, 2)})
    rows = np.arange(len(settings))
    for j, (key, (marker, colour, label)) in enumerate(SENSITIVITY_MARKERS.items()):
        axes[0].scatter(res[key], rows + (j - 1.5) * 0.12, marker=marker, color=colour, label=label, zorder=3)
    axes[0].axvline(0.5, color="0.6", lw=1)
    axes[0].set(xlim=(-0.03, 1.03), xlabel="fraction of (seed, block) pairs that rise",
                yticks=rows, yticklabels=settings)
    axes[0].legend(fontsize=7, loc="lower left")
    axes[1].scatter(res["probe_intact"], rows, marker="s", color="C3", label="cross-context probe", zorder=3)
    axes[1].scatter(res["test_accuracy"], rows, marker="x", color="k", label="4-way held-out", zorder=3)
    axes[1].axvline(PAPER_PROBE, color="C3", ls=":", lw=1, label="Gemma's probe")
    axes[1].set(xlim=(0.4, 1.02), xlabel="accuracy of the intact networks")
    axes[1].legend(fontsize=7, loc="lower left")
    axes[0].invert_yaxis()
    fig.tight_layout()
    return fig
