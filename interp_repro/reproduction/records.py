"""Recording headline numbers: glued into the book and appended to a JSON record of the run.

The record file is ``$INTERP_REPRO_RECORD`` or ``$XDG_STATE_HOME/interp-repro/records.json``
(``~/.local/state/interp-repro/records.json``): outside the results cache, so pruning or deleting the
cache keeps the records. It maps scale -> claim id -> {value, recorded_at, lib}, and for a value over
seeds, networks or clusters its ``estimate`` (``core.estimate.Estimate.as_dict``: the samples, the
interval and its level). Runs that record at
the same time take turns (a lock file next to it). The notebook checks point each chapter at a file of
its own; the book's Reproduction page and ``interp-repro report`` read the default one.
"""

import fcntl
import json
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from interp_repro.core.cache import CACHE_ENV, library_fingerprint
from interp_repro.core.errors import ConfigError
from interp_repro.core.estimate import Estimate
from interp_repro.core.scales import check_scale
from interp_repro.core.validate import check_writable_dir, env_path, is_finite_number
from interp_repro.reproduction.claims import Claim, Value, load_claims, load_not_reproduced, study_claims

RECORD_ENV = "INTERP_REPRO_RECORD"


def record_path() -> Path:
    """Where :func:`record` writes: ``$INTERP_REPRO_RECORD``, else ``records.json`` in
    ``$XDG_STATE_HOME/interp-repro`` (default ``~/.local/state/interp-repro``)."""
    if path := env_path(RECORD_ENV):
        return path
    state = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(state) / "interp-repro" / "records.json"


def resolve_env_paths() -> None:
    """Make a relative ``$INTERP_REPRO_CACHE`` or ``$INTERP_REPRO_RECORD`` absolute (against the current
    folder), so that processes started elsewhere, such as a chapter's kernel, use the same paths."""
    for name in (CACHE_ENV, RECORD_ENV):
        if path := env_path(name):
            os.environ[name] = str(path.expanduser().absolute())


def check_record_path() -> Path:
    """The record file; :class:`ConfigError` unless it can be read and written and holds records of the
    right shape (checked before a run)."""
    path = record_path()
    check_writable_dir(f"the folder of the record file (${RECORD_ENV})", path.parent)
    for what, file in (("the record file", path), ("the record file's lock", _lock_path(path))):
        if file.is_dir():
            raise ConfigError(f"{what} (${RECORD_ENV}) {file} is a folder")
        if file.exists() and not os.access(file, os.R_OK | os.W_OK):
            raise ConfigError(f"{what} (${RECORD_ENV}) {file} cannot be read and written: fix its "
                              "permissions")
    load_records(path)
    return path


def _lock_path(path: Path) -> Path:
    """The lock file beside the record file ``path``, which runs that record at the same time take
    turns on."""
    return path.with_name(path.name + ".lock")


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def load_records(path: Path | None = None) -> dict[str, dict[str, dict]]:
    """The record file as {scale: {claim_id: entry}}; empty if there is none yet. The one reader of
    that file, which every command uses: :class:`ConfigError` (one line, naming the file and what is
    wrong) unless the whole file has that shape: each entry an object with ``recorded_at`` and ``lib``
    as text, a ``value`` of its claim's type (a bool for a yes/no claim, else a finite number:
    ``Claim.checked``) and, if any, an ``estimate`` whose statistic of its samples is ``value``."""
    path = path or record_path()
    if not path.exists():
        return {}
    fix = "delete it and rerun"
    try:
        data = json.loads(path.read_text(encoding="utf-8"), parse_constant=_refuse_constant)
    except (ValueError, UnicodeDecodeError) as err:  # JSONDecodeError is a ValueError
        raise ConfigError(f"record file {path} is not valid JSON ({err}); {fix}") from None
    except RecursionError:
        raise ConfigError(f"record file {path} is nested deeper than a record file is; {fix}") from None
    except OSError as err:
        raise ConfigError(f"cannot read record file {path} ({err.strerror or err})") from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ConfigError(f"record file {path} should hold an object keyed by scale, each an object keyed "
                          f"by claim id; {fix}")
    claims = load_claims()
    for scale, entries in data.items():
        for claim_id, entry in entries.items():
            try:
                _check_entry(claims.get(claim_id), entry)
            except ValueError as err:
                raise ConfigError(f"record file {path}: the entry of {claim_id} at {scale}: {err}; "
                                  f"{fix}") from None
    return data


def _check_entry(claim: Claim | None, entry: object) -> None:
    """``ValueError`` unless ``entry`` is a record entry of ``claim`` (None: a claim the registry no
    longer has, whose value need only be a bool or a finite number)."""
    if not (isinstance(entry, dict) and isinstance(entry.get("recorded_at"), str)
            and isinstance(entry.get("lib"), str) and "value" in entry):
        raise ValueError(f"an entry is an object with a value, recorded_at and lib, got {entry!r:.60}")
    value = entry["value"]
    if claim is not None:
        value = claim.checked(value)
    elif not _is_value(value):
        raise ValueError(f"a value is a bool or a finite number, got {value!r:.40}")
    if "estimate" in entry:
        Estimate.from_dict(value, entry["estimate"])


def entry_estimate(entry: dict) -> Estimate | None:
    """The estimate stored in a record entry (checked by :func:`load_records`), or None."""
    return Estimate.from_dict(entry["value"], entry["estimate"]) if "estimate" in entry else None


def _is_value(value: object) -> bool:
    """True for a value as stored: a bool, or a finite int or float (one a float can hold)."""
    return isinstance(value, bool) or is_finite_number(value)


def _plain(name: str, value: Value) -> Value:
    if hasattr(value, "item"):  # NumPy / torch scalars
        value = value.item()
    if not isinstance(value, bool | int | float):
        raise TypeError(f"{name}: a claim value must be a number or a bool, got {type(value).__name__}")
    if not _is_value(value):
        raise ValueError(f"{name}: a claim value must be finite, got {value!r}")
    return value


def record(claim_id: str, value: Value | Estimate, scale: str) -> Value:
    """Record ``value`` for ``claim_id`` at ``scale``: glue it into the book and the JSON record. An
    :class:`Estimate` is recorded with its samples and interval, which decide its status.

    Inside a notebook the value is glued with myst-nb under the name ``claim_id`` (undisplayed), so
    the text can quote it with ``{glue:text}``, and its measured status (see :func:`glue_papers`) as
    ``<claim_id>.status`` for ``{glue:md}``. Returns the plain value.
    """
    check_scale(scale)
    claims = load_claims()
    if claim_id not in claims:
        raise KeyError(f"unknown claim {claim_id!r}: add it to interp_repro/reproduction/claims.toml first")
    claim = claims[claim_id]
    estimate = value if isinstance(value, Estimate) else None
    value = claim.checked(value.value if estimate else value)
    status = claim.status(value, estimate and estimate.interval)  # refuses what has no status
    entry = {"value": value, "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
             "lib": library_fingerprint(claim.study)}
    if estimate:
        entry["estimate"] = estimate.as_dict()
    _check_entry(claim, entry)  # what load_records will accept, checked before anything is written
    _glue(claim_id, value)
    _glue(f"{claim_id}.status", status, markdown=True)
    path = record_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(_lock_path(path), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        data = load_records(path)
        data.setdefault(scale, {})[claim_id] = entry
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(data, f, indent=1, sort_keys=True, allow_nan=False)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    return value


def glue_papers(study: str) -> None:
    """Glue what the paper states for each of ``study``'s claims, and for its results that are not
    reproduced here, as ``<id>.paper`` (for ``{glue:md}``), read from ``claims.toml``: a chapter
    quotes the paper's numbers without typing them."""
    for claim in study_claims(study):
        _glue(f"{claim.id}.paper", claim.paper, markdown=True)
    for entry in load_not_reproduced():
        if entry.study == study:
            _glue(f"{entry.id}.paper", entry.paper, markdown=True)


def glue_values(values: Mapping[str, Value | str]) -> dict[str, Value | str]:
    """Glue what a chapter measured but does not record as a claim under its name: numbers (e.g.
    levels that a paper's do not compare with) for ``{glue:text}``, text (a sentence that depends on
    the run) as Markdown for ``{glue:md}``; returns them as plain values."""
    plain = {name: v if isinstance(v, str) else _plain(name, v) for name, v in values.items()}
    for name, value in plain.items():
        _glue(name, value, markdown=isinstance(value, str))
    return plain


def _glue(name: str, value: Value | str, markdown: bool = False) -> None:
    """Glue ``value`` under ``name`` when running in a notebook with myst-nb, as the book build does (as
    Markdown for ``{glue:md}``); a launched notebook (Colab, a JupyterHub) has no use for glue nor myst-nb."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    if get_ipython() is None:
        return
    try:
        from myst_nb import glue
    except ImportError:
        return
    from IPython.display import Markdown

    glue(name, Markdown(str(value)) if markdown else value, display=False)
