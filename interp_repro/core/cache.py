"""On-disk results cache keyed by a hash of (namespace, config, library fingerprint).

The namespace starts with the study's name (``superposition/intro``), so the fingerprint covers
that study's code and the shared code only.

Entries are ``.npz`` files of NumPy arrays plus a JSON header (no pickles). Writes go to a temporary
file that is renamed into place, so a reader never sees half an entry. An entry that cannot be read,
or whose header does not match its key, is deleted and recomputed with a warning.

Two switches serve ``core.parallel``: :func:`journal` lists the entries a computation writes (so a
worker can send them back), and :func:`probing` makes a missing entry raise :class:`NotCached`
instead of being computed (so a caller can tell which jobs still have work to do).
"""

import dataclasses
import hashlib
import json
import logging
import os
import re
import tempfile
import threading
import zipfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

CACHE_ENV = "INTERP_REPRO_CACHE"
log = logging.getLogger(__name__)

Arrays = dict[str, np.ndarray]
_state = threading.local()  # per thread: a Dask worker may run several jobs at once


class NotCached(LookupError):
    """Raised by :func:`cached` inside :func:`probing` when an entry would have to be computed."""


def cache_dir() -> Path:
    """The cache folder: ``$INTERP_REPRO_CACHE`` or ``~/.cache/interp-repro``."""
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "interp-repro")


@cache
def library_fingerprint(study: str | None = None) -> str:
    """Package version plus a hash of the library code that ``study``'s results depend on.

    That code is ``core/``, the study's own subpackage and the top-level modules it imports (e.g.
    ``topology.py``); with no study, every module. ``plots.py`` modules are left out: they only draw
    cached arrays. Editing that code changes the fingerprint, so cached results and recorded claims
    never outlive the code that made them, while editing one study, a shared module another study
    does not use, or a figure leaves the other caches valid.
    """
    from interp_repro import __version__

    root = Path(__file__).resolve().parents[1]
    if study is None:
        files = sorted(root.rglob("*.py"))
    else:
        own = sorted((root / study).rglob("*.py"))
        imported = {m for path in own for m in re.findall(r"interp_repro\.(\w+)", path.read_text())}
        files = sorted(root.glob("core/*.py")) + own + sorted(
            root / f"{m}.py" for m in imported if (root / f"{m}.py").is_file())
    digest = hashlib.sha256()
    for path in files:
        if path.name == "plots.py":
            continue
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return f"{__version__}+{digest.hexdigest()[:12]}"


def _study_of(namespace: str) -> str | None:
    first = namespace.split("/")[0]
    return first if (Path(__file__).resolve().parents[1] / first).is_dir() else None


def _jsonable(config: Any) -> Any:
    if dataclasses.is_dataclass(config) and not isinstance(config, type):
        items = {f.name: _jsonable(getattr(config, f.name)) for f in dataclasses.fields(config)}
        return {"__type__": type(config).__name__, **items}
    if isinstance(config, Mapping):
        return {str(k): _jsonable(v) for k, v in config.items()}
    if isinstance(config, list | tuple):
        return [_jsonable(v) for v in config]
    if isinstance(config, np.generic):
        return config.item()
    if isinstance(config, str | int | float | bool) or config is None:
        return config
    raise TypeError(f"cannot key the cache on a {type(config).__name__}: {config!r}")


def cache_key(namespace: str, config: Any) -> str:
    """Hex digest identifying ``config`` under ``namespace`` for this library fingerprint."""
    payload = json.dumps(
        {"ns": namespace, "config": _jsonable(config),
         "lib": library_fingerprint(_study_of(namespace))},
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


def _entry_path(namespace: str, key: str) -> Path:
    parts = namespace.split("/")
    if not namespace or any(p in ("", ".", "..") or not p.replace("_", "").replace("-", "").isalnum()
                            for p in parts):
        raise ValueError(f"cache namespace {namespace!r} must be '/'-separated names of letters, "
                         "digits, '-' and '_'")
    return cache_dir() / namespace / f"{key}.npz"


def _read(path: Path, key: str) -> Arrays:
    with np.load(path, allow_pickle=False) as data:
        header = json.loads(str(data["__header__"]))
        if header.get("key") != key:
            raise ValueError(f"header key {header.get('key')!r} does not match {key!r}")
        arrays = {name: data[name] for name in header["arrays"]}
    return arrays


def _write(path: Path, key: str, arrays: Arrays) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    header = json.dumps({"key": key, "arrays": sorted(arrays)})
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, __header__=np.array(header), **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    written = getattr(_state, "journal", None)
    if written is not None:
        written.append(path)


@contextmanager
def journal() -> Iterator[list[Path]]:
    """Collect the paths of the entries written in the body (this thread only)."""
    before, _state.journal = getattr(_state, "journal", None), []
    try:
        yield _state.journal
    finally:
        _state.journal = before


@contextmanager
def probing() -> Iterator[None]:
    """In the body (this thread only), :func:`cached` raises :class:`NotCached` for a missing entry."""
    before, _state.probing = getattr(_state, "probing", False), True
    try:
        yield
    finally:
        _state.probing = before


def entry_bytes(path: Path) -> tuple[str, bytes]:
    """An entry as (path relative to the cache folder, file bytes): what a remote worker sends back."""
    return path.relative_to(cache_dir()).as_posix(), path.read_bytes()


def install(relative: str, data: bytes) -> None:
    """Store an entry sent by another machine (see :func:`entry_bytes`), unless one is already here.

    The bytes must be a readable entry whose header matches its file name, else ``ValueError``."""
    parts = relative.split("/")
    key = parts[-1].removesuffix(".npz")
    if len(parts) < 2 or not re.fullmatch(r"[0-9a-f]{24}\.npz", parts[-1]):
        raise ValueError(f"not a cache entry path: {relative!r}")
    path = _entry_path("/".join(parts[:-1]), key)
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        _read(Path(tmp), key)
        os.replace(tmp, path)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        Path(tmp).unlink(missing_ok=True)
        raise ValueError(f"received cache entry {relative!r} is not valid: {err}") from err
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cached(namespace: str, config: Any, compute: Callable[[], Arrays]) -> Arrays:
    """Return ``compute()``'s arrays for ``config``, from the cache when a valid entry exists.

    ``compute`` must return a dict of NumPy arrays (names must not start with ``__``).
    A corrupt or partial entry is logged, deleted and recomputed.
    """
    key = cache_key(namespace, config)
    path = _entry_path(namespace, key)
    if path.exists():
        try:
            return _read(path, key)
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
            log.warning("discarding corrupt cache entry %s (%s); recomputing", path, err)
            path.unlink(missing_ok=True)
    if getattr(_state, "probing", False):
        raise NotCached(f"{namespace}: {key}")
    arrays = {name: np.asarray(value) for name, value in compute().items()}
    bad = [name for name in arrays if name.startswith("__") or arrays[name].dtype == object]
    if bad:
        raise ValueError(f"cannot cache arrays {bad}: names may not start with '__', no objects")
    _write(path, key, arrays)
    return arrays


def is_cached(namespace: str, config: Any) -> bool:
    """Whether an entry for ``config`` exists (it may still turn out corrupt when read)."""
    return _entry_path(namespace, cache_key(namespace, config)).exists()
