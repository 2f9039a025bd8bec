"""Persistent homology cost and landmark accuracy (interp_repro.modular_addition.topology).

1. H2 Betti numbers of a 3,481-point cluster, the 59 x 59 grid (a, b) in Z_59^2 mapped to the flat torus
   (cos 2 pi a/59, sin 2 pi a/59, cos 2 pi b/59, sin 2 pi b/59) and to the rank-2 disc
   (cos 2 pi a/59 + cos 2 pi b/59, sin 2 pi a/59 + sin 2 pi b/59), plus seeded noise: Rips on the default
   greedy landmarks, and the alpha complex on every point (also after PCA from a 32-D embedding).
2. Landmark against full-cloud Betti numbers on small, evenly spread shapes where full Rips is feasible.

Usage: ``python benchmarks/topology.py [--noise SD] [--seed N] [--out FILE]``.
"""

import argparse
import os
import platform
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

from interp_repro.modular_addition.topology import (
    BAR_THRESHOLD,
    DEFAULT_LANDMARKS,
    alpha_persistence,
    betti_numbers,
    count_bars,
)
from interp_repro.reproduction.speed import comparison, write_result

P = 59


def grid_angles(p: int) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.meshgrid(np.arange(p), np.arange(p), indexing="ij")
    return 2 * np.pi * a.ravel() / p, 2 * np.pi * b.ravel() / p


def flat_torus(p: int) -> np.ndarray:
    a, b = grid_angles(p)
    return np.c_[np.cos(a), np.sin(a), np.cos(b), np.sin(b)]


def disc(p: int) -> np.ndarray:
    a, b = grid_angles(p)
    return np.c_[np.cos(a) + np.cos(b), np.sin(a) + np.sin(b)]


def circles(n: int, centres: list[float]) -> np.ndarray:
    t = 2 * np.pi * np.arange(n) / n
    return np.vstack([np.c_[np.cos(t) + c, np.sin(t)] for c in centres])


def sunflower_disc(n: int) -> np.ndarray:
    i = np.arange(n) + 0.5
    r, theta = np.sqrt(i / n), np.pi * (3 - np.sqrt(5)) * i
    return np.c_[r * np.cos(theta), r * np.sin(theta)]


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--noise", type=float, default=0.01, help="noise sd (the torus has radius-1 circles)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/topology.json"))
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    torus = flat_torus(P) + rng.normal(0, args.noise, (P * P, 4))
    grid_disc = disc(P) + rng.normal(0, args.noise, (P * P, 2))
    rotation = np.linalg.qr(rng.normal(size=(32, 32)))[0]
    torus_32d = np.c_[torus, np.zeros((P * P, 28))] @ rotation

    clusters = {}
    for name, X, expected in [("flat torus", torus, (1, 2, 1)), ("rank-2 disc", grid_disc, (1, 0, 0))]:
        rips, t_rips = timed(betti_numbers, X)
        alpha, t_alpha = timed(lambda Y: count_bars(alpha_persistence(Y)), X)
        clusters[name] = {"expected": expected,
                          "rips_landmarks": {"betti": rips, "seconds": round(t_rips, 2)},
                          "alpha_all_points": {"betti": alpha, "seconds": round(t_alpha, 2)}}
    alpha_pca, t_pca = timed(lambda Y: count_bars(alpha_persistence(Y, n_components=4)), torus_32d)
    clusters["flat torus"]["alpha_pca_from_32d"] = {"betti": alpha_pca, "seconds": round(t_pca, 2)}

    small = {  # (cloud, maxdim, landmarks, expected)
        "circle, 200 points": (circles(200, [0.0]), 2, 60, (1, 1, 0)),
        "two circles, 300 points": (circles(150, [0.0, 3.0]), 2, 100, (2, 2, 0)),
        "disc, 300 points": (sunflower_disc(300), 2, 120, (1, 0, 0)),
        "flat torus 24 x 24, H1 only": (flat_torus(24), 1, 200, (1, 2)),
    }
    landmark_vs_full = {}
    for name, (X, maxdim, n_landmarks, expected) in small.items():
        X = X + rng.normal(0, args.noise, X.shape)
        full, t_full = timed(betti_numbers, X, maxdim, n_landmarks=None)
        sub, t_sub = timed(betti_numbers, X, maxdim, n_landmarks=n_landmarks)
        landmark_vs_full[name] = {"expected": expected, "full": full, "full_seconds": round(t_full, 2),
                                  "n_landmarks": n_landmarks, "landmarks": sub,
                                  "landmark_seconds": round(t_sub, 2), "agree": full == sub}

    result = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs (ripser: 1 thread)",
        "versions": {pkg: version(pkg) for pkg in ("ripser", "persim", "gudhi", "numpy")},
        "setting": f"59 x 59 grid, noise sd {args.noise}, seed {args.seed}, {DEFAULT_LANDMARKS} landmarks, "
                   f"bar threshold {BAR_THRESHOLD} x diameter",
        "clusters_3481_points_h2": clusters,
        "landmark_vs_full": landmark_vs_full,
        "comparisons": [
            *[comparison(f"{n_landmarks}-landmark vs full Rips: {name}", r["landmark_seconds"],
                         r["full_seconds"], "same Betti numbers" if r["agree"] else "Betti numbers differ")
              for name, r in landmark_vs_full.items() for n_landmarks in [r["n_landmarks"]]],
            comparison("alpha complex on all points vs Rips on landmarks: 59 x 59 torus",
                       clusters["flat torus"]["alpha_all_points"]["seconds"],
                       clusters["flat torus"]["rips_landmarks"]["seconds"], "3,481 points, H2"),
        ],
    }
    write_result(result, args.out)


if __name__ == "__main__":
    main()
