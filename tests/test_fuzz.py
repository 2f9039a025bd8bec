"""A fuzzer (hypothesis) of everything a user hands the library: record files, cache entries, claims
files, configs and measures' inputs. Each case is a structured mutation of a valid one (a value of
another type, a number out of range, NaN, a huge integer, a key missing or added, deep nesting, another
encoding, a truncation) or random bytes, and goes through every command that reads it: none may end in
a traceback, and each exits 0, 1 (a claim failed) or 2 (a bad file or setting, in one line). Configs
and measures refuse what they cannot use with one ``ValueError``. Derandomised, so a run is
repeatable, and bounded to well under a minute."""

import dataclasses
import io
import json
import math
import os
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from test_bad_values import _configs

import interp_repro.cli as cli
import interp_repro.reproduction.claims as claims_mod
from interp_repro.abstraction import measures as am
from interp_repro.cli import main
from interp_repro.core import Estimate, cache_dir, cached
from interp_repro.modular_addition import measures as ma
from interp_repro.reproduction.claims import load_claims
from interp_repro.schur_rnn import measures as sm
from interp_repro.superposition import measures as sp

FUZZ = settings(max_examples=100, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

HOSTILE = st.one_of(
    st.just(math.nan), st.just(math.inf), st.just(-math.inf), st.just(10**400), st.just(-(10**30)),
    st.booleans(), st.none(), st.text(max_size=5), st.integers(), st.floats(),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.just([[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]),
)
"""Values of every JSON type, and of none, to put where a valid value was."""


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("INTERP_REPRO_RECORD", str(tmp_path / "records.json"))
    for name in ("INTERP_REPRO_SCALE", "INTERP_REPRO_WORKERS", "INTERP_REPRO_DASK", "INTERP_REPRO_QUIET"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(cli, "fill_cache", lambda scale, studies: {})  # `run` reads, trains nothing
    monkeypatch.setattr(cli, "run_all", lambda scale, study: {})


def _exit(argv: list[str], capsys) -> int:
    """``main(argv)``'s exit status (a usage error's SystemExit included); a traceback fails the test,
    and so does an error that is not one line, or that follows output."""
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = exit_.code
    out, err = capsys.readouterr()
    assert status in (0, 1, 2), (argv, status, err)
    if status == 2:  # one line, and nothing printed before it
        assert err.count("\n") == 1 and err.startswith("interp-repro: error: ") and not out, (out, err)
    return status


def _mutate(data, draw, depth: int = 0):
    """``data`` with one place changed: a value replaced, a key removed or added, or nested deeper."""
    if isinstance(data, dict) and data and depth < 6:
        key = draw(st.sampled_from(sorted(data)))
        action = draw(st.sampled_from(["into", "replace", "remove", "add"]))
        if action == "into":
            return {**data, key: _mutate(data[key], draw, depth + 1)}
        if action == "replace":
            return {**data, key: draw(HOSTILE)}
        if action == "remove":
            return {k: v for k, v in data.items() if k != key}
        return {**data, draw(st.text(max_size=8)): draw(HOSTILE)}
    if isinstance(data, list) and data and depth < 6:
        i = draw(st.integers(0, len(data) - 1))
        return [*data[:i], _mutate(data[i], draw, depth + 1), *data[i + 1:]]
    return draw(HOSTILE)


def _encode(text: str, draw) -> bytes:
    """``text`` in some encoding, maybe truncated."""
    raw = text.encode(draw(st.sampled_from(["utf-8", "utf-16", "latin-1"])), errors="replace")
    return raw[:draw(st.integers(0, len(raw)))] if draw(st.booleans()) else raw


# --- record files -----------------------------------------------------------------------------


def _valid_records() -> dict:
    claims = load_claims()
    number = claims["superposition.five_two_dense_count"]
    yes_no = next(c for c in claims.values() if c.boolean)
    share = Estimate.share([True, False, True], "seeds")
    entry = {"recorded_at": "2026-01-01T00:00:00", "lib": "x"}
    return {"ci": {number.id: {"value": 2, **entry}, yes_no.id: {"value": True, **entry},
                   "superposition.dims_near_fractions": {"value": share.value, "estimate": share.as_dict(),
                                                          **entry}}}


RECORD_COMMANDS = (["report", "--scale", "ci"], ["report", "--scale", "ci", "--json"],
                   ["run", "superposition", "--scale", "ci"], ["list"])


@FUZZ
@given(data=st.data())
def test_record_files_never_end_in_a_traceback(data, tmp_path, capsys):
    if data.draw(st.booleans()):
        raw = _encode(json.dumps(_mutate(_valid_records(), data.draw)), data.draw)
    else:
        raw = data.draw(st.binary(max_size=200))
    (tmp_path / "records.json").write_bytes(raw)
    for argv in RECORD_COMMANDS:
        _exit(argv, capsys)


# --- cache entries ----------------------------------------------------------------------------

NAMESPACE = "tests/fuzz"


def _compute() -> dict[str, np.ndarray]:
    return {"x": np.arange(3.0), "y": np.ones((2, 2), dtype=np.int64)}


def _npz(header, arrays: dict) -> bytes:
    out = io.BytesIO()
    np.savez(out, __header__=np.array(json.dumps(header)), **arrays)
    return out.getvalue()


@FUZZ
@given(data=st.data())
def test_cache_entries_never_end_in_a_traceback(data, capsys):
    with tempfile.TemporaryDirectory() as folder:  # each case starts from one valid entry
        os.environ["INTERP_REPRO_CACHE"] = folder  # the fixture restores the variable after the test
        _damage_and_read(data, capsys)


def _damage_and_read(data, capsys) -> None:
    cached(NAMESPACE, {"n": 1}, _compute)
    [path] = sorted((cache_dir() / NAMESPACE).glob("*.npz"))
    with np.load(path) as entry:
        header = json.loads(str(entry["__header__"]))
        arrays = {name: entry[name] for name in header["arrays"]}
    how = data.draw(st.sampled_from(["header", "arrays", "bytes", "truncate"]))
    if how == "header":
        path.write_bytes(_npz(_mutate(header, data.draw), arrays))
    elif how == "arrays":
        name = data.draw(st.sampled_from(sorted(arrays)))
        bad = data.draw(st.sampled_from([np.array([math.nan]), np.array([], dtype=float), np.array(["s"]),
                                         np.array([math.inf, 1.0]), np.zeros((0, 3)), np.array(1 + 2j)]))
        path.write_bytes(_npz(header, {**arrays, name: bad}))
    elif how == "bytes":
        path.write_bytes(data.draw(st.binary(max_size=300)))
    else:
        raw = path.read_bytes()
        path.write_bytes(raw[:data.draw(st.integers(0, len(raw) - 1))])
    for argv in (["cache", "--size"], ["cache", "--prune"]):
        assert _exit(argv, capsys) in (0, 2)
    again = cached(NAMESPACE, {"n": 1}, _compute)  # whatever was there: read back whole, or recomputed
    assert all(np.array_equal(again[k], v) for k, v in _compute().items())


# --- claims files -----------------------------------------------------------------------------

CLAIMS = {"claims": [{
    "id": "superposition.toy", "study": "superposition", "kind": "reproduction", "statement": "A claim.",
    "source": "§1", "paper": "0.9", "paper_value": 0.9,
    "band": {"min": 0.8, "max": 1.0, "reason": "the paper's precision"},
    "expected": {"ci": "reproduced", "book": "reproduced"}, "skip": {"paper": "no power"},
    "guard": {"ci": {"min": 0.5, "reason": "drift"}}}],
    "not_reproduced": [{"id": "superposition.other", "study": "superposition", "statement": "S.",
                        "source": "§2", "paper": "1", "why": "a model we cannot run"}]}


def _toml(value) -> str:
    """``value`` as a TOML value, or as text TOML cannot read (None, a huge integer): what a hand edit
    might leave."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) \
            else repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"
    return str(value)


def _claims_text(data: dict) -> str:
    lines = []
    for table, value in data.items():
        if isinstance(value, list) and all(isinstance(v, dict) for v in value):
            for item in value:
                lines += [f"[[{table}]]", *(f"{json.dumps(k)} = {_toml(v)}" for k, v in item.items())]
        else:
            lines.append(f"{json.dumps(table)} = {_toml(value)}")
    return "\n".join(lines) + "\n"


@FUZZ
@given(data=st.data())
def test_claims_files_never_end_in_a_traceback(data, tmp_path, monkeypatch, capsys):
    if data.draw(st.booleans()):
        raw = _encode(_claims_text(_mutate(CLAIMS, data.draw)), data.draw)
    else:
        raw = data.draw(st.binary(max_size=200))
    path = tmp_path / "claims.toml"
    path.write_bytes(raw)
    monkeypatch.setattr(claims_mod, "CLAIMS_FILE", path)
    load_claims.cache_clear()
    try:
        for argv in (["report", "--scale", "ci"], ["run", "superposition", "--scale", "ci"]):
            _exit(argv, capsys)
    finally:
        load_claims.cache_clear()


# --- configs and measures ---------------------------------------------------------------------

CONFIGS = _configs()


@FUZZ
@given(data=st.data())
def test_configs_take_their_types_or_refuse_in_one_line(data):
    config = data.draw(st.sampled_from(CONFIGS))
    field = data.draw(st.sampled_from([f.name for f in dataclasses.fields(config)]))
    value = data.draw(st.one_of(HOSTILE, st.complex_numbers(), st.tuples(HOSTILE), st.just(())))
    try:
        dataclasses.replace(config, **{field: value})
    except ValueError as err:
        assert "\n" not in str(err) and field in str(err), err


SPECIAL = st.sampled_from([math.nan, math.inf, -math.inf])
ELEMENTS = [(np.float64, st.floats(-1e6, 1e6) | SPECIAL), (np.float32, st.floats(-1e3, 1e3)),
            (np.int64, st.integers(-1000, 1000)), (np.bool_, st.booleans()),
            (np.complex128, st.complex_numbers(max_magnitude=1e3))]
ARRAYS = st.one_of(
    *(hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5), elements=elements)
      for dtype, elements in ELEMENTS),
    st.just(np.array(["a", "b"])), st.just(np.array([None, 1.0], dtype=object)),
)
"""Measures' inputs: real, integer, boolean and complex arrays of every rank up to 3, empty ones, NaN and
infinity among moderate values, text and objects."""
MEASURES = {
    "superposition.feature_dimensionality": sp.feature_dimensionality,
    "superposition.dimensions_per_feature": sp.dimensions_per_feature,
    "superposition.squared_frobenius": sp.squared_frobenius,
    "superposition.represented": sp.represented,
    "superposition.nearest_fraction_share": sp.nearest_fraction_share,
    "superposition.clustering_over_chance": sp.clustering_over_chance,
    "modular_addition.linear_cka": lambda x: ma.linear_cka(x, x[::-1] if x.ndim else x),
    "abstraction.perfectly_abstract": lambda x: am.perfectly_abstract(x, 0.05),
    "abstraction.depth_profile_deviation": am.depth_profile_deviation,
    "schur_rnn.every_seed_learned": sm.every_seed_learned,
    "schur_rnn.cc_pairs_gap": sm.cc_pairs_gap,
    "schur_rnn.accuracy_drop": lambda x: sm.accuracy_drop(x, ["RR"]),
    "schur_rnn.cr_lowest": sm.cr_lowest,
    "schur_rnn.profile_holds": sm.profile_holds,
}


@FUZZ
@given(name=st.sampled_from(sorted(MEASURES)), x=ARRAYS)
def test_measures_give_a_finite_answer_or_refuse_in_one_line(name, x):
    try:
        out = MEASURES[name](x)
    except ValueError as err:
        assert "\n" not in str(err), err
        return
    values = np.asarray(out, dtype=float) if not isinstance(out, dict) else np.asarray(list(out.values()))
    assert np.isfinite(values).all(), (name, x, out)


def test_the_fuzzer_finds_a_traceback_where_there_is_one(tmp_path, capsys, monkeypatch):
    """The fuzzer can fail: a reader that crashes on a value is caught by ``_exit``."""
    monkeypatch.setattr(cli, "check_records", lambda *a, **k: 1 / 0)
    (tmp_path / "records.json").write_text(json.dumps(_valid_records()))
    with pytest.raises(ZeroDivisionError):
        _exit(["report", "--scale", "ci"], capsys)


def test_a_nan_measure_answer_is_caught(monkeypatch):
    """And a measure that answers NaN is caught by the measure test's check."""
    monkeypatch.setitem(MEASURES, "superposition.squared_frobenius", lambda x: math.nan)
    with pytest.raises(AssertionError):
        test_measures_give_a_finite_answer_or_refuse_in_one_line()
