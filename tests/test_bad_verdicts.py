"""No bad number becomes a verdict: NaN, infinity, a wrong type or an empty sample never reaches a
status by any path (``Claim.status``, ``record``, ``run`` with and without ``--seed-offset``,
``report``), a record file that is not the format is one line and exit 2 from every command that reads
it, and the registry refuses what is not a registry."""

import json
import math

import numpy as np
import pytest

import interp_repro.cli as cli
import interp_repro.reproduction.claims as claims_mod
from interp_repro.cli import main
from interp_repro.core import ConfigError, Estimate
from interp_repro.reproduction.claims import load_claims, parse_claims
from interp_repro.reproduction.records import load_records, record
from interp_repro.reproduction.report import Outcome
from interp_repro.studies import check_registry

NUMBER = "superposition.five_two_dense_count"  # a numeric claim
YES_NO = next(cid for cid, claim in load_claims().items() if claim.boolean)
STUDY_OF_YES_NO = load_claims()[YES_NO].study


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("INTERP_REPRO_RECORD", str(tmp_path / "records.json"))
    for name in ("INTERP_REPRO_SCALE", "INTERP_REPRO_WORKERS", "INTERP_REPRO_DASK", "INTERP_REPRO_QUIET"):
        monkeypatch.delenv(name, raising=False)


# --- the one status function ------------------------------------------------------------------

BAD_NUMBERS = [math.nan, math.inf, -math.inf, True, "0.5", None, [2], 10**400, np.array([1.0, 2.0]),
               complex(1, 0)]


@pytest.mark.parametrize("value", BAD_NUMBERS, ids=repr)
def test_a_numeric_claim_gives_no_status_to_what_is_not_a_finite_number(value):
    with pytest.raises(ValueError, match=f"claim {NUMBER} takes"):
        load_claims()[NUMBER].status(value)


@pytest.mark.parametrize("value", [1, 0, 1.0, math.nan, "yes", None], ids=repr)
def test_a_yes_no_claim_gives_no_status_to_what_is_not_a_bool(value):
    with pytest.raises(ValueError, match="is a yes/no claim"):
        load_claims()[YES_NO].status(value)


@pytest.mark.parametrize("interval", [(math.nan, math.nan), (3, 1), (0, math.inf), (5, 9), (1,), "x"],
                         ids=repr)
def test_no_status_from_an_interval_that_is_not_two_finite_numbers_around_the_value(interval):
    with pytest.raises(ValueError, match="an interval is two finite numbers around the value"):
        load_claims()[NUMBER].status(2, interval)


def test_valid_values_still_get_their_status():
    claim = load_claims()[NUMBER]
    assert claim.status(2) == claim.status(np.int64(2)) == claim.status(2.0)
    assert load_claims()[YES_NO].status(np.bool_(True)) in ("reproduced", "differs")


@pytest.mark.parametrize(("make", "message"), [
    (lambda: Estimate.share([math.nan], "units"), "counts yes/no flags"),
    (lambda: Estimate.share([2, 1], "units"), "counts yes/no flags"),
    (lambda: Estimate.share([], "units"), "at least one sample"),
    (lambda: Estimate.mean([], "seeds"), "at least one sample"),
    (lambda: Estimate.median([1.0, math.nan], "seeds"), "finite samples"),
    (lambda: Estimate.mean([1 + 2j], "seeds"), "real samples"),
    (lambda: Estimate.mean([1.0], " "), "names its unit"),
    (lambda: Estimate(0.5, "mean", (0.5,), "seeds", (0.5, 0.5), level=-7), "level lies in"),
    (lambda: Estimate(0.5, "mode", (0.5,), "seeds", (0.5, 0.5)), "statistic is one of"),
    (lambda: Estimate(0.5, "mean", (0.5,), "seeds", (math.nan, math.nan)), "interval is two finite"),
])
def test_an_estimate_refuses_what_no_interval_comes_from(make, message):
    with pytest.raises(ValueError, match=message):
        make()


# --- every command's path, with a claims function that returns a bad value ---------------------

BAD_RETURNS = {"NaN": math.nan, "infinity": math.inf, "a bool": True, "text": "0.5", "None": None}


@pytest.fixture
def claims_return(monkeypatch):
    """Make ``run`` train nothing and its claims functions return the given values."""
    def use(values: dict):
        monkeypatch.setattr(cli, "fill_cache", lambda scale, studies: {})
        monkeypatch.setattr(cli, "run_all", lambda scale, study: {
            cid: value for cid, value in values.items() if cid.startswith(study + ".")})
    return use


@pytest.mark.parametrize("offset", [[], ["--seed-offset", "7"]], ids=["run", "run --seed-offset"])
@pytest.mark.parametrize("bad", BAD_RETURNS)
def test_run_gives_a_bad_value_no_status_and_fails_it(bad, offset, claims_return, capsys, tmp_path):
    claims_return({NUMBER: BAD_RETURNS[bad], "superposition.five_two_dense_top2": True})
    assert main(["run", "superposition", "--scale", "ci", *offset]) == 1
    out = capsys.readouterr().out
    [line] = [line for line in out.splitlines() if line.startswith(NUMBER)]
    assert f"{NUMBER}: no status at ci: claim {NUMBER} takes a finite number" in line
    assert line.endswith("-> FAIL") and "differs" not in line and "reproduced" not in line
    assert "superposition.five_two_dense_top2: paper" in out  # the good value is checked as ever
    recorded = load_records().get("ci", {})
    assert NUMBER not in recorded and ("superposition.five_two_dense_top2" in recorded) == (not offset)


def test_run_gives_an_estimate_for_a_yes_no_claim_no_status(claims_return, capsys):
    claims_return({YES_NO: Estimate.share([True, False], "seeds")})
    assert main(["run", STUDY_OF_YES_NO, "--scale", "ci"]) == 1
    assert f"{YES_NO}: no status at ci: claim {YES_NO} is a yes/no claim" in capsys.readouterr().out


def test_an_outcome_of_a_bad_value_fails_and_says_why():
    outcome = Outcome.of(load_claims()[NUMBER], "ci", math.nan)
    assert outcome.status is None and outcome.result == "FAIL" and "takes a finite number" in outcome.invalid
    assert outcome.as_dict()["invalid"] == outcome.invalid


@pytest.mark.parametrize("bad", BAD_RETURNS)
def test_record_refuses_a_bad_value_and_writes_nothing(bad, tmp_path):
    with pytest.raises(ValueError, match=f"claim {NUMBER} takes"):
        record(NUMBER, BAD_RETURNS[bad], "ci")
    assert not (tmp_path / "records.json").exists()


def test_a_failed_record_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(json, "dump", broken)
    with pytest.raises(OSError, match="disk full"):
        record(NUMBER, 2, "ci")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-")] == []


# --- the record file: one reader, exit 2 for what is not the format ----------------------------


def _entry(value, **more) -> dict:
    return {"value": value, "recorded_at": "2026-01-01T00:00:00", "lib": "x", **more}


def _share_of(samples: list, level: float = 0.95, interval=(0.0, 1.0)) -> dict:
    return {"stat": "share", "samples": samples, "unit": "seeds", "interval": list(interval), "level": level}


RECORDS = {
    "an integer too large for a float": json.dumps({"ci": {NUMBER: _entry(10**400)}}),
    "nesting deeper than the decoder allows": "[" * 100_000 + "]" * 100_000,
    "an estimate of huge integers": json.dumps({"ci": {NUMBER: _entry(1, estimate={
        "stat": "mean", "samples": [10**400], "unit": "seeds", "interval": [0, 2], "level": 0.95})}}),
    "an estimate with a nonsense level": json.dumps({"ci": {NUMBER: _entry(0.5, estimate=_share_of(
        [True, False], level=-7))}}),
    "an estimate with an empty unit": json.dumps({"ci": {NUMBER: _entry(0.5, estimate={
        **_share_of([True, False]), "unit": ""})}}),
    "a bool for a numeric claim": json.dumps({"ci": {NUMBER: _entry(True)}}),
    "a number for a yes/no claim": json.dumps({"ci": {YES_NO: _entry(1)}}),
    "a NaN": json.dumps({"ci": {NUMBER: _entry(math.nan)}}),  # Python's json writes NaN
    "not UTF-8": b"\xff\xfe{}",
}


@pytest.mark.parametrize("argv", [["report", "--scale", "ci"], ["report", "--scale", "ci", "--json"],
                                  ["run", "superposition", "--scale", "ci"]], ids=" ".join)
@pytest.mark.parametrize("case", RECORDS)
def test_a_record_file_that_is_not_the_format_is_one_line_and_exit_2(case, argv, tmp_path, capsys,
                                                                      claims_return):
    claims_return({})
    path = tmp_path / "records.json"
    text = RECORDS[case]
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert err.startswith(f"interp-repro: error: record file {path}") and err.count("\n") == 1, err
    assert not out


# --- the registry -----------------------------------------------------------------------------

VALID = """
[[claims]]
id = "superposition.toy"
study = "superposition"
kind = "reproduction"
statement = "A toy claim."
source = "Somewhere, §1"
paper = "0.9"
band = { min = 0.8, max = 1.0, reason = "the paper's precision" }
alternative = { value = 0.5, reason = "as often as not" }
expected = { ci = "reproduced", book = "reproduced", paper = "reproduced" }
"""


@pytest.mark.parametrize(("text", "message"), [
    (VALID.replace("[[claims]]", "[[claim]]"), r"unknown keys or tables \['claim'\]"),
    ('claims = "x"\n', "claims must be an array of tables"),
    ("claims = [1, 2]\n", "claims must be an array of tables"),
    ('not_reproduced = "x"\n', "not_reproduced must be an array of tables"),
    ('title = "claims"\n' + VALID, r"unknown keys or tables \['title'\]"),
    (VALID.replace('expected = { ci = "reproduced", ', 'skip = { ci = "   " }\nexpected = { '),
     "the skip reason at ci must be non-empty text"),
])
def test_the_registry_refuses_what_is_not_a_registry(text, message):
    with pytest.raises(ValueError, match=message):
        parse_claims(text)


def test_a_broken_package_registry_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    broken = tmp_path / "claims.toml"
    broken.write_text(VALID.replace("[[claims]]", "[[claim]]"))
    monkeypatch.setattr(claims_mod, "CLAIMS_FILE", broken)
    load_claims.cache_clear()
    try:
        with pytest.raises(ConfigError, match=f"the claims file {broken}: unknown keys"):
            load_claims()
        assert main(["report", "--scale", "ci"]) == 2
        assert capsys.readouterr().err.count("\n") == 1
    finally:
        load_claims.cache_clear()


def _work(*args, **kwargs):
    pytest.fail("work started before the registry was checked")


@pytest.mark.parametrize(("declared", "message"), [
    (("abstraction.made_up",), "abstraction's claims functions declare ids that claims.toml lacks: "
                               "abstraction.made_up"),
    ((), "claims in claims.toml that no claims function of abstraction declares: abstraction."),
])
def test_the_registry_and_the_claims_functions_agree_before_any_work(declared, message, monkeypatch,
                                                                       capsys):
    from interp_repro.abstraction import experiments as abstraction

    read = abstraction.EXPERIMENTS["linear"].claims[0]
    monkeypatch.setattr(read, "claim_ids", read.claim_ids | set(declared) if declared else frozenset())
    monkeypatch.setattr(cli, "fill_cache", _work)
    monkeypatch.setattr(cli, "run_all", _work)
    assert main(["run", "abstraction", "--scale", "ci"]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_claims_function_returning_an_id_it_did_not_declare_is_refused():
    from interp_repro.core.table import Experiment, declares, table_claims

    @declares("abstraction.lazy_excess")
    def read(results):
        return {"abstraction.lazy_excess": 0.0, "abstraction.rich_max_alpha": 1.0}

    table = {"x": Experiment(config=lambda scale: None, run=lambda config: None, claims=(read,),
                             jobs=lambda config: [])}
    with pytest.raises(ValueError, match=r"returns claim ids it does not declare: \['abstraction.rich_max"):
        table_claims(table, "ci", "x")


def test_a_claim_no_claims_function_measured_fails_the_run(claims_return, capsys):
    claims_return({NUMBER: 2})  # and nothing for the study's other claims
    assert main(["run", "superposition", "--scale", "ci"]) == 1
    out = capsys.readouterr().out
    other = next(c.id for c in load_claims().values() if c.study == "superposition" and c.id != NUMBER
                 and "ci" not in c.skipped)
    assert f"{other}: no status at ci: no claims function returned a value at ci -> FAIL" in out
    assert f"{NUMBER}: paper" in out


def test_every_claim_of_the_registry_has_a_claims_function_and_no_function_an_unknown_id():
    check_registry()
