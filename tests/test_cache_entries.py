"""Hostile cache entries and the results the cache refuses to store: every reader (``cached``, ``prune``,
``install``, ``cache_usage`` and ``interp-repro cache``) sees a damaged entry as one :class:`CorruptEntry`
and treats it alike, never with a traceback; ``cached`` stores no NaN, infinity or empty result that its
caller did not declare."""

import io
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import interp_repro.core.cache as cache_mod
from interp_repro.cli import main
from interp_repro.core import ConfigError
from interp_repro.core.cache import (
    CorruptEntry,
    Usage,
    cache_dir,
    cache_key,
    cache_usage,
    cached,
    install,
    library_fingerprint,
    prune,
    read_entry,
)

NS = "tests/entries"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("INTERP_REPRO_RECORD", str(tmp_path / "records.json"))


class Counter:
    """A compute function that counts its calls."""

    def __init__(self, arrays: dict | None = None):
        self.calls = 0
        self.arrays = {"w": np.arange(3.0)} if arrays is None else arrays

    def __call__(self) -> dict:
        self.calls += 1
        return self.arrays


def _npz(**arrays) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def _header(path: Path) -> dict:
    with np.load(path, allow_pickle=False) as data:
        return json.loads(str(data["__header__"]))


def _with_header(path: Path, header: object, **arrays) -> bytes:
    """The entry at ``path`` with its ``__header__`` replaced by ``header`` (JSON) and ``arrays`` added."""
    with np.load(path, allow_pickle=False) as data:
        kept = {name: data[name] for name in data.files if name != "__header__"}
    return _npz(__header__=np.array(json.dumps(header)), **kept, **arrays)


def _other_key(path: Path) -> bytes:
    """A valid entry of another config, as bytes: a header that names another key."""
    cached(NS, {"n": 99}, Counter())
    other = cache_dir() / NS / f"{cache_key(NS, {'n': 99})}.npz"
    data = other.read_bytes()
    other.unlink()
    return data


def _nonfinite(path: Path) -> bytes:
    """NaN in an array its header does not declare, with the array's checksum written to match."""
    w = np.array([0.0, np.nan, 2.0])
    header = _header(path) | {"crc32": {"w": cache_mod._checksum(w)}}
    return _npz(__header__=np.array(json.dumps(header)), w=w)


def _swapped(path: Path) -> bytes:
    """The array replaced by another of the same dtype and shape, the header left as written."""
    return _npz(__header__=np.array(json.dumps(_header(path))), w=np.array([0.0, 1.0, 5.0]))


DAMAGES: dict[str, Callable[[Path], bytes]] = {
    "header a list": lambda p: _with_header(p, [1, 2]),
    "header a number": lambda p: _with_header(p, 5),
    "header missing": lambda p: _npz(w=np.arange(3.0)),
    "header not a string": lambda p: _npz(__header__=np.arange(2), w=np.arange(3.0)),
    "npy under an npz name": lambda p: _npy(np.arange(3.0)),
    "arrays a number": lambda p: _with_header(p, _header(p) | {"arrays": 5}),
    "arrays names a missing array": lambda p: _with_header(p, _header(p) | {"arrays": ["w", "gone"]}),
    "nonfinite names an unlisted array": lambda p: _with_header(p, _header(p) | {"nonfinite": ["gone"]}),
    "lib not a string": lambda p: _with_header(p, _header(p) | {"lib": None}),
    "truncated": lambda p: p.read_bytes()[: p.stat().st_size // 2],
    "random bytes": lambda p: np.random.default_rng(0).bytes(300),
    "empty file": lambda p: b"",
    "key mismatch": _other_key,
    "NaN in an undeclared array": _nonfinite,
    "an array swapped for another": _swapped,
    "checksums missing": lambda p: _with_header(p, {k: v for k, v in _header(p).items() if k != "crc32"}),
    "array of objects": lambda p: _with_header(p, _header(p) | {"arrays": ["w", "o"], "crc32": {
        **_header(p)["crc32"], "o": 0}}, o=np.array([1, "a"], dtype=object)),
}


@pytest.fixture(params=list(DAMAGES))
def damaged(request) -> tuple[Path, bytes]:
    """A valid entry (config n = 1) made hostile in one way; returns its path and the hostile bytes."""
    cached(NS, {"n": 1}, Counter())
    path = cache_dir() / NS / f"{cache_key(NS, {'n': 1})}.npz"
    data = DAMAGES[request.param](path)
    path.write_bytes(data)
    return path, data


def test_the_reader_names_the_file_and_the_problem_in_one_line(damaged):
    path, _ = damaged
    with pytest.raises(CorruptEntry) as caught:
        read_entry(path, NS, path.stem)
    message = str(caught.value)
    assert message.startswith(f"corrupt cache entry {path}: ") and "\n" not in message
    assert isinstance(caught.value, ValueError) and not isinstance(caught.value, ConfigError)


def test_cached_logs_deletes_and_recomputes_a_valid_entry(damaged, caplog):
    path, _ = damaged
    compute = Counter()
    with caplog.at_level(logging.WARNING, logger="interp_repro.core.cache"):
        out = cached(NS, {"n": 1}, compute)
    assert compute.calls == 1
    np.testing.assert_array_equal(out["w"], [0.0, 1.0, 2.0])
    assert "corrupt cache entry" in caplog.text and path.name in caplog.text
    header, arrays = read_entry(path, NS, path.stem)
    assert header["lib"] == library_fingerprint() and sorted(arrays) == ["w"]
    cached(NS, {"n": 1}, compute)
    assert compute.calls == 1


def test_prune_deletes_it_and_keeps_the_valid_entries(damaged):
    path, _ = damaged
    cached(NS, {"n": 2}, Counter())
    valid = cache_dir() / NS / f"{cache_key(NS, {'n': 2})}.npz"
    assert prune() == [path]
    assert sorted((cache_dir() / NS).iterdir()) == [valid]


def test_cache_usage_counts_it_as_corrupt(damaged):
    path, _ = damaged
    cached(NS, {"n": 2}, Counter())
    size = sum(p.stat().st_size for p in (cache_dir() / NS).iterdir())
    assert cache_usage() == {"tests": Usage(entries=2, bytes=size, corrupt=1)}
    assert path.exists()  # counting deletes nothing


def test_install_refuses_it(damaged):
    path, data = damaged
    relative = path.relative_to(cache_dir()).as_posix()
    path.unlink()
    with pytest.raises(ValueError, match=rf"received cache entry '{relative}' is not valid: "):
        install(relative, data)
    assert not list(cache_dir().rglob("*.npz")) and not list(cache_dir().rglob(".tmp-*"))


def test_the_cache_command_reports_it_and_prune_removes_it(damaged, capsys):
    path, _ = damaged
    assert main(["cache", "--size"]) == 0
    out = capsys.readouterr().out
    assert "1 of these entries are corrupt" in out and "interp-repro cache --prune" in out
    assert main(["cache", "--prune"]) == 0
    assert "removed 1 outdated entries" in capsys.readouterr().out
    assert main(["cache", "--size"]) == 0
    assert "corrupt" not in capsys.readouterr().out and not path.exists()


def test_a_dangling_link_is_counted_as_corrupt_and_pruned(tmp_path, capsys):
    link = cache_dir() / NS / f"{'a' * 24}.npz"
    link.parent.mkdir(parents=True)
    link.symlink_to(tmp_path / "nowhere.npz")
    assert cache_usage()["tests"].corrupt == 1
    assert main(["cache", "--size"]) == 0
    assert "1 of these entries are corrupt" in capsys.readouterr().out
    assert prune() == [link] and not link.is_symlink()


def test_an_entry_that_cannot_be_opened_is_exit_2_everywhere_and_kept(monkeypatch, capsys):
    cached(NS, {"n": 1}, Counter())
    [path] = (cache_dir() / NS).iterdir()

    def denied(file, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(file))

    monkeypatch.setattr(cache_mod, "open", denied, raising=False)  # the module's open(), not the builtin
    for argv in (["cache", "--size"], ["cache", "--prune"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"cannot read cache entry {path} (Permission denied)" in err and err.count("\n") == 1
    with pytest.raises(ConfigError, match="fix its permissions"):
        cached(NS, {"n": 1}, Counter())
    assert path.exists()


# --- what cached() refuses to store -----------------------------------------------------------------

@pytest.mark.parametrize(("value", "count"), [(np.nan, 1), (np.inf, 1), (-np.inf, 1)])
def test_cached_refuses_nonfinite_values_and_writes_nothing(value, count):
    arrays = {"ok": np.arange(3.0), "bad": np.array([1.0, value, 3.0]), "n": np.arange(3)}
    with pytest.raises(ValueError, match=rf"^{NS}: array 'bad' holds {count} NaN or infinite values of 3; "
                                         r"not cached \(cached\(\.\.\., nonfinite=\.\.\.\)"):
        cached(NS, {"n": 1}, Counter(arrays))
    assert not cache_dir().exists() or not list(cache_dir().rglob("*.npz"))


def test_cached_counts_every_bad_value_of_a_complex_array():
    arrays = {"z": np.array([1 + 1j, complex(np.nan, 0), complex(0, np.inf)])}
    with pytest.raises(ValueError, match="array 'z' holds 2 NaN or infinite values of 3"):
        cached(NS, {"n": 1}, Counter(arrays))


def test_cached_refuses_an_empty_result():
    with pytest.raises(ValueError, match=f"^{NS}: the computation returned no arrays"):
        cached(NS, {"n": 1}, Counter({}))
    assert not cache_dir().exists() or not list(cache_dir().rglob("*.npz"))


def test_cached_stores_declared_nan_and_zero_size_arrays():
    arrays = {"profile": np.array([[0.5, np.nan], [0.1, 0.2]]), "h1": np.empty((0, 2)), "w": np.arange(2.0)}
    compute = Counter(arrays)
    cached(NS, {"n": 1}, compute, nonfinite=("profile", "not returned"))
    out = cached(NS, {"n": 1}, compute, nonfinite=("profile",))
    assert compute.calls == 1 and np.isnan(out["profile"][0, 1]) and out["h1"].shape == (0, 2)
    [path] = (cache_dir() / NS).iterdir()
    assert _header(path)["nonfinite"] == ["profile"]


def test_a_declaration_is_names_not_one_string():
    with pytest.raises(TypeError, match="not the string 'profile'"):
        cached(NS, {"n": 1}, Counter({"profile": np.array([np.nan])}), nonfinite="profile")


def test_nan_in_a_declared_array_of_another_entry_is_still_corrupt_where_undeclared():
    cached(NS, {"n": 1}, Counter({"a": np.array([np.nan]), "b": np.ones(1)}), nonfinite=("a",))
    [path] = (cache_dir() / NS).iterdir()
    path.write_bytes(_with_header(path, _header(path) | {"nonfinite": []}))
    with pytest.raises(CorruptEntry, match=r"its array 'a' holds 1 NaN or infinite values, undeclared"):
        read_entry(path, NS, path.stem)


# --- fingerprints ------------------------------------------------------------------------------------

def test_an_entry_records_its_study_fingerprint_and_a_header_without_nonfinite_still_reads():
    """Editing core/cache.py changes every study's fingerprint (it is shared code), so an entry holds
    the fingerprint of today's code; a header written before ``nonfinite`` existed declares none."""
    cached("superposition/probe", {"n": 1}, Counter())
    [path] = (cache_dir() / "superposition" / "probe").iterdir()
    header = _header(path)
    assert header["lib"] == library_fingerprint("superposition") != library_fingerprint("abstraction")
    assert header["ns"] == "superposition/probe" and header["key"] == path.stem
    del header["nonfinite"]
    path.write_bytes(_with_header(path, header))
    assert read_entry(path, "superposition/probe", path.stem)[0] == header
    assert prune() == []


def test_an_entry_of_older_code_is_pruned_not_counted_corrupt(monkeypatch):
    with monkeypatch.context() as m:
        m.setattr(cache_mod, "library_fingerprint", lambda study=None: "0.0.1+000000000000")
        cached(NS, {"n": 1}, Counter())
    assert cache_usage()["tests"].corrupt == 0
    [path] = (cache_dir() / NS).iterdir()
    assert prune() == [path]
    assert not os.listdir(cache_dir() / NS)
