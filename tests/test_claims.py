"""Unit tests for interp_repro.reproduction: parsing claims.toml, checks, and the reproduction report."""

import tomllib

import pytest

from interp_repro import STUDIES
from interp_repro.core.cache import library_fingerprint
from interp_repro.reproduction import records as records_mod
from interp_repro.reproduction import report as report_mod
from interp_repro.reproduction.claims import (
    CLAIMS_FILE,
    NOT_CHECKED,
    STATUSES,
    Check,
    load_claims,
    parse_claims,
    study_claims,
)
from interp_repro.reproduction.records import record
from interp_repro.reproduction.report import REPORT_COLUMNS, check_records, report_rows, status_summary

CID = "superposition.toy"
VALID = f"""
[[claims]]
id = "{CID}"
study = "superposition"
statement = "Sparse features end up in superposition."
source = "Elhage et al. 2022, fig. 2"
paper = "0.9"
status = "reproduced"

[claims.check.ci]
min = 0.5
reason = "tiny model"

[claims.check.book]
min = 0.8
max = 1.0
reason = "book size"

[claims.check.paper]
equals = true
reason = "full size"
"""

SECOND = """
[[claims]]
id = "superposition.second"
study = "superposition"
statement = "Another claim."
source = "Elhage et al. 2022, fig. 3"
paper = "about 3"
status = "partial"
note = "only roughly"
check.ci = { max = 3, reason = "r" }
check.book = { max = 3, reason = "r" }
check.paper = { max = 3, reason = "r" }
"""


@pytest.fixture(autouse=True)
def isolated_env(tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("INTERP_REPRO_RECORD", str(tmp_path / "records.json"))


@pytest.fixture
def toy_claims(monkeypatch):
    """Make load_claims() return the two test claims, whatever claims.toml holds."""
    claims = parse_claims(VALID + SECOND)
    for module in (records_mod, report_mod):
        monkeypatch.setattr(module, "load_claims", lambda: claims)
    return claims


# --- parse_claims -----------------------------------------------------------------------------


def test_parse_valid_claims():
    claims = parse_claims(VALID + SECOND)
    assert list(claims) == [CID, "superposition.second"]
    toy = claims[CID]
    assert (toy.study, toy.paper, toy.status) == ("superposition", "0.9", "reproduced")
    assert toy.note == ""
    assert toy.checks["ci"] == Check(reason="tiny model", min=0.5)
    assert toy.checks["book"] == Check(reason="book size", min=0.8, max=1.0)
    assert toy.checks["paper"].equals is True
    assert claims["superposition.second"].note == "only roughly"


def test_parse_empty_text_gives_no_claims():
    assert parse_claims("") == {}


def _drop_table(text, header):
    """Remove a [table] and its lines up to the next blank line."""
    start = text.index(header)
    return text[:start] + text[text.index("\n\n", start) + 2:]


BROKEN = {
    "missing field": VALID.replace('source = "Elhage et al. 2022, fig. 2"\n', ""),
    "unknown field": VALID.replace('status = "reproduced"', 'status = "reproduced"\nowner = "x"'),
    "unknown study": VALID.replace('study = "superposition"', 'study = "circuits"'),
    "id not prefixed": VALID.replace(f'id = "{CID}"', 'id = "toy"'),
    "bad status": VALID.replace('status = "reproduced"', 'status = "maybe"'),
    "no note": VALID.replace('status = "reproduced"', 'status = "differs"'),
    "missing scale": _drop_table(VALID, "[claims.check.book]"),
    "extra scale": VALID + '[claims.check.huge]\nmin = 1\nreason = "r"\n',
    "no bound": VALID.replace("equals = true\n", ""),
    "no reason": VALID.replace('reason = "tiny model"\n', ""),
    "duplicate id": VALID + VALID,
    "skip with bounds": VALID.replace('min = 0.5\nreason = "tiny model"', 'min = 0.5\nskip = "tiny model"'),
    "empty skip": VALID.replace('min = 0.5\nreason = "tiny model"', 'skip = ""'),
}


@pytest.mark.parametrize("case", BROKEN)
def test_parse_rejects_naming_the_claim(case):
    claim_id = "toy" if case == "id not prefixed" else CID
    assert BROKEN[case] != VALID
    with pytest.raises(ValueError, match=rf"claim {claim_id}\b"):
        parse_claims(BROKEN[case])


def test_parse_accepts_non_reproduced_with_note():
    text = VALID.replace('status = "reproduced"', 'status = "differs"\nnote = "smaller model"')
    assert parse_claims(text)[CID].note == "smaller model"


def test_a_skipped_check_is_not_checked_whatever_is_recorded():
    text = VALID.replace('min = 0.5\nreason = "tiny model"', 'skip = "no power at this size"')
    claims = parse_claims(text)
    check = claims[CID].checks["ci"]
    assert check.skip and check.reason == "no power at this size" and check.describe() == "not checked"
    for value in (None, 0.0, 1e9):
        assert report_mod.Outcome(claims[CID], "ci", value).result == NOT_CHECKED
    assert report_mod.Outcome(claims[CID], "book", 0.5).result == "FAIL"  # other scales still checked


# --- Check ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "text", "passing", "failing"),
    [
        (Check("r", min=0.5), ">= 0.5", [0.5, 0.9, 7], [0.49, -1, float("nan")]),
        (Check("r", max=0.1), "<= 0.1", [0.1, 0.0, -5], [0.11, 3, float("nan")]),
        (Check("r", min=0.4, max=0.6), "in [0.4, 0.6]", [0.4, 0.5, 0.6], [0.39, 0.61]),
        (Check("r", equals=3), "== 3", [3, 3.0], [2, 4, 3.1]),
        (Check("r", equals=True), "== True", [True], [False]),
        (Check("r", equals=False), "== False", [False], [True]),
    ],
)
def test_check_passes_and_describe(check, text, passing, failing):
    assert check.describe() == text
    assert all(check.passes(v) for v in passing)
    assert not any(check.passes(v) for v in failing)


# --- check_records and the report ---------------------------------------------------------------


def _records(value, lib=None, scale="ci", claim_id=CID):
    return {scale: {claim_id: {"value": value, "lib": lib or library_fingerprint("superposition")}}}


@pytest.mark.parametrize(("value", "result"), [(0.7, "pass"), (0.2, "FAIL")])
def test_check_records_current_fingerprint(toy_claims, value, result):
    outcomes = {o.claim.id: o for o in check_records("ci", _records(value))}
    assert outcomes[CID].value == value
    assert outcomes[CID].result == result
    assert outcomes["superposition.second"].result == "not run"


def test_check_records_uses_each_scales_check(toy_claims):
    outcome = check_records("book", _records(0.7, scale="book"), study="superposition")[0]
    assert outcome.result == "FAIL"  # 0.7 passes ci's min 0.5 but not book's [0.8, 1.0]
    assert check_records("ci", _records(0.7, scale="book"))[0].result == "not run"


def test_check_records_other_fingerprint_is_not_run(toy_claims):
    records = _records(0.7, lib="0.0+000000000000")
    [outcome, _] = check_records("ci", records)
    assert outcome.value is None and outcome.result == "not run"
    [outcome, _] = check_records("ci", records, current_only=False)
    assert outcome.result == "pass"


def test_check_records_filters_by_study(toy_claims):
    assert len(check_records("ci", {})) == 2
    assert check_records("ci", {}, study="circuits") == []


def test_check_records_rejects_bad_scale(toy_claims):
    with pytest.raises(ValueError, match="'huge'"):
        check_records("huge", {})


def test_check_records_reads_what_record_wrote(toy_claims):
    record(CID, 0.9, "paper")  # paper's check is equals=true: 0.9 fails it
    record(CID, 0.95, "book")
    assert check_records("paper")[0].result == "FAIL"
    assert check_records("book")[0].result == "pass"


def test_outcome_message_names_claim_paper_and_ours(toy_claims):
    outcome = check_records("ci", _records(0.7123456))[0]
    message = outcome.message()
    assert message.startswith(f"{CID}: paper 0.9; ours 0.7123 ")
    assert ">= 0.5" in message and "tiny model" in message and message.endswith("-> pass")
    assert "ours - " in check_records("ci", {})[0].message()


def test_report_rows_one_per_claim(toy_claims):
    rows = report_rows(check_records("ci", _records(0.7)))
    assert len(rows) == len(toy_claims)
    assert all(len(row) == len(REPORT_COLUMNS) for row in rows)
    first, second = (dict(zip(REPORT_COLUMNS, row, strict=True)) for row in rows)
    assert first == {"claim": CID, "source": "Elhage et al. 2022, fig. 2", "paper": "0.9",
                     "ours": "0.7", "check": ">= 0.5", "result": "pass", "status": "reproduced"}
    assert (second["claim"], second["ours"], second["result"], second["status"]) == (
        "superposition.second", "-", "not run", "partial")


# --- the shipped claims file ------------------------------------------------------------------


def test_shipped_claims_parse_with_unique_ids():
    claims = load_claims()
    ids = [raw["id"] for raw in tomllib.loads(CLAIMS_FILE.read_text()).get("claims", [])]
    assert len(ids) == len(set(ids)) == len(claims)
    assert all(claim.study in STUDIES for claim in claims.values())


def test_status_summary_counts_every_claim_once():
    table = status_summary()
    assert list(table.index) == list(STUDIES)
    assert table["claims"].sum() == len(load_claims())
    for study in STUDIES:
        for status in STATUSES:
            assert table.loc[study, status] == sum(c.status == status for c in study_claims(study))
