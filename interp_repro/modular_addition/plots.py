"""Figures for the modular-addition chapter. Each function takes computed results and returns a Figure."""

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import plotly.graph_objects as go
from plotly.colors import cyclical
from plotly.subplots import make_subplots

from interp_repro.core import Unit, pca_projection
from interp_repro.modular_addition import measures, zhong

LABELS = {"uniform": "Attention 0.0 (uniform)", "learnable": "Attention 1.0 (learnable)",
          "mlp_add": "MLP-Add", "mlp_concat": "MLP-Concat"}
"""Display names of the paper's four architectures (the keys of ``experiments.ARCHITECTURES``)."""


def training_curves(res: dict[str, list[Unit]]):
    """Train (dashed) and test (solid) accuracy of every network, one panel per architecture."""
    fig, axes = plt.subplots(1, len(res), figsize=(3.3 * len(res), 3), sharey=True, squeeze=False)
    for ax, (arch, nets) in zip(axes[0], res.items(), strict=True):
        for i, unit in enumerate(nets):
            curves = unit.trained
            ax.plot(curves["steps"], curves["train_acc"], color=f"C{i % 10}", lw=0.8, ls="--")
            ax.plot(curves["steps"], curves["test_acc"], color=f"C{i % 10}", lw=1)
        ax.set(title=LABELS[arch], xlabel="step")
    axes[0, 0].set_ylabel("accuracy (solid test, dashed train)")
    fig.tight_layout()
    return fig


def zhong_plane(res: dict[str, list[Unit]], theirs: Sequence[Unit]):
    """Every network on the plane of Zhong's two metrics as his sweep table computes them (distance
    irrelevance from the largest incorrect logit): his sweep's networks near rate 0 and rate 1 (grey,
    ``zhong.population``), ours (one colour per architecture) and his shipped networks ``theirs``
    (black; stars for Models A and B; e.g. ``experiments.zhong_learned(experiments.run_zhong(cfg))``)."""
    fig, ax = plt.subplots(figsize=(5.2, 4.2))
    for rate, shade in ((0.0, "0.55"), (1.0, "0.8")):
        pop = zhong.population(rate)
        ax.scatter(pop["gradient_sim"], pop["distance_irrelevance"], color=shade, s=9, alpha=0.7, lw=0,
                   label=f"Zhong's sweep, rate {rate:.0f} ± {zhong.POPULATION_WIDTH} ({len(pop)})")
    for i, (arch, nets) in enumerate(res.items()):
        ax.scatter([float(n.measured["gradient_symmetricity"]) for n in nets],
                   [float(n.measured["distance_irrelevance_top_incorrect"]) for n in nets], color=f"C{i}",
                   s=20, alpha=0.9, label=f"ours: {LABELS[arch]}")
    names = {zhong.MODEL_A: "Model A", zhong.MODEL_B: "Model B"}
    for unit in theirs:
        x = float(unit.measured["gradient_symmetricity"])
        y = float(unit.measured["distance_irrelevance_top_incorrect"])
        name = names.get(unit.spec.runid)
        ax.scatter([x], [y], marker="*" if name else "D", s=170 if name else 30, color="k", zorder=3)
        ax.annotate(name or f"rate {unit.spec.rate:.2f}", (x, y), xytext=(5, 5), textcoords="offset points",
                    fontsize=8)
    ax.set(xlabel="gradient symmetricity", ylabel="distance irrelevance (largest incorrect logit)",
           xlim=(-0.05, 1.05), ylim=(0, 1.05))
    ax.legend(fontsize=6.5, loc="lower left")
    fig.tight_layout()
    return fig


def population_position(networks: dict[str, tuple[float, float]], rate: float):
    """Networks the reader brings (name -> (gradient symmetricity over Zhong's 100 triples, distance
    irrelevance from the largest incorrect logit), as ``external.ModAddReport`` gives them) on the
    plane of Zhong's two metrics, over his sweep's networks at attention ``rate`` (grey) and his Models
    A and B (stars, his Pizza and Clock)."""
    fig, ax = plt.subplots(figsize=(5.2, 4.2))
    pop = zhong.population(rate)
    ax.scatter(pop["gradient_sim"], pop["distance_irrelevance"], color="0.7", s=9, lw=0,
               label=f"Zhong's sweep, rate {rate:g} ± {zhong.POPULATION_WIDTH} ({len(pop)})")
    for name, runid in (("Model A (Pizza)", zhong.MODEL_A), ("Model B (Clock)", zhong.MODEL_B)):
        grad, dist = zhong.NOTEBOOK[runid]
        ax.scatter([grad], [dist], marker="*", s=170, color="k", zorder=3)
        ax.annotate(name, (grad, dist), xytext=(5, 5), textcoords="offset points", fontsize=8)
    for i, (name, (grad, dist)) in enumerate(networks.items()):
        ax.scatter([grad], [dist], marker="D", s=40, color=f"C{i}", zorder=4, label=name)
    ax.set(xlabel="gradient symmetricity", ylabel="distance irrelevance (largest incorrect logit)",
           xlim=(-0.05, 1.05), ylim=(0, 1.05))
    ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return fig


def training_length(summary: dict[str, np.ndarray], lengths: tuple[int, ...], budget: int):
    """Each measure of ``measures.network_summary`` against training length (``summary`` from
    ``experiments.length_summary``): one colour per architecture, thin lines for seeds, thick for
    their median; dotted, Zhong's Models A (a Pizza) and B (a Clock) (``measures.ZHONG_ALGORITHMS``)
    and the paper's disc threshold; grey, ``budget``."""
    fig, axes = plt.subplots(2, 3, figsize=(11, 6), sharex=True)
    for k, (ax, name) in enumerate(zip(axes.flat, measures.NETWORK_SUMMARY, strict=True)):
        for i, (arch, values) in enumerate(summary.items()):
            for seed_values in values[:, :, k]:
                ax.plot(lengths, seed_values, color=f"C{i}", lw=0.6, alpha=0.5)
            ax.plot(lengths, np.median(values[:, :, k], axis=0), color=f"C{i}", lw=2, marker="o", ms=4,
                    label=LABELS[arch])
        if k < 2:
            for algorithm, values in measures.ZHONG_ALGORITHMS.items():
                ax.axhline(values[k], color="k", ls=":", lw=1)
                ax.annotate(f"Zhong: {algorithm}", (lengths[0], values[k]), fontsize=7, va="bottom")
        if name == "top-2 PCA share":
            ax.axhline(measures.DISC_PCA_SHARE, color="k", ls=":", lw=1)
        ax.axvline(budget, color="0.6", lw=1)
        ax.set(title=name, xscale="log", ylim=(-0.03, 1.03))
        ax.set_xticks(lengths, [f"{n:,}" for n in lengths], minor=False)
        ax.minorticks_off()
    for ax in axes[1]:
        ax.set_xlabel("training steps")
    axes[0, 0].legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return fig


def embedding_spectra(res: dict[str, list[Unit]]):
    """Norm of the token embedding's Fourier transform per frequency, first network of each
    architecture: a few key frequencies stand out."""
    fig, axes = plt.subplots(1, len(res), figsize=(3.3 * len(res), 2.8), squeeze=False)
    for ax, (arch, nets) in zip(axes[0], res.items(), strict=True):
        spectrum = nets[0].measured["embedding_spectrum"]
        ax.bar(np.arange(1, spectrum.size + 1), spectrum, color="C0")
        ax.set(title=LABELS[arch], xlabel="frequency f")
    axes[0, 0].set_ylabel("embedding DFT norm")
    fig.tight_layout()
    return fig


def cluster_views(clouds: dict[str, np.ndarray], p: int):
    """Each cloud (p^2, n) projected on its first two principal components (top row) and on
    components 3-4 (bottom row), coloured by (a + b) mod p: the "clock face" of each cluster. Clouds
    of fewer than four dimensions (a 2-D UMAP view) get the top row only."""
    rows = 2 if min(cloud.shape[1] for cloud in clouds.values()) >= 4 else 1
    fig, axes = plt.subplots(rows, len(clouds), figsize=(3.1 * len(clouds), 3 * rows), squeeze=False)
    colour = _angle_sum(p)
    for j, (label, cloud) in enumerate(clouds.items()):
        proj = pca_projection(cloud, 4)
        axes[0, j].scatter(proj[:, 0], proj[:, 1], c=colour, cmap="twilight", s=2)
        axes[0, j].set(title=label, xlabel="PC 1", ylabel="PC 2", aspect="equal")
        if rows == 2:
            axes[1, j].scatter(proj[:, 2], proj[:, 3], c=colour, cmap="twilight", s=2)
            axes[1, j].set(xlabel="PC 3", ylabel="PC 4", aspect="equal")
    fig.tight_layout()
    return fig


def _angle_sum(p: int) -> np.ndarray:
    """(a + b) mod p of every input pair in row-major order: the colour of every cloud."""
    return np.add.outer(np.arange(p), np.arange(p)).ravel() % p


def _ring_torus(torus: np.ndarray) -> np.ndarray:
    """The flat torus in R^4 drawn as the standard ring torus in R^3 with the same two angles."""
    r = 2 + torus[:, 2]
    return np.stack([r * torus[:, 0], r * torus[:, 1], torus[:, 3]], axis=1)


def cluster_clouds_3d(clouds: dict[str, np.ndarray], p: int, f: int = 1) -> go.Figure:
    """Interactive: each cloud (p^2, n) on its first three principal components, one 3-D scene per
    cloud, beside the theorem's disc and torus at frequency f; colour (a + b) mod p."""
    pcs = {label: pca_projection(cloud, 3) for label, cloud in clouds.items()}
    shown = {label: np.pad(xyz, ((0, 0), (0, 3 - xyz.shape[1]))) for label, xyz in pcs.items()}
    shown["disc (theorem)"] = np.pad(measures.reference_disc(p, f), ((0, 0), (0, 1)))
    shown["torus (theorem, as a ring)"] = _ring_torus(measures.reference_torus(p, f))
    cols = 2
    rows = -(-len(shown) // cols)
    fig = make_subplots(rows=rows, cols=cols, specs=[[{"type": "scene"}] * cols] * rows,
                        subplot_titles=list(shown), horizontal_spacing=0.02, vertical_spacing=0.04)
    colour = _angle_sum(p).astype(np.min_scalar_type(p))  # the smallest integers: compact in the page
    for i, (label, xyz) in enumerate(shown.items()):
        x, y, z = xyz.astype(np.float32).T
        marker = {"size": 1.5, "color": colour, "colorscale": cyclical.Twilight, "cmin": 0, "cmax": p,
                  "showscale": i == 0, "colorbar": {"title": {"text": "(a + b) mod p"}, "len": 0.6}}
        at = {"row": i // cols + 1, "col": i % cols + 1}
        fig.add_trace(go.Scatter3d(x=x, y=y, z=z, mode="markers", marker=marker, name=label, showlegend=False,
                                   hovertemplate=f"(a + b) mod p = %{{marker.color}}<extra>{label}</extra>"),
                      **at)
        names = ("PC 1", "PC 2", "PC 3") if label in pcs else ("", "", "")
        axes = {f"{axis}axis": {"title": {"text": name}, "showticklabels": False}
                for axis, name in zip("xyz", names, strict=True)}
        extent = np.ptp(xyz, axis=0)
        ratio = np.maximum(extent / extent.max(), 0.2)  # to scale, but a flat cloud stays in view
        fig.update_scenes(aspectmode="manual", aspectratio=dict(zip("xyz", ratio.tolist(), strict=True)),
                          camera={"eye": {"x": 1.0, "y": 1.0, "z": 0.6}},
                          **axes, **at)
    fig.update_layout(template="none", height=330 * rows, margin={"l": 0, "r": 0, "t": 30, "b": 0})
    return fig


def references(p: int, f: int):
    """The theorem's reference manifolds on the p x p grid at frequency f (first 2-3 coordinates)."""
    fig = plt.figure(figsize=(9.5, 3))
    colour = _angle_sum(p)
    disc, torus = measures.reference_disc(p, f), measures.reference_torus(p, f)
    circle = measures.reference_circle(p, f)
    ax = fig.add_subplot(1, 3, 1)
    ax.scatter(disc[:, 0], disc[:, 1], c=colour, cmap="twilight", s=2)
    ax.set(title="disc (phases aligned)", aspect="equal")
    ax = fig.add_subplot(1, 3, 2, projection="3d")
    ax.scatter(*_ring_torus(torus).T, c=colour, cmap="twilight", s=1)
    ax.set(title="torus (independent phases)")
    ax.set_box_aspect((1, 1, 0.35))
    ax = fig.add_subplot(1, 3, 3)
    ax.scatter(circle[:, 0], circle[:, 1], c=colour, cmap="twilight", s=4)
    ax.set(title="circle (angle sum)", aspect="equal")
    fig.tight_layout()
    return fig


def barcode(diagrams: list[np.ndarray], title: str = "", threshold: float | None = None):
    """Persistence barcode of H0..Hk diagrams (units of the cloud's diameter); the dotted line marks the
    Betti threshold's bar length."""
    fig, axes = plt.subplots(1, len(diagrams), figsize=(3.2 * len(diagrams), 2.8), squeeze=False)
    for k, (ax, dgm) in enumerate(zip(axes[0], diagrams, strict=True)):
        life = dgm[:, 1] - dgm[:, 0]
        order = np.argsort(-life)[:40]
        for i, j in enumerate(order):
            death = dgm[j, 1] if np.isfinite(dgm[j, 1]) else 1.0
            ax.plot([dgm[j, 0], death], [i, i], color=f"C{k}", lw=1.5)
        ax.set(title=f"H{k} (longest 40 bars)", xlabel="scale / diameter", yticks=[])
        if threshold is not None:
            ax.axvline(threshold, color="k", ls=":", lw=0.8)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return fig


def betti_distribution(res: dict[str, list[Unit]], key: str = "betti"):
    """How often each Betti vector occurs among the analysed clusters of each architecture."""
    counts = {arch: measures.betti_vector_counts([tuple(b) for u in nets for b in u.measured[key]])
              for arch, nets in res.items()}
    vectors = sorted({v for c in counts.values() for v in c})
    fig, ax = plt.subplots(figsize=(6, 3.2))
    width = 0.8 / len(res)
    x = np.arange(len(vectors))
    for i, (arch, c) in enumerate(counts.items()):
        total = sum(c.values())
        ax.bar(x + i * width, [c.get(v, 0) / total for v in vectors], width, label=LABELS[arch])
    ax.set_xticks(x + 0.4 - width / 2, [str(v) for v in vectors])
    ax.set(xlabel="Betti vector", ylabel="share of clusters")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def pad_heatmaps(res: dict[str, list[Unit]]):
    """Phase alignment distribution: where on the p x p input grid each neuron peaks, pooled over the
    networks of each architecture."""
    p = next(iter(res.values()))[0].spec.p
    fig, axes = plt.subplots(1, len(res), figsize=(3.1 * len(res), 3), squeeze=False)
    for ax, (arch, nets) in zip(axes[0], res.items(), strict=True):
        peaks = np.concatenate([u.measured["phase_alignment"] for u in nets])
        hist = np.zeros((p, p))
        np.add.at(hist, (peaks[:, 0], peaks[:, 1]), 1)
        ax.imshow(hist, cmap="magma", origin="lower")
        ax.set(title=LABELS[arch], xlabel="b*", ylabel="a*")
    fig.tight_layout()
    return fig


def torus_distance_hist(res: dict[str, list[Unit]]):
    """Histogram of each neuron's peak (a*, b*) distance to the diagonal a = b on the discrete torus."""
    p = next(iter(res.values()))[0].spec.p
    fig, ax = plt.subplots(figsize=(5.5, 3))
    bins = np.arange(p // 2 + 2) - 0.5
    for arch, nets in res.items():
        d = measures.torus_distance(np.concatenate([u.measured["phase_alignment"] for u in nets]), p)
        ax.hist(d, bins=bins, histtype="step", density=True, label=LABELS[arch])
    ax.set(xlabel="torus distance of the peak to the diagonal", ylabel="density")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def distance_distributions(within: np.ndarray, across: np.ndarray):
    """Bottleneck distances between H1 diagrams: within architecture against across (uniform vs
    learnable attention)."""
    fig, ax = plt.subplots(figsize=(5.5, 3))
    bins = np.linspace(0, max(within.max(initial=0), across.max(initial=0)) * 1.05 + 1e-9, 20)
    ax.hist(within, bins=bins, alpha=0.6, label=f"within ({within.size} pairs)")
    ax.hist(across, bins=bins, alpha=0.6, label=f"across ({across.size} pairs)")
    ax.set(xlabel="bottleneck distance (H1, units of the diameter)", ylabel="pairs")
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
