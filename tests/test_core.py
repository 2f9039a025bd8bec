"""Unit tests for interp_repro.core: scales, validation, seeding, devices, cache and records."""

import dataclasses
import json
import logging
import os
import re
import time
from pathlib import Path

import numpy as np
import pytest
import torch

import interp_repro.core.cache as cache_mod
from interp_repro.core.cache import cache_dir, cache_key, cached, is_cached, library_fingerprint
from interp_repro.core.device import cpu_threads, default_device, select_device
from interp_repro.core.errors import ConfigError
from interp_repro.core.flops import StepMeter, tally
from interp_repro.core.progress import progress
from interp_repro.core.scales import SCALE_ENV, SCALES, check_scale, default_scale
from interp_repro.core.seeding import numpy_rng, torch_generator
from interp_repro.core.validate import check_fraction, check_positive_int
from interp_repro.reproduction.claims import load_claims
from interp_repro.reproduction.records import load_records, record, record_path
from interp_repro.reproduction.report import record_all


@pytest.fixture(autouse=True)
def isolated_env(tmp_path, monkeypatch):
    """Point the cache and the record file into tmp_path; no scale from the caller's shell."""
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("INTERP_REPRO_RECORD", str(tmp_path / "records.json"))
    monkeypatch.delenv(SCALE_ENV, raising=False)


@pytest.fixture
def claim_id():
    """A claim id record() accepts."""
    return next(iter(load_claims()))


# --- scales -----------------------------------------------------------------------------------


def test_every_config_has_a_preset_for_every_scale():
    from interp_repro.core.presets import Preset
    from interp_repro.studies import REGISTRY, STUDIES

    for study in REGISTRY:
        study.experiments  # noqa: B018 (imports the module, which defines the study's configs)
    def every_subclass(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from every_subclass(sub)

    configs = set(every_subclass(Preset))
    assert len(configs) >= len(STUDIES)
    for config in configs:
        assert set(config.PRESETS) == set(SCALES), config.__name__
        for scale in SCALES:
            assert isinstance(config.preset(check_scale(scale)), config)


def test_check_scale_rejects_unknown_naming_it_and_the_choices():
    with pytest.raises(ValueError) as err:
        check_scale("huge")
    assert "'huge'" in str(err.value)
    assert all(s in str(err.value) for s in SCALES)


def test_default_scale_is_book_without_env():
    assert default_scale() == "book"


def test_default_scale_reads_env(monkeypatch):
    monkeypatch.setenv(SCALE_ENV, "ci")
    assert default_scale() == "ci"


def test_default_scale_rejects_bad_env_naming_variable_and_value(monkeypatch):
    monkeypatch.setenv(SCALE_ENV, "huge")
    with pytest.raises(ValueError, match=rf"\${SCALE_ENV}.*'huge'"):
        default_scale()


# --- validate ---------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_check_positive_int_rejects(bad):
    with pytest.raises(ValueError, match=rf"n_features .*got {re.escape(repr(bad))}$"):
        check_positive_int("n_features", bad)


@pytest.mark.parametrize("good", [1, 7])
def test_check_positive_int_accepts(good):
    assert check_positive_int("n", good) == good


@pytest.mark.parametrize(("bad", "named"), [(0, "0"), (1.5, "1.5"), (-0.1, "-0.1"),
                                            ([0.5, 1.5], "1.5")])
def test_check_fraction_rejects(bad, named):
    with pytest.raises(ValueError, match=rf"sparsity .*got {re.escape(named)}$"):
        check_fraction("sparsity", bad)


@pytest.mark.parametrize("good", [1.0, 0.25, [0.1, 1.0], (0.5,), np.array([0.3, 0.7])])
def test_check_fraction_accepts(good):
    assert check_fraction("sparsity", good) is None


# --- seeding ----------------------------------------------------------------------------------


def test_same_seed_gives_same_draws():
    assert torch.equal(torch.rand(5, generator=torch_generator(3)),
                       torch.rand(5, generator=torch_generator(3)))
    np.testing.assert_array_equal(numpy_rng(3).random(5), numpy_rng(3).random(5))


def test_different_seeds_give_different_draws():
    assert not torch.equal(torch.rand(5, generator=torch_generator(3)),
                           torch.rand(5, generator=torch_generator(4)))
    assert not np.array_equal(numpy_rng(3).random(5), numpy_rng(4).random(5))


@pytest.mark.parametrize("make", [torch_generator, numpy_rng])
@pytest.mark.parametrize("bad", [-1, 1.5, "3", True, None])
def test_bad_seed_rejected(make, bad):
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        make(bad)


# --- device -----------------------------------------------------------------------------------


def test_cpu_threads_sets_and_restores_the_count():
    before = torch.get_num_threads()
    with cpu_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(RuntimeError), cpu_threads(1):
        raise RuntimeError("inside")
    assert torch.get_num_threads() == before
    with pytest.raises(ValueError, match="threads"), cpu_threads(0):
        pass


def test_a_cached_computation_runs_on_one_thread_in_torch_and_blas(tmp_path, monkeypatch):
    from threadpoolctl import threadpool_info

    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path))
    seen = {}

    def compute():
        seen["torch"] = torch.get_num_threads()
        seen["pools"] = {pool["num_threads"] for pool in threadpool_info()}
        return {"x": np.zeros(1)}

    with cpu_threads(2):
        cached("tests/threads", {"k": 1}, compute)
        assert torch.get_num_threads() == 2
    assert seen == {"torch": 1, "pools": {1}}


def test_select_device_cpu():
    assert select_device("cpu") == torch.device("cpu")
    assert select_device() == torch.device("cpu")


def test_default_device_reads_the_environment(monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_DEVICE", "cpu")
    monkeypatch.delenv("INTERP_REPRO_DEVICE")
    assert default_device() == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setenv("INTERP_REPRO_DEVICE", "auto")
    assert default_device() == "cpu"
    monkeypatch.setenv("INTERP_REPRO_DEVICE", "cuda")
    with pytest.raises(RuntimeError, match="no CUDA GPU"):
        default_device()
    monkeypatch.setenv("INTERP_REPRO_DEVICE", "tpu")
    with pytest.raises(ValueError, match="unknown device"):
        default_device()
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setenv("INTERP_REPRO_DEVICE", "auto")
    assert default_device() == "cuda"


def test_select_device_unknown_name():
    with pytest.raises(ValueError, match="'tpu'"):
        select_device("tpu")


def test_select_device_cuda_absent(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(RuntimeError, match="cuda"):
        select_device("cuda")


# --- progress ---------------------------------------------------------------------------------


def test_progress_yields_items_and_respects_quiet(monkeypatch):
    assert list(progress(range(3), "x", quiet=True)) == [0, 1, 2]
    monkeypatch.setenv("INTERP_REPRO_QUIET", "1")
    assert progress(range(3), "x").disable
    monkeypatch.setenv("INTERP_REPRO_QUIET", "0")
    assert not progress(range(3), "x").disable


# --- cache ------------------------------------------------------------------------------------


class Counter:
    """A compute function that counts its calls."""

    def __init__(self, arrays=None):
        self.calls = 0
        self.arrays = arrays if arrays is not None else {"w": np.arange(3.0)}

    def __call__(self):
        self.calls += 1
        return self.arrays


def entries(namespace="ns"):
    return sorted((cache_dir() / namespace).glob("*.npz"))


def test_cache_dir_follows_env(tmp_path):
    assert cache_dir() == tmp_path / "cache"


def test_cached_computes_once_then_hits():
    compute = Counter()
    assert not is_cached("ns", {"n": 3})
    first = cached("ns", {"n": 3}, compute)
    assert is_cached("ns", {"n": 3}) and not is_cached("ns", {"n": 4})
    second = cached("ns", {"n": 3}, compute)
    assert compute.calls == 1
    np.testing.assert_array_equal(second["w"], [0.0, 1.0, 2.0])
    assert second["w"].dtype == first["w"].dtype
    assert len(entries()) == 1


def test_cached_recomputes_for_other_config_or_namespace():
    compute = Counter()
    cached("ns", {"n": 3}, compute)
    cached("ns", {"n": 4}, compute)
    cached("other", {"n": 3}, compute)
    assert compute.calls == 3
    cached("other", {"n": 3}, compute)
    assert compute.calls == 3


@dataclasses.dataclass(frozen=True)
class Cfg:
    n: int
    sparsity: tuple[float, ...] = (0.1, 0.5)


@dataclasses.dataclass(frozen=True)
class OtherCfg:
    n: int
    sparsity: tuple[float, ...] = (0.1, 0.5)


def test_cached_accepts_dataclass_configs():
    compute = Counter()
    cached("ns", Cfg(3), compute)
    cached("ns", Cfg(3), compute)
    assert compute.calls == 1
    cached("ns", Cfg(3, sparsity=(0.2,)), compute)
    assert compute.calls == 2


def test_cache_key_tells_dataclass_types_apart():
    assert cache_key("ns", Cfg(3)) != cache_key("ns", OtherCfg(3))


@pytest.mark.parametrize("config", [{"f": object()}, {"s": {1, 2}}, np.zeros(2)])
def test_cached_rejects_unserialisable_config(config):
    compute = Counter()
    with pytest.raises(TypeError, match="cannot key the cache"):
        cached("ns", config, compute)
    assert compute.calls == 0


@pytest.mark.parametrize("damage", ["garbage", "truncate"])
def test_corrupt_entry_is_discarded_and_recomputed(damage, caplog):
    compute = Counter()
    cached("ns", {"n": 3}, compute)
    [path] = entries()
    if damage == "garbage":
        path.write_bytes(b"this is not an npz file" * 20)
    else:
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])

    with caplog.at_level(logging.WARNING, logger="interp_repro.core.cache"):
        out = cached("ns", {"n": 3}, compute)
    assert compute.calls == 2
    np.testing.assert_array_equal(out["w"], [0.0, 1.0, 2.0])
    assert "corrupt" in caplog.text and path.name in caplog.text

    assert entries() == [path]
    with np.load(path, allow_pickle=False) as data:
        np.testing.assert_array_equal(data["w"], [0.0, 1.0, 2.0])
    cached("ns", {"n": 3}, compute)
    assert compute.calls == 2


def test_an_unreadable_entry_is_a_clear_error_and_is_kept(monkeypatch):
    compute = Counter()
    cached("ns", {"n": 3}, compute)
    [path] = entries()

    def denied(file, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(file))

    monkeypatch.setattr(cache_mod, "open", denied, raising=False)  # the module's open(), not the builtin
    with pytest.raises(ConfigError, match=rf"cannot read cache entry {re.escape(str(path))} \(Permission"):
        cached("ns", {"n": 3}, compute)
    assert entries() == [path] and compute.calls == 1


def test_an_entry_names_its_namespace_and_fingerprint():
    cached("superposition/probe", {"n": 3}, Counter())
    [path] = entries("superposition/probe")
    with np.load(path, allow_pickle=False) as data:
        header = json.loads(str(data["__header__"]))
    assert header["ns"] == "superposition/probe"
    assert header["lib"] == library_fingerprint("superposition")


def test_prune_removes_what_no_run_reaches_and_keeps_the_rest(monkeypatch):
    compute = Counter()
    cached("ns", {"n": 1}, compute)
    [current] = entries()
    with monkeypatch.context() as m:
        m.setattr(cache_mod, "library_fingerprint", lambda study=None: "0.0.1+000000000000")
        cached("ns", {"n": 2}, compute)
    [old] = set(entries()) - {current}
    unmarked = cache_dir() / "ns" / f"{'0' * 24}.npz"
    np.savez(unmarked, __header__=np.array(json.dumps({"key": "0" * 24, "arrays": []})))
    stale, fresh = cache_dir() / "ns" / ".tmp-stale.npz", cache_dir() / "ns" / ".tmp-fresh.npz"
    stale.write_bytes(b"half")
    fresh.write_bytes(b"half")
    os.utime(stale, (time.time() - 7200, time.time() - 7200))

    assert sorted(cache_mod.prune()) == sorted([old, unmarked, stale])
    assert set(entries()) == {current, fresh}
    cached("ns", {"n": 1}, compute)
    assert compute.calls == 2  # the current entry still hits


def test_cache_usage_counts_entries_and_bytes_per_study():
    assert cache_mod.cache_usage() == {}
    cached("superposition/a", {"n": 1}, Counter())
    cached("superposition/b", {"n": 1}, Counter())
    cached("ns", {"n": 1}, Counter())
    sizes = {p.relative_to(cache_dir()).parts[0]: 0 for p in cache_dir().rglob("*.npz")}
    for p in cache_dir().rglob("*.npz"):
        sizes[p.relative_to(cache_dir()).parts[0]] += p.stat().st_size
    assert cache_mod.cache_usage() == {"superposition": (2, sizes["superposition"], 0),
                                       "ns": (1, sizes["ns"], 0)}  # (entries, bytes, corrupt)


@pytest.mark.parametrize("arrays", [{"__x": np.zeros(2)},
                                    {"ok": np.zeros(2), "obj": np.array([1, "a"], dtype=object)}])
def test_bad_arrays_rejected_and_nothing_written(arrays):
    cached("ns", {"n": 1}, Counter())  # a valid entry, so the folder exists
    before = sorted((cache_dir() / "ns").iterdir())
    with pytest.raises(ValueError, match="cannot cache arrays"):
        cached("ns", {"n": 2}, Counter(arrays))
    assert sorted((cache_dir() / "ns").iterdir()) == before
    assert len(before) == 1


def test_failed_write_leaves_no_temp_file(monkeypatch):
    def broken_savez(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", broken_savez)
    with pytest.raises(OSError, match="disk full"):
        cached("ns", {"n": 1}, Counter())
    assert list((cache_dir() / "ns").iterdir()) == []


def test_cache_key_changes_with_library_fingerprint(monkeypatch):
    compute = Counter()
    key = cache_key("ns", {"n": 3})
    cached("ns", {"n": 3}, compute)
    monkeypatch.setattr(cache_mod, "library_fingerprint", lambda study=None: "9.9+feedfacecafe")
    assert cache_key("ns", {"n": 3}) != key
    cached("ns", {"n": 3}, compute)
    assert compute.calls == 2


def test_fingerprint_covers_torch_numpy_and_scipy_versions(monkeypatch):
    library_fingerprint.cache_clear()
    before = library_fingerprint("superposition")
    real = cache_mod.version
    monkeypatch.setattr(cache_mod, "version", lambda name: "0.0.1" if name == "scipy" else real(name))
    library_fingerprint.cache_clear()
    try:
        assert library_fingerprint("superposition") != before
    finally:
        monkeypatch.undo()
        library_fingerprint.cache_clear()


def test_library_fingerprint_has_version_and_hash():
    from interp_repro import __version__

    version, digest = library_fingerprint().rsplit("+", 1)
    assert version == __version__
    assert re.fullmatch(r"[0-9a-f]{12}", digest)


# --- records ----------------------------------------------------------------------------------


def test_record_path_follows_env_then_xdg_state_outside_the_cache(tmp_path, monkeypatch):
    assert record_path() == tmp_path / "records.json"
    monkeypatch.delenv("INTERP_REPRO_RECORD")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert record_path() == tmp_path / "state" / "interp-repro" / "records.json"
    monkeypatch.delenv("XDG_STATE_HOME")
    assert record_path() == Path.home() / ".local" / "state" / "interp-repro" / "records.json"


def test_record_writes_value_under_scale_and_id(claim_id, tmp_path):
    assert record(claim_id, 0.75, "ci") == 0.75
    record(claim_id, 0.5, "book")
    data = json.loads((tmp_path / "records.json").read_text())
    assert data["ci"][claim_id]["value"] == 0.75
    assert data["book"][claim_id]["value"] == 0.5
    assert data["ci"][claim_id]["lib"] == library_fingerprint(claim_id.split(".")[0])
    assert "recorded_at" in data["ci"][claim_id]
    assert load_records() == data
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-")] == []


def test_record_all_records_each_pair(claim_id, tmp_path):
    assert record_all({claim_id: np.float64(0.25)}, "paper") == {claim_id: 0.25}
    assert load_records()["paper"][claim_id]["value"] == 0.25


def test_record_unknown_claim_raises_keyerror(claim_id, tmp_path):
    with pytest.raises(KeyError, match="superposition.no_such_claim"):
        record("superposition.no_such_claim", 1.0, "ci")
    assert not (tmp_path / "records.json").exists()


@pytest.mark.parametrize("bad", [float("nan"), np.float64("nan"), float("inf")])
def test_record_rejects_non_finite(claim_id, tmp_path, bad):
    with pytest.raises(ValueError, match="finite"):
        record(claim_id, bad, "ci")
    assert not (tmp_path / "records.json").exists()


@pytest.mark.parametrize("value", ["0.5", True, float("nan"), np.array([0.5, 0.6]), None])
def test_record_rejects_what_is_not_a_finite_number_of_a_numeric_claim(claim_id, value):
    with pytest.raises(ValueError, match=f"claim {claim_id} takes"):
        record(claim_id, value, "ci")


def test_record_rejects_a_number_for_a_yes_no_claim():
    claim_id = next(cid for cid, claim in load_claims().items() if claim.boolean)
    with pytest.raises(ValueError, match="is a yes/no claim: its value is a bool, got 1"):
        record(claim_id, 1, "ci")


@pytest.mark.parametrize(("value", "plain"), [(np.float32(0.5), 0.5), (np.int64(3), 3),
                                              (np.bool_(True), True), (torch.tensor(2.5), 2.5)])
def test_record_stores_numpy_scalars_as_plain_json(claim_id, tmp_path, value, plain):
    if isinstance(plain, bool):
        claim_id = next(cid for cid, claim in load_claims().items() if claim.boolean)
    out = record(claim_id, value, "ci")
    assert out == plain and type(out) is type(plain)
    text = (tmp_path / "records.json").read_text()
    assert f'"value": {json.dumps(plain)}' in text
    stored = json.loads(text)["ci"][claim_id]["value"]
    assert stored == plain and type(stored) is type(plain)


def test_record_rejects_bad_scale(claim_id):
    with pytest.raises(ValueError, match="'huge'"):
        record(claim_id, 1.0, "huge")


def test_load_records_missing_file_is_empty(tmp_path):
    assert load_records(tmp_path / "absent.json") == {}


@pytest.mark.parametrize("content", ["{not json", "[1, 2]"])
def test_load_records_bad_file_names_it(tmp_path, content):
    path = tmp_path / "records.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=re.escape(str(path))):
        load_records(path)
    with pytest.raises(ValueError, match=re.escape(str(path))):
        load_records()  # the default path, from $INTERP_REPRO_RECORD


def test_fingerprint_covers_shared_code_and_only_its_own_study():
    from pathlib import Path

    import interp_repro.core.cache as cache_mod

    root = Path(cache_mod.__file__).resolve().parents[1]
    other = root / "zz_fingerprint_probe"
    library_fingerprint.cache_clear()
    before_study, before_shared = library_fingerprint("superposition"), library_fingerprint()
    other.mkdir()
    try:
        (other / "mod.py").write_text("X = 1\n")
        library_fingerprint.cache_clear()
        assert library_fingerprint("superposition") == before_study  # another folder: no effect
        assert library_fingerprint("zz_fingerprint_probe") != before_shared
    finally:
        (other / "mod.py").unlink()
        other.rmdir()
        library_fingerprint.cache_clear()


def test_fingerprint_covers_the_top_level_modules_a_study_imports():
    from pathlib import Path

    import interp_repro.core.cache as cache_mod

    root = Path(cache_mod.__file__).resolve().parents[1]
    shared, study = root / "zz_shared_probe.py", root / "zz_study_probe"
    study.mkdir()
    try:
        (study / "mod.py").write_text("from interp_repro.zz_shared_probe import X\n")
        shared.write_text("X = 1\n")
        library_fingerprint.cache_clear()
        before_user = library_fingerprint("zz_study_probe")
        before_other = library_fingerprint("superposition")
        shared.write_text("X = 2\n")
        library_fingerprint.cache_clear()
        assert library_fingerprint("zz_study_probe") != before_user
        assert library_fingerprint("superposition") == before_other
    finally:
        shared.unlink(missing_ok=True)
        (study / "mod.py").unlink()
        study.rmdir()
        library_fingerprint.cache_clear()


# --- presets ------------------------------------------------------------------------------------


def test_seed_offset_shifts_the_seed_of_every_preset_made_inside_it():
    from interp_repro.abstraction.experiments.ablation import AblationConfig
    from interp_repro.abstraction.experiments.linear import KappaConfig
    from interp_repro.core.presets import seed_offset
    from interp_repro.schur_rnn.experiments import NeuroConfig

    with seed_offset(1000):
        shifted = NeuroConfig.preset("ci"), AblationConfig.preset("ci"), KappaConfig.preset("ci")
    assert [shifted[0].seed, shifted[1].seed] == [1000, 1000]
    assert shifted[2] == KappaConfig.preset("ci")  # closed form: no seed to shift
    assert NeuroConfig.preset("ci").seed == 0  # only inside the block
    with pytest.raises(ValueError, match="seed offset"), seed_offset(-1):
        pass


@pytest.mark.parametrize(("check", "good", "bad", "message"), [
    ("check_nonnegative", [0, 2.5, np.float32(1)], [-1, float("inf"), float("nan"), True, "1"],
     "finite number >= 0"),
    ("check_positive", [1e-9, 3], [0, -2, float("inf"), False, None], "finite number > 0"),
    ("check_probability", [0, 0.5, 1], [-0.1, 1.5, float("nan"), True], "number in [0, 1]"),
])
def test_number_checks_accept_their_range_and_name_what_they_refuse(check, good, bad, message):
    import interp_repro.core as core

    for value in good:
        assert getattr(core, check)("x", value) == float(value)
    for value in bad:
        with pytest.raises(ValueError, match=rf"^x must be a {re.escape(message)}, got"):
            getattr(core, check)("x", value)


def test_check_choices_names_unknown_and_duplicate_values():
    from interp_repro.core import check_choices

    assert check_choices("tasks", ("a", "b"), ("a", "b", "c")) == ("a", "b")
    for values, message in [(("a", "z"), r"unknown tasks \['z'\]: choose from"), (("a", "a"), "duplicates"),
                            ((), "non-empty tuple"), (["a"], "non-empty tuple")]:
        with pytest.raises(ValueError, match=message):
            check_choices("tasks", values, ("a", "b", "c"))


def test_check_real_array_returns_float64_and_names_the_fault():
    from interp_repro.core import check_real_array

    out = check_real_array("W", np.arange(6).reshape(2, 3), 2)
    assert out.dtype == np.float64 and out.shape == (2, 3)
    for x, message in [(np.zeros(3), "non-empty 2-D array, got shape"), (np.zeros((0, 2)), "non-empty"),
                       (np.array([["a"]]), "real"), (np.array([[np.nan, 1.0]]), "1 NaN/inf")]:
        with pytest.raises(ValueError, match=message):
            check_real_array("W", x, 2)


def test_pca_shares_sum_to_one_and_the_projection_keeps_the_variance_in_order():
    from interp_repro.core import pca_projection, pca_variance

    rng = np.random.default_rng(0)
    cloud = rng.normal(size=(200, 4)) * np.array([5.0, 2.0, 1.0, 0.1]) + 3.0
    shares = pca_variance(cloud)
    assert shares.sum() == pytest.approx(1.0) and np.all(np.diff(shares) <= 0)
    assert shares[0] > 0.8 and pca_variance(cloud, 2) == pytest.approx(shares[:2])
    projected = pca_projection(cloud, 2)
    assert projected.shape == (200, 2) and np.allclose(projected.mean(axis=0), 0)
    total = ((cloud - cloud.mean(axis=0)) ** 2).sum()
    assert (projected ** 2).sum(axis=0) / total == pytest.approx(shares[:2])
    with pytest.raises(ValueError, match="zero variance"):
        pca_variance(np.ones((5, 3)))
    with pytest.raises(ValueError, match="at least 2 points"):
        pca_projection(np.ones((1, 3)), 1)


def test_a_step_meter_counts_each_kind_of_step_once_and_adds_it_at_every_step():
    """The first step of each kind runs under torch's FLOP counter; later ones add its count. The
    count is the matrix products', forward and backward: 2 n^3 for the product, 2 n^3 for the
    gradient of its one trained factor."""
    n = 16
    w = torch.randn(n, n, requires_grad=True)
    meter = StepMeter("a test's bound")
    with tally() as outer:
        for step in range(5):
            with tally() as inner, meter.step(step >= 3):
                x = torch.randn(n, n * (2 if step >= 3 else 1))
                (w @ x).sum().backward()
    assert outer.flops == 3 * 4 * n ** 3 + 2 * 8 * n ** 3 and inner.flops == 8 * n ** 3
    assert outer.seconds > 0 and outer.bounds == {"a test's bound"}
    with tally() as untouched:
        torch.randn(n, n) @ torch.randn(n, n)  # not a metered step
    assert untouched.flops == 0 and untouched.bounds == set()


def test_every_trainer_meters_its_steps_and_names_its_bound():
    from interp_repro.abstraction.data import two_factor_data
    from interp_repro.abstraction.train import train_gelu_net, train_linear
    from interp_repro.modular_addition.train import train as train_modadd
    from interp_repro.schur_rnn.train import train as train_rnn
    from interp_repro.superposition.train import train_best

    runs = {"superposition": lambda: train_best("relu", 6, 3, np.ones(6), np.array([0.5]), seeds=1,
                                                steps=3, batch=8, seed=0, desc="t"),
            "modular addition": lambda: train_modadd("mlp_add", 7, [0], steps=3, d_model=8, d_mlp=16,
                                                     quiet=True),
            "schur": lambda: train_rnn("sine", "orthogonal", 4, seeds=1, steps=3, seed=0, batch=2,
                                       eval_batch=2, task_options={"length": 5}, quiet=True),
            "abstraction, gradient descent": lambda: train_linear(two_factor_data(0.5, 0.1, 2, 8, 6, 0), 8,
                                                                  1.0, 0.1, 3, 1.0, seed=0),
            "abstraction, GELU network": lambda: train_gelu_net(nu_x=0.5, noise_x=0.0, n_per_class=2, d_in=4,
                                                                d_model=4, d_hidden=4, n_blocks=1, lr=1e-3,
                                                                steps=3, seed=0)}
    for name, run in runs.items():
        with tally() as counted:
            run()
        assert counted.flops > 0 and counted.seconds > 0 and len(counted.bounds) == 1, name
