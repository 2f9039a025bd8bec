"""Benchmark results: written by the scripts in ``benchmarks/`` and read by the book's Benchmarks page.

Every script measures our code next to a baseline in the same run (a reference-style loop, one model
at a time, full persistent homology ...) and stores each pair as a :func:`comparison`, so the page
shows ratios, which survive a change of machine better than seconds do. Results are JSON files in a
folder every function here is given: the kept results of the last ``make bench`` in
``benchmarks/results/`` (committed), the book builds a clone recorded in ``_build/benchmarks/``.
"""

import json
import time
from pathlib import Path
from typing import Any

from interp_repro.core.cache import library_fingerprint
from interp_repro.core.machine import host

BOOK_BUILDS = "book_builds.json"


def comparison(what: str, ours_s: float, baseline_s: float, setting: str) -> dict[str, Any]:
    """One measured pair: seconds of ours and of the baseline, and the speed-up baseline / ours
    (above 1: ours is faster)."""
    if not (ours_s > 0 and baseline_s > 0):
        raise ValueError(f"{what}: times must be positive, got ours {ours_s}, baseline {baseline_s}")
    return {"what": what, "setting": setting, "ours_s": float(ours_s), "baseline_s": float(baseline_s),
            "speedup": float(baseline_s / ours_s)}


def matmul_flops(n: int = 1024, repeats: int = 20) -> float:
    """Float32 FLOP/s of an ``n`` x ``n`` matrix product at torch's current thread count: the
    machine's own ceiling, against which a training step's FLOP/s are read."""
    import torch

    x, w = torch.randn(n, n), torch.randn(n, n)
    x @ w
    start = time.perf_counter()
    for _ in range(repeats):
        x @ w
    return 2 * n ** 3 * repeats / (time.perf_counter() - start)


def write_result(result: dict[str, Any], out: Path) -> None:
    """Store one script's result with the machine, the date and the library's fingerprint, and print it."""
    result = {**result, "host": host(), "library": library_fingerprint(),
              "measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))


def load_results(folder: Path) -> dict[str, dict[str, Any]]:
    """Every benchmark result in ``folder`` by file stem (book builds excluded); a file that is not
    valid JSON is reported as ``{"error": ...}`` rather than skipped silently."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")):
        if path.name == BOOK_BUILDS:
            continue
        try:
            out[path.stem] = json.loads(path.read_text())
        except json.JSONDecodeError as err:
            out[path.stem] = {"error": f"unreadable ({err})"}
    return out


def comparison_table(results: dict[str, dict[str, Any]]):
    """All comparisons as a DataFrame: benchmark, what, setting, ours (s), baseline (s), speed-up."""
    import pandas as pd

    rows = [{"benchmark": name, **c} for name, r in results.items() for c in r.get("comparisons", [])]
    columns = ["benchmark", "what", "setting", "ours_s", "baseline_s", "speedup"]
    return pd.DataFrame(rows, columns=columns)


def record_book_build(seconds: float, scale: str, entries_before: int, entries_after: int,
                      studies: dict[str, dict[str, Any]], folder: Path,
                      matmul_gflops: float | None = None) -> dict[str, Any]:
    """Append one book build: wall time, scale and its kind, from the results-cache entries before
    and after it: ``cold`` (the cache started empty), ``warm`` (nothing computed) or ``partial``;
    with ``studies``, what ``studies.fill_cache`` measured of each study and job before the pages
    ran, and ``matmul_gflops``, the machine's one-thread matrix-product ceiling measured beside it."""
    if entries_before == 0 and entries_after > 0:
        kind = "cold"
    elif entries_after == entries_before:
        kind = "warm"
    else:
        kind = "partial"
    build = {"seconds": float(seconds), "scale": scale, "kind": kind,
             "new_cache_entries": entries_after - entries_before, "studies": studies,
             "matmul_gflops_one_thread": matmul_gflops, "host": host(),
             "measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / BOOK_BUILDS
    path.write_text(json.dumps([*book_builds(folder), build], indent=1))
    return build


def book_builds(folder: Path) -> list[dict[str, Any]]:
    """The recorded book builds, oldest first (empty if none)."""
    path = folder / BOOK_BUILDS
    return json.loads(path.read_text()) if path.exists() else []


def plot_speedups(table, ax=None):
    """Horizontal bars of each comparison's speed-up on a log axis, 1 marked (ours = baseline)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(8, 0.32 * len(table) + 1.2))
    labels = [f"{b}: {w}" for b, w in zip(table["benchmark"], table["what"], strict=True)]
    colours = ["tab:green" if s >= 1 else "tab:red" for s in table["speedup"]]
    ax.barh(range(len(table)), table["speedup"], color=colours)
    ax.set_yticks(range(len(table)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1, color="black", lw=0.8)
    ax.set_xlabel("speed-up: baseline seconds / our seconds (log scale)")
    return ax


# ------------------------------------------------------------------ the Benchmarks page's tables


def provenance_table(results: dict[str, dict[str, Any]], current: str) -> list[dict[str, str]]:
    """Where and when each benchmark ran, and whether with the library whose fingerprint is
    ``current`` or an older one."""
    return [{"benchmark": name, "measured": r.get("measured_at", "?"),
             "machine": "{cpu}, {cores} cores, torch {torch}".format(**r["host"]) if "host" in r else "?",
             "code": "this version" if r.get("library") == current else "an older version"}
            for name, r in results.items()]


def matching(table, pattern: str):
    """The rows of a :func:`comparison_table` whose ``what`` matches the regular expression ``pattern``."""
    return table[table["what"].str.contains(pattern, regex=True)]


def ceiling_table(results: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The training steps measured against the machine's one-thread matrix-product speed: their
    GFLOP/s, the ceiling's and the share of it they reach (empty when not measured)."""
    rows = []
    if "geometry_step" in results.get("superposition_training", {}):
        g = results["superposition_training"]["geometry_step"]
        rows.append({"step": "superposition, one geometry sweep (30 sparsities, n = 200, m = 20)",
                     "GFLOP/s": g["blocked"]["gflops"], "matmul GFLOP/s": g["matmul_gflops_one_thread"],
                     "share": g["share_of_matmul"]})
    if "flops" in results.get("modular_addition_training", {}):
        f = results["modular_addition_training"]["flops"]
        rows.append({"step": "modular addition, one attention network", "GFLOP/s": f["achieved_gflops"],
                     "matmul GFLOP/s": f["matmul_gflops"], "share": f["share_of_matmul"]})
    if "bptt_stacking" in results.get("schur_rnn", {}):
        b = results["schur_rnn"]["bptt_stacking"]
        shares = (("one seed", "share_of_matmul_one_seed"), ("seeds stacked", "share_of_matmul_stacked"))
        for who, key in shares:
            rows.append({"step": f"Schur RNN BPTT, 128-step replay, {who}",
                         "GFLOP/s": b[key] * b["matmul_gflops_one_thread"],
                         "matmul GFLOP/s": b["matmul_gflops_one_thread"], "share": b[key]})
    return rows


def denormal_table(results: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Per block of 1,000 steps of the modular-addition benchmark's long runs: milliseconds per step
    and the share of subnormal gradient entries, with denormals flushed to zero and without (empty
    when not measured)."""
    runs = results.get("modular_addition_training", {}).get("denormals")
    if not runs:
        return []
    flushed, kept = runs["flushed"], runs["not flushed"]
    return [{"steps": f"{i * runs['block'] + 1:,}-{min((i + 1) * runs['block'], runs['steps']):,}",
             "ms/step, flushed": 1e3 * flushed["seconds_per_step"][i],
             "ms/step, not flushed": 1e3 * kept["seconds_per_step"][i],
             "subnormal gradients, not flushed": kept["subnormal_share"][i]}
            for i in range(len(kept["seconds_per_step"]))]


SLOW_SHARE = 0.3
"""A training job below this share of the matrix-product ceiling says what bounds it."""


def job_table(build: dict[str, Any]) -> list[dict[str, Any]]:
    """Every job a build computed, costliest first: its study, CPU minutes, the share of them its
    training steps took, their GFLOP/s (``core.flops``), its share of the build's one-thread
    matrix-product ceiling, and, below :data:`SLOW_SHARE`, what bounds it. A job that trains nothing
    (an analysis) has none of these."""
    ceiling = build.get("matmul_gflops_one_thread")
    rows = []
    for study, cost in build.get("studies", {}).items():
        for job in cost.get("by_job", []):
            trains = job["gflop"] > 0 and job["training_s"] > 0
            rate = job["gflop"] / job["training_s"] if trains else None
            share = rate / ceiling if rate is not None and ceiling else None
            slow = share is not None and share < SLOW_SHARE
            training = job["training_s"] / job["cpu_s"] if trains and job["cpu_s"] > 0 else None
            rows.append({"study": study, "job": job["job"], "CPU min": job["cpu_s"] / 60,
                         "training": training, "GFLOP/s": rate, "share of ceiling": share,
                         "bound by": "; ".join(job["bounds"]) if slow else ""})
    return sorted(rows, key=lambda row: -row["CPU min"])


def build_summary(builds: list[dict[str, Any]]) -> dict[str, Any]:
    """What the recorded book builds show: ``latest``, one row per kind of build (its latest);
    ``warm_share``, the latest warm build's seconds over the latest cold one's (None unless both are
    recorded); ``minutes``, per scale the minutes each study cost in its latest cold build (summed over
    its jobs); ``jobs``, per scale the :func:`job_table` of that build, and its ceiling."""
    latest = {b["kind"]: b for b in builds}
    cold = {b["scale"]: b for b in builds if b["kind"] == "cold" and b.get("studies")}
    return {
        "latest": [{"build": kind, "scale": b["scale"], "minutes": round(b["seconds"] / 60, 1),
                    "results computed": b["new_cache_entries"],
                    "machine": "{cpu}, {cores} cores".format(**b["host"]), "when": b["measured_at"]}
                   for kind, b in sorted(latest.items())],
        "warm_share": (latest["warm"]["seconds"] / latest["cold"]["seconds"]
                       if "cold" in latest and "warm" in latest else None),
        "minutes": [{"scale": scale, **{study: round(t["seconds"] / 60, 1)
                                        for study, t in b["studies"].items()}} for scale, b in cold.items()],
        "jobs": {scale: {"table": job_table(b), "ceiling": b.get("matmul_gflops_one_thread")}
                 for scale, b in cold.items()},
    }
