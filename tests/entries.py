"""Cache entries of two cache folders, compared array by array."""

from pathlib import Path

import numpy as np


def entries(root: Path) -> dict[str, dict[str, np.ndarray]]:
    """{entry path relative to ``root``: {array name: array}} for every result under ``root`` (the jobs'
    completion markers, ``*/jobs/``, are bookkeeping of the machine that ran the pool)."""
    out = {}
    for path in sorted(p for p in root.rglob("*.npz") if p.parent.name != "jobs"):
        with np.load(path) as data:
            out[path.relative_to(root).as_posix()] = {k: data[k] for k in data.files if k != "__header__"}
    return out


def assert_entries_within(a: Path, b: Path) -> None:
    """Every entry under ``a`` is under ``b`` too, with every array equal bit for bit."""
    ours = entries(a)
    assert ours, f"no entries under {a}"
    for name, arrays in ours.items():
        assert (b / name).exists(), f"{name}: not under {b}"
        with np.load(b / name) as data:
            theirs = {k: data[k] for k in data.files if k != "__header__"}
        assert sorted(arrays) == sorted(theirs), name
        for key, value in arrays.items():
            np.testing.assert_array_equal(value, theirs[key], err_msg=f"{name}: {key}", strict=True)


def assert_same_entries(a: Path, b: Path) -> None:
    """Both folders hold the same entries, and every array is equal bit for bit."""
    assert sorted(entries(a)) == sorted(entries(b))
    assert_entries_within(a, b)
