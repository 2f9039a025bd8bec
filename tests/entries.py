"""Cache entries of two cache folders, compared array by array."""

from pathlib import Path

import numpy as np


def entries(root: Path) -> dict[str, dict[str, np.ndarray]]:
    """{entry path relative to ``root``: {array name: array}} for every entry under ``root``."""
    out = {}
    for path in sorted(root.rglob("*.npz")):
        with np.load(path) as data:
            out[path.relative_to(root).as_posix()] = {k: data[k] for k in data.files if k != "__header__"}
    return out


def assert_same_entries(a: Path, b: Path) -> None:
    """Both folders hold the same entries, and every array is equal bit for bit."""
    ea, eb = entries(a), entries(b)
    assert ea and sorted(ea) == sorted(eb)
    for name in ea:
        assert sorted(ea[name]) == sorted(eb[name]), name
        for key in ea[name]:
            np.testing.assert_array_equal(ea[name][key], eb[name][key], err_msg=f"{name}: {key}", strict=True)
