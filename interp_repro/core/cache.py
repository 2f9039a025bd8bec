"""On-disk results cache keyed by a hash of (namespace, config, library fingerprint).

The namespace starts with the study's name (``superposition/intro``), so the fingerprint covers
that study's code and the shared code only.

Entries are ``.npz`` files of NumPy arrays plus a JSON header (no pickles) that names the key, the
namespace, the library fingerprint that wrote it, its arrays with a CRC-32 checksum of each, and
those of them that may hold NaN or infinity by design. Writes go to a temporary file that is renamed
into place, so a reader never sees half an entry. :func:`cached` stores no empty result and no NaN or
infinity outside the arrays its caller declares (``nonfinite``): it raises ``ValueError`` and writes
nothing.

Every reader (:func:`cached`, :func:`prune`, :func:`install`, :func:`cache_usage`) goes through
:func:`read_entry`, so all of them agree on what a valid entry is. Anything else (not a zip, a lone
``.npy``, truncated, a header that is no JSON object of the right fields or does not match the entry's
key, a missing array, an array that does not match its checksum, an array of objects, NaN or
infinity in an undeclared array) is a
:class:`CorruptEntry`: :func:`cached` deletes it and recomputes with a warning, :func:`prune` deletes
it, :func:`cache_usage` counts it. An entry this process may not open raises :class:`ConfigError` and
is left alone. :func:`prune` also deletes the entries older library code wrote (no run can reach them
any more) and stale temporary files; the claim records live elsewhere (``core.records``), so pruning or
deleting the cache folder never loses them.

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
import zlib
from collections.abc import Callable, Collection, Iterator, Mapping
from contextlib import contextmanager
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import IO, Any, NamedTuple

import numpy as np

from interp_repro.core.device import cpu_threads
from interp_repro.core.errors import ConfigError
from interp_repro.core.units import Arrays
from interp_repro.core.validate import check_writable_dir, env_path

CACHE_ENV = "INTERP_REPRO_CACHE"
DEPENDENCIES = ("torch", "numpy", "scipy")
"""Libraries whose versions are part of the fingerprint: they change numbers."""
CORRUPT = (ValueError, KeyError, EOFError, OSError, zipfile.BadZipFile, zlib.error, NotImplementedError)
"""What parsing the bytes of an opened entry raises when they are damaged (an ``OSError`` too: a
damaged zip directory asks for a seek outside the file); an ``OSError`` on opening it is a problem of
access, not of the entry."""
log = logging.getLogger(__name__)

_state = threading.local()  # per thread: a Dask worker may run several jobs at once


class CorruptEntry(ValueError):
    """An entry that is not the valid entry of its key; the message (one line) names the file and what
    is wrong with it. Every reader treats it alike: deleted (and, by :func:`cached`, recomputed)."""

    def __init__(self, path: Path, problem: str):
        super().__init__(f"corrupt cache entry {path}: {problem}")
        self.problem = problem


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


UNCACHED = ("plots.py", "interactive.py", "external.py")
"""Modules whose results the cache never keeps: the figures, which only draw cached arrays, and the
analysis of a network the user brings (``<study>/external.py``, ``core/external.py``). Editing them
keeps every cached result."""


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

    The modules of :data:`UNCACHED` are left out: nothing they compute is cached.
    Editing that code changes the fingerprint, so cached results and recorded claims never outlive
    the code that made them, while editing one study, a shared module another study does not use,
    or a figure leaves the other caches valid. A new torch, NumPy or SciPy changes every fingerprint.
    """
    from interp_repro import __version__

    files = [path for path in study_sources(study) if path.name not in UNCACHED]
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


def _nonfinite_count(array: np.ndarray) -> int:
    """How many NaN or infinite values ``array`` holds (0 for an array of integers, bools or text)."""
    return int(np.count_nonzero(~np.isfinite(array))) if array.dtype.kind in "fc" else 0


def _checksum(array: np.ndarray) -> int:
    """CRC-32 of an array's dtype, shape and bytes, which the header records: a reader tells an entry
    whose arrays changed after it was written (a bit flipped on disk, an array swapped for another)."""
    layout = zlib.crc32(f"{array.dtype.str}{array.shape}".encode())
    return zlib.crc32(np.ascontiguousarray(array).tobytes(), layout)


def _names(value: Any) -> bool:
    """Whether ``value`` is a list of array names (strings not starting with ``__``)."""
    return isinstance(value, list) and all(isinstance(n, str) and not n.startswith("__") for n in value)


def _header_problem(header: Any, files: list[str], namespace: str, key: str) -> str | None:
    """What is wrong with an entry's parsed ``__header__`` (``files``: the arrays the archive holds),
    or None if it is the header of ``key`` under ``namespace``."""
    if not isinstance(header, dict):
        return f"its __header__ is a JSON {type(header).__name__}, not an object"
    if not all(isinstance(header.get(field), str) for field in ("key", "ns", "lib")):
        return "its __header__ lacks one of the strings key, ns, lib"
    if not _names(header.get("arrays")) or not _names(header.get("nonfinite", [])):
        return "its __header__'s arrays (or nonfinite) is not a list of array names"
    if header["key"] != key or header["ns"] != namespace:
        return f"its __header__ names {header['ns']}/{header['key']}, not {namespace}/{key}"
    missing = [name for name in header["arrays"] if name not in files]
    if missing:
        return f"the arrays {missing} its __header__ lists are missing"
    if not set(header.get("nonfinite", [])) <= set(header["arrays"]):
        return "its __header__'s nonfinite names arrays it does not list"
    crc = header.get("crc32")
    if not isinstance(crc, dict) or set(crc) != set(header["arrays"]) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in crc.values()):
        return "its __header__ lacks a crc32 checksum of each of its arrays"
    return None


def _parse(path: Path, file: IO[bytes], namespace: str, key: str) -> tuple[dict[str, Any], Arrays]:
    """The header and arrays in the opened entry ``file``; :class:`CorruptEntry` for anything it finds
    wrong, one of :data:`CORRUPT` where NumPy or zipfile cannot read the bytes."""
    if not file.read(6).startswith((b"PK\x03\x04", b"\x93NUMPY")):  # else NumPy would suggest unpickling
        raise CorruptEntry(path, "it is no npz archive (nor a .npy file)")
    file.seek(0)
    data = np.load(file, allow_pickle=False)
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise CorruptEntry(path, f"it holds a lone {data.dtype} array (a .npy file), not an npz archive")
    with data:
        raw = data["__header__"] if "__header__" in data.files else np.array(None)
        if raw.dtype.kind != "U" or raw.ndim:
            raise CorruptEntry(path, "it has no __header__ string")
        header = json.loads(raw.item())
        problem = _header_problem(header, data.files, namespace, key)
        if problem:
            raise CorruptEntry(path, problem)
        arrays = {name: data[name] for name in header["arrays"]}
    allowed = set(header.get("nonfinite", []))
    for name, array in arrays.items():
        if _checksum(array) != header["crc32"][name]:
            raise CorruptEntry(path, f"its array {name!r} does not match the checksum written with it")
        bad = 0 if name in allowed else _nonfinite_count(array)
        if bad:
            raise CorruptEntry(path, f"its array {name!r} holds {bad} NaN or infinite values, undeclared")
    return header, arrays


def read_entry(path: Path, namespace: str, key: str) -> tuple[dict[str, Any], Arrays]:
    """The header and arrays of the entry at ``path``, which must be the valid entry of ``key`` under
    ``namespace``: an npz archive (no pickles, no objects) whose ``__header__`` is a JSON object with
    the strings ``key``, ``ns`` (these two matching), ``lib``, and ``arrays`` (and optionally
    ``nonfinite``) a list of names of arrays it holds, ``crc32`` the checksum of each, NaN or infinity
    only in those ``nonfinite`` names. Anything else raises :class:`CorruptEntry` (a missing file too:
    a dangling link, or an entry deleted meanwhile); an entry this process may not open raises
    :class:`ConfigError`."""
    try:
        file = open(path, "rb")  # an error here is one of access; one while parsing, of the bytes
    except FileNotFoundError:
        raise CorruptEntry(path, "the file is missing (a dangling link?)") from None
    except OSError as err:
        raise ConfigError(f"cannot read cache entry {path} ({err.strerror or err}): fix its permissions "
                          "or delete it") from None
    with file:
        try:
            return _parse(path, file, namespace, key)
        except CorruptEntry:
            raise
        except CORRUPT as err:
            raise CorruptEntry(path, " ".join(f"{type(err).__name__}: {err}".split())) from None


def _write(path: Path, namespace: str, key: str, arrays: Arrays, nonfinite: Collection[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    header = json.dumps({"key": key, "ns": namespace, "lib": library_fingerprint(_study_of(namespace)),
                         "arrays": sorted(arrays), "nonfinite": sorted(set(nonfinite) & set(arrays)),
                         "crc32": {name: _checksum(array) for name, array in arrays.items()}})
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

    The bytes must be the valid entry (:func:`read_entry`) its path names, else ``ValueError``."""
    parts = relative.split("/")
    key = parts[-1].removesuffix(".npz")
    if len(parts) < 2 or not re.fullmatch(r"[0-9a-f]{24}\.npz", parts[-1]):
        raise ValueError(f"not a cache entry path: {relative!r}")
    namespace = "/".join(parts[:-1])
    path = _entry_path(namespace, key)
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".npz")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        read_entry(Path(tmp), namespace, key)
        os.replace(tmp, path)
    except CorruptEntry as err:
        Path(tmp).unlink(missing_ok=True)
        raise ValueError(f"received cache entry {relative!r} is not valid: {err.problem}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _check_storable(namespace: str, arrays: Arrays, nonfinite: Collection[str]) -> None:
    """``ValueError`` (one line) unless ``arrays`` may be stored: at least one array, no name starting
    with ``__``, no objects, NaN or infinity only in the arrays named in ``nonfinite``."""
    if isinstance(nonfinite, str):
        raise TypeError(f"{namespace}: nonfinite names arrays in a collection, not the string {nonfinite!r}")
    if not arrays:
        raise ValueError(f"{namespace}: the computation returned no arrays; an empty result is not cached")
    bad = [name for name in arrays if name.startswith("__") or arrays[name].dtype == object]
    if bad:
        raise ValueError(f"{namespace}: cannot cache arrays {bad}: names may not start with '__', no objects")
    for name in sorted(set(arrays) - set(nonfinite)):
        count = _nonfinite_count(arrays[name])
        if count:
            raise ValueError(f"{namespace}: array {name!r} holds {count} NaN or infinite values of "
                             f"{arrays[name].size}; not cached (cached(..., nonfinite=...) declares the "
                             "arrays where they are meaningful)")


def cached(namespace: str, config: Any, compute: Callable[[], Arrays], *,
           nonfinite: Collection[str] = ()) -> Arrays:
    """Return ``compute()``'s arrays for ``config``, from the cache when a valid entry exists.

    ``compute`` must return a non-empty dict of NumPy arrays (names must not start with ``__``), finite
    but for the arrays named in ``nonfinite``, where the caller declares NaN or infinity meaningful;
    else ``ValueError`` and nothing is stored. It runs on one CPU thread (``core.device.cpu_threads``),
    so what it stores is the same whatever the machine's core count and however many workers share it.
    A corrupt entry (:class:`CorruptEntry`) is logged, deleted and recomputed; one that cannot be read
    (its permissions) raises :class:`ConfigError`.
    """
    key = cache_key(namespace, config)
    path = _entry_path(namespace, key)
    if path.exists():
        try:
            return read_entry(path, namespace, key)[1]
        except CorruptEntry as err:
            log.warning("discarding %s; recomputing", err)
            path.unlink(missing_ok=True)
    if getattr(_state, "probing", False):
        raise NotCached(f"{namespace}: {key}")
    with cpu_threads(1):
        arrays = {name: np.asarray(value) for name, value in compute().items()}
    _check_storable(namespace, arrays, nonfinite)
    _write(path, namespace, key, arrays, nonfinite)
    return arrays


def is_cached(namespace: str, config: Any) -> bool:
    """Whether an entry for ``config`` exists (it may still turn out corrupt when read)."""
    return _entry_path(namespace, cache_key(namespace, config)).exists()


def _entries(root: Path) -> list[Path]:
    """The entry files under ``root`` (not the temporary files of running writes, nor folders)."""
    return sorted(p for p in root.rglob("*.npz") if not p.name.startswith(".tmp-") and not p.is_dir())


def _header(path: Path, root: Path) -> dict[str, Any] | None:
    """The header of the entry at ``path`` under the cache folder ``root``, None if it is corrupt;
    :class:`ConfigError` if it cannot be opened."""
    try:
        return read_entry(path, path.parent.relative_to(root).as_posix(), path.stem)[0]
    except CorruptEntry:
        return None


class Usage(NamedTuple):
    """What a study holds in the cache folder."""

    entries: int
    bytes: int
    corrupt: int
    """How many of the entries are corrupt (:class:`CorruptEntry`): :func:`prune` deletes them."""


def cache_usage() -> dict[str, Usage]:
    """Entries, bytes and corrupt entries per study, i.e. per first part of the namespace, in the cache
    folder; :class:`ConfigError` if an entry cannot be opened."""
    root, usage = cache_dir(), {}
    for path in _entries(root):
        study = path.relative_to(root).parts[0]
        count, size, corrupt = usage.get(study, Usage(0, 0, 0))
        size += path.lstat().st_size  # lstat: a dangling link counts, as a link
        usage[study] = Usage(count + 1, size, corrupt + (_header(path, root) is None))
    return usage


def _outdated(path: Path, root: Path) -> bool:
    """Whether the entry at ``path`` is corrupt or was written by other library code than its study's
    today."""
    header = _header(path, root)
    return header is None or header["lib"] != library_fingerprint(_study_of(header["ns"]))


def _older_than(path: Path, seconds: float) -> bool:
    try:
        return time.time() - path.stat().st_mtime > seconds
    except FileNotFoundError:  # a running write renamed it into place
        return False


def prune(tmp_age: float = 3600.0) -> list[Path]:
    """Delete the entries no run can reach any more (written by other library code than their study's
    today, or corrupt) and the temporary files older than ``tmp_age`` seconds (left by a killed run).
    Returns the deleted paths; :class:`ConfigError` (nothing deleted) if an entry cannot be opened."""
    root = cache_dir()
    stale = [p for p in _entries(root) if _outdated(p, root)]
    stale += [p for p in sorted(root.rglob(".tmp-*")) if _older_than(p, tmp_age)]
    for path in stale:
        path.unlink(missing_ok=True)
    return stale
