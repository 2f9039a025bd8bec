"""On-disk results cache keyed by a hash of (namespace, config, library fingerprint).

The namespace starts with the study's name (``superposition/intro``), so the fingerprint covers
that study's code and the shared code only.

Entries are ``.npz`` files of NumPy arrays plus a JSON header (no pickles) that names the key, the
namespace and the library fingerprint that wrote it. Writes go to a temporary file that is renamed into
place, so a reader never sees half an entry. A corrupt entry (not a zip, truncated, a missing array, a
header that does not match its key) is deleted and recomputed with a warning; one this process may not
read raises :class:`ConfigError` and is left alone. :func:`prune` deletes the entries older library code
wrote (no run can reach them any more) and stale temporary files; the claim records live elsewhere
(``core.records``), so pruning or deleting the cache folder never loses them.

Two switches serve ``core.parallel``: :func:`journal` lists the entries a computation writes (so a
worker can send them back), and :func:`probing` makes a missing entry raise :class:`NotCached`
instead of being computed (so a caller can tell which jobs still have work to do).
"""

import ast
import dataclasses
import hashlib
import json
import logging
import os
import re
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

from interp_repro.core.device import cpu_threads
from interp_repro.core.errors import ConfigError
from interp_repro.core.units import Arrays
from interp_repro.core.validate import check_writable_dir, env_path

CACHE_ENV = "INTERP_REPRO_CACHE"
DEPENDENCIES = ("torch", "numpy", "scipy")
"""Libraries whose versions are part of the fingerprint: they change numbers."""
CORRUPT = (ValueError, KeyError, EOFError, zipfile.BadZipFile)
"""What reading a damaged entry raises (an ``OSError`` is a problem of access, not of the entry)."""
log = logging.getLogger(__name__)

_state = threading.local()  # per thread: a Dask worker may run several jobs at once


class NotCached(LookupError):
    """Raised by :func:`cached` inside :func:`probing` when an entry would have to be computed."""


def cache_dir() -> Path:
    """The cache folder: ``$INTERP_REPRO_CACHE`` or ``~/.cache/interp-repro``."""
    return env_path(CACHE_ENV) or Path.home() / ".cache" / "interp-repro"


def check_cache_dir() -> Path:
    """The cache folder, created if needed; :class:`ConfigError` unless this process can write there."""
    return check_writable_dir(f"the cache folder (${CACHE_ENV})", cache_dir())


def dependency_versions() -> str:
    """The installed versions of :data:`DEPENDENCIES`, e.g. ``torch==2.13.0 numpy==2.4.6 scipy==1.17.1``."""
    return " ".join(f"{name}=={version(name)}" for name in DEPENDENCIES)


DRAWING_ONLY = ("plots.py", "interactive.py")
"""Modules that only draw: editing them keeps every cached result."""


PACKAGE = Path(__file__).resolve().parents[1]
"""The installed ``interp_repro`` package folder."""


def _imports(path: Path, root: Path) -> set[str]:
    """The dotted names that the import statements of ``path`` (a module under ``root``) name under
    ``interp_repro``, at any depth (a function's own imports too), relative imports resolved: for
    ``from A import b``, both ``A`` and ``A.b`` (``b`` may be a submodule). Importing ``importlib``
    itself (its submodules, such as ``importlib.metadata``, are fine) or calling ``__import__`` raises
    :class:`ValueError`: a module loaded by a name computed at run time cannot be read from the
    source, so the fingerprint would miss it."""
    package = ["interp_repro", *path.relative_to(root).parent.parts]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        by_name = (isinstance(node, ast.Import) and any(alias.name == "importlib" for alias in node.names)
                   or isinstance(node, ast.ImportFrom) and node.module == "importlib" and not node.level
                   or isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                   and node.func.id == "__import__")
        if by_name:
            raise ValueError(f"{path}:{node.lineno} may load a module by a name computed at run time "
                             "(importlib, __import__): import it with an import statement, so the library "
                             "fingerprint can follow it")
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package ``level - 1`` folders up
                here = package[:len(package) + 1 - node.level]
                base = ".".join([*here, base] if base else here)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in names if name.startswith("interp_repro.")}


def _module_file(name: str, root: Path) -> Path | None:
    """The file under ``root`` of the ``interp_repro`` module or package ``name``; None for a name
    that is no module of the package (a function, a class, a constant)."""
    path = root.joinpath(*name.split(".")[1:])
    for candidate in (path / "__init__.py", path.with_name(path.name + ".py")):
        if candidate.is_file():
            return candidate
    return None


def study_sources(study: str | None = None, root: Path = PACKAGE) -> list[Path]:
    """The library modules under ``root`` that ``study``'s computations run: ``core/``, the study's
    own subpackage, and every other module of the package that these import, followed through their
    import statements (:func:`_imports`; today none: every study imports only ``core`` and itself);
    with no study, every module.

    The package's own ``__init__`` is not followed (it holds the version, which every fingerprint
    includes, and reads ``STUDIES`` from the registry of every study)."""
    if study is None:
        return sorted(root.rglob("*.py"))
    core, own = sorted(root.glob("core/*.py")), sorted((root / study).rglob("*.py"))
    seen, todo, imported = {*core, *own}, [*core, *own], set()
    while todo:
        for name in _imports(todo.pop(), root):
            path = _module_file(name, root)
            if path is not None and path not in seen:
                seen.add(path)
                imported.add(path)
                todo.append(path)
    return core + own + sorted(imported)


def source_digest(files: list[Path], root: Path = PACKAGE) -> str:
    """A hash of the dependency versions and of each file's path (relative to ``root``) and bytes."""
    digest = hashlib.sha256(dependency_versions().encode())
    for path in files:
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


@cache
def library_fingerprint(study: str | None = None) -> str:
    """Package version plus a hash of the library code that ``study``'s results depend on
    (:func:`study_sources`) and of the versions of :data:`DEPENDENCIES`.

    ``plots.py`` modules and ``core/interactive.py`` are left out: they only draw cached arrays.
    Editing that code changes the fingerprint, so cached results and recorded claims never outlive
    the code that made them, while editing one study, a shared module another study does not use,
    or a figure leaves the other caches valid. A new torch, NumPy or SciPy changes every fingerprint.
    """
    from interp_repro import __version__

    files = [path for path in study_sources(study) if path.name not in DRAWING_ONLY]
    return f"{__version__}+{source_digest(files)}"


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
    _check_namespace(namespace)  # before any file is read for the fingerprint
    payload = json.dumps(
        {"ns": namespace, "config": _jsonable(config),
         "lib": library_fingerprint(_study_of(namespace))},
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


def _check_namespace(namespace: str) -> str:
    parts = namespace.split("/") if isinstance(namespace, str) else [""]
    if any(p in ("", ".", "..") or not p.replace("_", "").replace("-", "").isalnum() for p in parts):
        raise ValueError(f"cache namespace {namespace!r} must be '/'-separated names of letters, "
                         "digits, '-' and '_'")
    return namespace


def _entry_path(namespace: str, key: str) -> Path:
    return cache_dir() / _check_namespace(namespace) / f"{key}.npz"


def _read(path: Path, key: str | None = None) -> tuple[dict, Arrays]:
    """An entry's header and arrays (no arrays unless ``key`` is given, which the header must match)."""
    with np.load(path, allow_pickle=False) as data:
        header = json.loads(str(data["__header__"]))
        if key is None:
            return header, {}
        if header.get("key") != key:
            raise ValueError(f"header key {header.get('key')!r} does not match {key!r}")
        return header, {name: data[name] for name in header["arrays"]}


def _unreadable(path: Path, err: OSError) -> ConfigError:
    return ConfigError(f"cannot read cache entry {path} ({err.strerror or err}): fix its permissions or "
                       "delete it")


def _write(path: Path, namespace: str, key: str, arrays: Arrays) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    header = json.dumps({"key": key, "ns": namespace, "lib": library_fingerprint(_study_of(namespace)),
                         "arrays": sorted(arrays)})
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
    except (OSError, *CORRUPT) as err:
        Path(tmp).unlink(missing_ok=True)
        raise ValueError(f"received cache entry {relative!r} is not valid: {err}") from err
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def cached(namespace: str, config: Any, compute: Callable[[], Arrays]) -> Arrays:
    """Return ``compute()``'s arrays for ``config``, from the cache when a valid entry exists.

    ``compute`` must return a dict of NumPy arrays (names must not start with ``__``). It runs on one
    CPU thread (``core.device.cpu_threads``), so what it stores is the same whatever the machine's
    core count and however many workers share it. A corrupt or partial entry is logged, deleted and
    recomputed; one that cannot be read (its permissions) raises :class:`ConfigError`.
    """
    key = cache_key(namespace, config)
    path = _entry_path(namespace, key)
    if path.exists():
        try:
            return _read(path, key)[1]
        except CORRUPT as err:
            log.warning("discarding corrupt cache entry %s (%s); recomputing", path, err)
            path.unlink(missing_ok=True)
        except OSError as err:
            raise _unreadable(path, err) from None
    if getattr(_state, "probing", False):
        raise NotCached(f"{namespace}: {key}")
    with cpu_threads(1):
        arrays = {name: np.asarray(value) for name, value in compute().items()}
    bad = [name for name in arrays if name.startswith("__") or arrays[name].dtype == object]
    if bad:
        raise ValueError(f"cannot cache arrays {bad}: names may not start with '__', no objects")
    _write(path, namespace, key, arrays)
    return arrays


def is_cached(namespace: str, config: Any) -> bool:
    """Whether an entry for ``config`` exists (it may still turn out corrupt when read)."""
    return _entry_path(namespace, cache_key(namespace, config)).exists()


def _entries(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.npz") if not p.name.startswith(".tmp-"))


def cache_usage() -> dict[str, tuple[int, int]]:
    """(entries, bytes) per study, i.e. per first part of the namespace, in the cache folder."""
    root, usage = cache_dir(), {}
    for path in _entries(root):
        study = path.relative_to(root).parts[0]
        count, size = usage.get(study, (0, 0))
        usage[study] = (count + 1, size + path.lstat().st_size)  # lstat: a dangling link counts, as a link
    return usage


def _outdated(path: Path, root: Path) -> bool:
    """Whether the entry at ``path`` is corrupt, has no fingerprint, or another than its study's today."""
    try:
        header = _read(path)[0]
    except CORRUPT:
        return True
    except OSError as err:
        raise _unreadable(path, err) from None
    namespace = path.parent.relative_to(root).as_posix()
    return header.get("lib") != library_fingerprint(_study_of(namespace))


def _older_than(path: Path, seconds: float) -> bool:
    try:
        return time.time() - path.stat().st_mtime > seconds
    except FileNotFoundError:  # a running write renamed it into place
        return False


def prune(tmp_age: float = 3600.0) -> list[Path]:
    """Delete the entries no run can reach any more (written by other library code than their study's
    today, with no fingerprint in their header, or corrupt) and the temporary files older than
    ``tmp_age`` seconds (left by a killed run). Returns the deleted paths."""
    root = cache_dir()
    stale = [p for p in _entries(root) if _outdated(p, root)]
    stale += [p for p in sorted(root.rglob(".tmp-*")) if _older_than(p, tmp_age)]
    for path in stale:
        path.unlink(missing_ok=True)
    return stale
