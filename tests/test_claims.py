"""Unit tests for interp_repro.reproduction: parsing claims.toml, checks, and the reproduction report."""

import re
import tomllib

import pytest
from chapters import ROOT

from interp_repro import STUDIES
from interp_repro.core.cache import library_fingerprint
from interp_repro.core.errors import ConfigError
from interp_repro.core.estimate import Estimate
from interp_repro.reproduction import claims as claims_mod
from interp_repro.reproduction import plots
from interp_repro.reproduction import report as report_mod
from interp_repro.reproduction.claims import (
    CLAIMS_FILE,
    KINDS,
    NOT_CHECKED,
    Bounds,
    load_claims,
    load_not_reproduced,
    parse_claims,
)
from interp_repro.reproduction.records import load_records, record
from interp_repro.reproduction.report import (
    REPORT_COLUMNS,
    check_records,
    claim_pages,
    report_rows,
    status_summary,
    status_totals,
)

CID = "superposition.toy"
VALID = f"""
[[claims]]
id = "{CID}"
study = "superposition"
kind = "reproduction"
statement = "Sparse features end up in superposition."
source = "Elhage et al. 2022, fig. 2"
paper = "0.9"
paper_value = 0.9
band = {{ min = 0.8, max = 1.0, reason = "the paper's 0.9 within 0.1" }}
alternative = {{ value = 0.5, reason = "as often as not" }}
expected = {{ ci = "differs", book = "reproduced", paper = "reproduced" }}
guard.ci = {{ min = 0.5, reason = "ours at ci: a tiny model" }}
note = "a tiny model at ci"
"""

SECOND = """
[[claims]]
id = "superposition.second"
study = "superposition"
kind = "sanity"
statement = "Another claim."
source = "ours"
paper = "at most 3"
band = { max = 3, reason = "r" }
alternative = { value = 5, reason = "more" }
expected = { book = "reproduced", paper = "reproduced" }
skip = { ci = "no power at ci" }
"""
NO_PAPER_VALUE = VALID.replace("paper_value = 0.9\n", "")


@pytest.fixture(autouse=True)
def isolated_env(tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("INTERP_REPRO_RECORD", str(tmp_path / "records.json"))


@pytest.fixture
def toy_claims(tmp_path, monkeypatch):
    """A registry of the two test claims in a temporary directory, loaded in place of the package's."""
    registry = tmp_path / "claims.toml"
    registry.write_text(VALID + SECOND)
    monkeypatch.setattr(claims_mod, "CLAIMS_FILE", registry)
    load_claims.cache_clear()
    yield load_claims()
    load_claims.cache_clear()


# --- parse_claims -----------------------------------------------------------------------------


def test_parse_valid_claims():
    claims = parse_claims(VALID + SECOND)
    assert list(claims) == [CID, "superposition.second"]
    toy = claims[CID]
    assert (toy.study, toy.kind, toy.paper, toy.paper_value) == ("superposition", "reproduction", "0.9", 0.9)
    assert toy.band == Bounds("the paper's 0.9 within 0.1", min=0.8, max=1.0)
    assert toy.expected == {"ci": ("differs",), "book": ("reproduced",), "paper": ("reproduced",)}
    assert (toy.alternative.value, toy.alternative.reason) == (0.5, "as often as not")
    assert toy.guards == {"ci": Bounds("ours at ci: a tiny model", min=0.5)} and toy.skipped == {}
    second = claims["superposition.second"]
    assert second.skipped == {"ci": "no power at ci"} and "ci" not in second.expected
    assert second.note == "" and second.paper_value is None


def test_parse_empty_text_gives_no_claims():
    assert parse_claims("") == {}


BROKEN = {
    "missing field": VALID.replace('source = "Elhage et al. 2022, fig. 2"\n', ""),
    "unknown field": VALID.replace('kind = "reproduction"', 'kind = "reproduction"\nowner = "x"'),
    "unknown study": VALID.replace('study = "superposition"', 'study = "circuits"'),
    "id not prefixed": VALID.replace(f'id = "{CID}"', 'id = "toy"'),
    "bad kind": VALID.replace('kind = "reproduction"', 'kind = "guess"'),
    "bad status": VALID.replace('ci = "differs"', 'ci = "partial"'),
    "differs without a note": VALID.replace('note = "a tiny model at ci"\n', ""),
    "missing scale": VALID.replace('ci = "differs", ', ""),
    "extra scale": VALID.replace('paper = "reproduced" }', 'paper = "reproduced", huge = "reproduced" }'),
    "expected and skipped": VALID + "",
    "band excludes its paper value": VALID.replace("paper_value = 0.9", "paper_value = 0.7"),
    "band without a bound": VALID.replace("min = 0.8, max = 1.0, ", ""),
    "band without a reason": VALID.replace(', reason = "the paper\'s 0.9 within 0.1"', ""),
    "guard at an unknown scale": VALID.replace("guard.ci", "guard.huge"),
    "empty skip": VALID.replace('ci = "differs", ', "").replace("guard.ci", 'skip = { ci = "" }\nguard.ci'),
    "duplicate id": VALID + VALID,
    "inverted band": NO_PAPER_VALUE.replace("min = 0.8, max = 1.0", "min = 1.0, max = 0.8"),
    "empty band that differs forever": NO_PAPER_VALUE.replace("min = 0.8, max = 1.0", "min = 2.0, max = 1.0")
    .replace('"reproduced"', '"differs"'),
    "NaN bound": NO_PAPER_VALUE.replace("min = 0.8", "min = nan"),
    "infinite bound": VALID.replace("max = 1.0", "max = inf"),
    "string bound": VALID.replace("min = 0.8", 'min = "0.8"'),
    "bool bound": NO_PAPER_VALUE.replace("min = 0.8", "min = true"),
    "equals beside min": VALID.replace("min = 0.8, max = 1.0", "min = 0.8, equals = 0.9"),
    "empty reason": VALID.replace('reason = "the paper\'s 0.9 within 0.1"', 'reason = ""'),
    "non-string reason": VALID.replace('reason = "the paper\'s 0.9 within 0.1"', "reason = 3"),
    "guard with an empty reason": VALID.replace('reason = "ours at ci: a tiny model"', 'reason = " "'),
    "inverted guard": VALID.replace("guard.ci = { min = 0.5", "guard.ci = { min = 0.5, max = 0.1"),
    "string paper value": VALID.replace("paper_value = 0.9", 'paper_value = "0.9"'),
    "empty statement": VALID.replace('"Sparse features end up in superposition."', '""'),
    "numeric paper": VALID.replace('paper = "0.9"', "paper = 0.9"),
    "blank note": VALID.replace('note = "a tiny model at ci"', 'note = " "'),
    "band holds its alternative": VALID.replace("value = 0.5", "value = 0.85"),
    "a numeric claim without an alternative": VALID.replace(
        'alternative = { value = 0.5, reason = "as often as not" }\n', ""),
    "alternative without a reason": VALID.replace(', reason = "as often as not"', ""),
    "bool alternative of a number": VALID.replace("value = 0.5", "value = true"),
    "two equal expected statuses": VALID.replace('ci = "differs"', 'ci = ["differs", "differs"]'),
    "three expected statuses": VALID.replace('ci = "differs"',
                                             'ci = ["differs", "reproduced", "inconclusive"]'),
    "an edge without a note": VALID.replace('note = "a tiny model at ci"\n', "").replace(
        'ci = "differs"', 'ci = "reproduced"').replace('book = "reproduced"',
                                                      'book = ["reproduced", "inconclusive"]'),
}
BROKEN["expected and skipped"] = VALID.replace("guard.ci", 'skip = { ci = "why" }\nguard.ci')


@pytest.mark.parametrize("case", BROKEN)
def test_parse_rejects_naming_the_claim(case):
    claim_id = "toy" if case == "id not prefixed" else CID
    assert BROKEN[case] != VALID
    with pytest.raises(ValueError, match=rf"claim {claim_id}\b"):
        parse_claims(BROKEN[case])


NOT_REPRODUCED = """
[[not_reproduced]]
id = "superposition.gemma_level"
study = "superposition"
statement = "A level measured on a model we cannot run."
source = "a paper"
paper = "0.2"
why = "measured on Gemma"
"""
BROKEN_NOT_REPRODUCED = {
    "unknown study": NOT_REPRODUCED.replace('study = "superposition"', 'study = "circuits"'),
    "empty why": NOT_REPRODUCED.replace('why = "measured on Gemma"', 'why = ""'),
    "non-string why": NOT_REPRODUCED.replace('why = "measured on Gemma"', "why = 1"),
    "duplicate id": NOT_REPRODUCED + NOT_REPRODUCED,
    "the id of a claim": NOT_REPRODUCED.replace("superposition.gemma_level", CID),
}


@pytest.mark.parametrize("case", BROKEN_NOT_REPRODUCED)
def test_parse_rejects_a_bad_not_reproduced_entry_naming_it(case):
    entry = CID if case == "the id of a claim" else "superposition.gemma_level"
    for load in (parse_claims, load_not_reproduced):
        with pytest.raises(ValueError, match=rf"not_reproduced {entry}\b") as err:
            load(VALID + BROKEN_NOT_REPRODUCED[case])
        assert "\n" not in str(err.value)


def test_the_package_registry_passes_the_strict_checks():
    assert load_claims() and load_not_reproduced()


def test_a_band_that_excludes_its_own_paper_value_is_refused_when_the_registry_loads():
    with pytest.raises(ValueError, match="excludes the paper's own value 0.7"):
        parse_claims(VALID.replace("paper_value = 0.9", "paper_value = 0.7"))


# --- measured status and the outcome --------------------------------------------------------------


@pytest.mark.parametrize(("value", "status"), [(0.8, "reproduced"), (0.95, "reproduced"), (0.79, "differs"),
                                               (1.2, "differs")])
def test_the_status_is_measured_from_the_paper_band(value, status):
    claim = parse_claims(VALID)[CID]
    assert claim.status(value) == status
    assert report_mod.Outcome(claim, "book", value).status == status


@pytest.mark.parametrize(("scale", "value", "result"), [
    ("book", 0.9, "pass"),      # reproduced, as expected
    ("book", 0.7, "FAIL"),      # differs where it should reproduce: a regression
    ("ci", 0.7, "pass"),        # differs, as expected at ci, and the guard holds
    ("ci", 0.9, "FAIL"),        # reproduces where the registry expects it to differ: update it
    ("ci", 0.3, "FAIL"),        # differs as expected, but the guard on our value fails: drift
])
def test_an_outcome_passes_only_when_the_measured_status_is_the_expected_one(scale, value, result):
    outcome = report_mod.Outcome(parse_claims(VALID)[CID], scale, value)
    assert outcome.result == result


def _share(k: int, n: int) -> Estimate:
    return Estimate.share([True] * k + [False] * (n - k), "clusters")


@pytest.mark.parametrize(("estimate", "status"), [
    (_share(20, 20), "reproduced"),     # 1.0, all of its interval (0.83-1) in the band [0.8, 1]
    (_share(17, 20), "inconclusive"),   # 0.85, in the band, but its interval (0.62-0.97) leaves it
    (_share(15, 20), "inconclusive"),   # 0.75, outside, but its interval reaches it
    (_share(3, 20), "differs"),         # 0.15, all of its interval below it
    (_share(3, 4), "differs"),          # 4 units: no interval, the point rule
])
def test_the_whole_interval_decides_and_the_expected_status_must_be_measured(estimate, status):
    claim = parse_claims(VALID)[CID]  # band [0.8, 1]
    outcome = report_mod.Outcome.of(claim, "book", estimate)
    assert outcome.status == claim.status(estimate.value, estimate.interval) == status
    assert outcome.result == ("pass" if status == "reproduced" else "FAIL")  # book expects reproduced
    assert outcome.basis == ("too few units" if estimate.n < 5 else "interval")
    assert claim.status(estimate.value) == ("reproduced" if claim.band.passes(estimate.value) else "differs")


def test_a_claim_on_an_edge_lists_both_statuses_and_passes_either_but_no_third():
    edge = VALID.replace('book = "reproduced"', 'book = ["reproduced", "inconclusive"]')
    claim = parse_claims(edge)[CID]
    results = {status: report_mod.Outcome.of(claim, "book", estimate).result
               for estimate, status in ((_share(20, 20), "reproduced"), (_share(15, 20), "inconclusive"),
                                        (_share(3, 20), "differs"))}
    assert results == {"reproduced": "pass", "inconclusive": "pass", "differs": "FAIL"}
    assert report_mod.Outcome(claim, "book", 0.9).expected == "reproduced or inconclusive"


def test_each_outcome_gives_its_basis_power_and_criteria():
    claim = parse_claims(VALID)[CID]  # band [0.8, 1], alternative 0.5
    strong = report_mod.Outcome.of(claim, "book", _share(40, 40))
    assert (strong.basis, strong.units, strong.counted) == ("interval", "40 clusters", "reproduced")
    assert strong.power > 0.9 and strong.units_needed is None
    assert strong.paper_inside is False and strong.direction is True  # 0.9 lies below 40 of 40's interval
    assert report_mod.Outcome.of(claim, "book", _share(36, 40)).paper_inside is True
    weak = report_mod.Outcome.of(claim, "book", _share(5, 5))  # 5 of 5: 95% CI 0.48-1 reaches 0.5
    assert weak.status == "inconclusive" and weak.power < 0.8 and weak.units_needed > 5
    one = report_mod.Outcome(claim, "book", 0.9)
    assert (one.basis, one.power, one.counted, one.direction) == (
        "one run", None, "reproduced, one run", True)
    few = report_mod.Outcome.of(claim, "book", _share(3, 3))
    assert (few.basis, few.counted) == ("too few units", "reproduced, too few units")
    assert few.power > 0.8  # the point rule tells 3 coin flips from 0.8 or more, 7 times in 8
    assert report_mod.Outcome(claim, "book", 0.3).direction is False  # beyond the alternative, not the band
    yes_no = parse_claims(VALID.replace("min = 0.8, max = 1.0", "equals = true").replace(
        "paper_value = 0.9", "paper_value = true").replace("value = 0.5", "value = false"))[CID]
    assert yes_no.alternative.value is False
    assert report_mod.Outcome(yes_no, "book", True).direction is True


def test_an_inconclusive_outcome_says_how_many_samples_would_decide_it():
    outcome = report_mod.Outcome.of(parse_claims(VALID)[CID], "book", _share(15, 20))
    assert outcome.to_decide == _share(15, 20).samples_to_decide(0.8) > 20
    assert f"inconclusive (about {outcome.to_decide} clusters would decide it) [interval; power" in (
        outcome.message())
    assert "15 of 20 clusters; 95% CI" in outcome.message()
    data = outcome.as_dict()
    assert data["estimate"]["samples"] == [True] * 15 + [False] * 5 and data["estimate"]["level"] == 0.95
    assert report_mod.Outcome.of(parse_claims(VALID)[CID], "book", _share(20, 20)).to_decide is None


def test_an_estimate_is_recorded_with_its_samples_and_read_back(toy_claims, tmp_path):
    estimate = Estimate.mean([0.82, 0.9, 0.86], "seeds")
    assert record(CID, estimate, "book") == estimate.value
    [outcome, _] = check_records("book")
    assert outcome.estimate == estimate and outcome.result == "pass"
    path = tmp_path / "records.json"
    path.write_text(path.read_text().replace("0.82", "0.1"))  # samples that no longer give the value
    with pytest.raises(ConfigError, match="entry of superposition.toy at book: value .* is not the mean"):
        load_records(path)


def test_a_skipped_scale_is_not_checked_but_its_guard_still_holds():
    text = SECOND.replace('skip = { ci = "no power at ci" }', 'skip = { ci = "no power at ci" }\n'
                          'guard.ci = { max = 10, reason = "ours" }')
    claim = parse_claims(text)["superposition.second"]
    for value in (None, 0.0, 5.0):
        assert report_mod.Outcome(claim, "ci", value).result == NOT_CHECKED
    assert report_mod.Outcome(claim, "ci", 11.0).result == "FAIL"
    assert report_mod.Outcome(claim, "book", 5.0).result == "FAIL"  # other scales are checked


def test_not_reproduced_results_are_listed_apart_from_the_claims():
    text = VALID + NOT_REPRODUCED
    assert list(parse_claims(text)) == [CID]
    [entry] = load_not_reproduced(text)
    assert (entry.id, entry.why) == ("superposition.gemma_level", "measured on Gemma")
    with pytest.raises(ValueError, match="not_reproduced x"):
        load_not_reproduced('[[not_reproduced]]\nid = "x"\n')


# --- Bounds ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("check", "text", "passing", "failing"),
    [
        (Bounds("r", min=0.5), ">= 0.5", [0.5, 0.9, 7], [0.49, -1, float("nan")]),
        (Bounds("r", max=0.1), "<= 0.1", [0.1, 0.0, -5], [0.11, 3, float("nan")]),
        (Bounds("r", min=0.4, max=0.6), "in [0.4, 0.6]", [0.4, 0.5, 0.6], [0.39, 0.61]),
        (Bounds("r", equals=3), "== 3", [3, 3.0], [2, 4, 3.1]),
        (Bounds("r", equals=True), "== True", [True], [False]),
        (Bounds("r", equals=False), "== False", [False], [True]),
    ],
)
def test_bounds_pass_and_describe(check, text, passing, failing):
    assert check.describe() == text
    assert all(check.passes(v) for v in passing)
    assert not any(check.passes(v) for v in failing)


# --- check_records and the report ---------------------------------------------------------------


def _records(value, lib=None, scale="ci", claim_id=CID):
    return {scale: {claim_id: {"value": value, "lib": lib or library_fingerprint("superposition")}}}


@pytest.mark.parametrize(("value", "result"), [(0.7, "pass"), (0.2, "FAIL"), (0.9, "FAIL")])
def test_check_records_current_fingerprint(toy_claims, value, result):
    outcomes = {o.claim.id: o for o in check_records("ci", _records(value))}
    assert outcomes[CID].value == value
    assert outcomes[CID].result == result
    assert outcomes["superposition.second"].result == NOT_CHECKED


def test_check_records_reads_each_scale(toy_claims):
    outcome = check_records("book", _records(0.7, scale="book"), study="superposition")[0]
    assert outcome.result == "FAIL"  # 0.7 differs; at book the registry expects reproduced
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
    record(CID, 0.7, "paper")
    record(CID, 0.95, "book")
    assert check_records("paper")[0].result == "FAIL"
    assert check_records("book")[0].result == "pass"


def test_outcome_message_names_claim_band_ours_and_statuses(toy_claims):
    message = check_records("ci", _records(0.7123456))[0].message()
    assert message.startswith(f"{CID}: paper 0.9 (band in [0.8, 1]); ours 0.7123 -> differs [one run], "
                              "expected differs")
    assert ">= 0.5" in message and "a tiny model" in message and message.endswith("-> pass")
    assert "ours - -> not run" in check_records("ci", {})[0].message()


def test_report_rows_and_json_one_per_claim(toy_claims):
    outcomes = check_records("ci", _records(0.7))
    rows = report_rows(outcomes)
    assert all(len(row) == len(REPORT_COLUMNS) for row in rows) and len(rows) == len(toy_claims)
    first, second = (dict(zip(REPORT_COLUMNS, row, strict=True)) for row in rows)
    assert first == {"claim": CID, "kind": "reproduction", "paper": "0.9", "band": "in [0.8, 1]",
                     "ours": "0.7", "status": "differs", "expected": "differs", "guard": "pass",
                     "result": "pass"}
    assert (second["status"], second["expected"], second["result"]) == (NOT_CHECKED, "-", NOT_CHECKED)
    assert outcomes[0].as_dict() == {
        "id": CID, "kind": "reproduction", "paper": "0.9", "paper_value": 0.9, "reference": None,
        "paper_band": "in [0.8, 1]", "ours": 0.7, "estimate": None, "interval": None, "basis": "one run",
        "units": None, "n_units": None, "alternative": 0.5, "alternative_reason": "as often as not",
        "power": None, "units_for_power": None, "paper_inside_interval": None, "direction": True,
        "status": "differs", "counted": "differs, one run", "to_decide": None, "expected": "differs",
        "guard": ">= 0.5", "guard_result": "pass", "invalid": None, "result": "pass"}


def test_a_chapter_shows_a_differing_claim_with_both_values_and_its_status(toy_claims):
    recorded = report_mod.record_all({CID: 0.7123456}, "book")
    assert recorded == {CID: 0.7123456} and check_records("book")[0].value == 0.7123456
    page = recorded._repr_html_()
    assert "0.7123" in page and "0.9 (in [0.8, 1])" in page  # ours beside the paper's
    assert "differs" in page and "a tiny model at ci" in page and "FAIL" in page  # book expects reproduced
    assert "differs" not in report_mod.record_all({CID: 0.85}, "book")._repr_html_()


# --- the shipped claims file ------------------------------------------------------------------


def test_shipped_claims_parse_with_unique_ids():
    claims = load_claims()
    ids = [raw["id"] for raw in tomllib.loads(CLAIMS_FILE.read_text()).get("claims", [])]
    assert len(ids) == len(set(ids)) == len(claims)
    assert all(claim.study in STUDIES for claim in claims.values())


def test_a_skip_says_what_cannot_be_measured_never_that_a_value_sits_near_the_band():
    """Whether our value is too close to the band's edge to tell is the interval's to say
    (a claim on an edge lists both statuses); a skip is for what cannot be measured at a scale at all."""
    near = re.compile(r"\bedge\b|straddl|across the band|one cluster|can move", re.IGNORECASE)
    typed = [(c.id, scale) for c in load_claims().values() for scale, why in c.skipped.items()
             if near.search(why)]
    assert not typed, f"skips typed for a knife edge: {typed}"
    assert all(why.startswith("not measured") for c in load_claims().values()
               for scale, why in c.skipped.items() if scale == "paper" and "paper" not in c.expected)


def test_every_numeric_paper_value_lies_in_its_band_and_every_claim_has_a_kind():
    for claim in load_claims().values():
        assert claim.kind in KINDS
        if claim.paper_value is not None:
            assert claim.band.passes(claim.paper_value), claim.id


def test_status_summary_counts_every_claim_once_by_kind_and_measured_status(toy_claims):
    table = status_summary("ci", _records(0.7))
    assert list(table.index) == list(STUDIES)
    assert table.loc["superposition", ("reproduction", "differs, one run")] == 1
    assert table.loc["superposition", ("sanity", NOT_CHECKED)] == 1
    assert table.to_numpy().sum() == 2
    totals = status_totals(table)
    assert totals["reproduction"]["differs, one run"] == totals["reproduction"]["all"] == 1
    assert totals["reproduction"]["reproduced"] == totals["reproduction"]["reproduced, low power"] == 0
    assert totals["sanity"]["not checked"] == 1 and totals["seed"]["all"] == 0


def test_every_claim_links_to_a_chapter_of_its_study():
    book = ROOT / "book"
    pages = claim_pages(book)
    assert set(pages) == set(load_claims())
    for cid, page in pages.items():
        assert page.startswith(cid.split(".")[0] + "/") and (book / f"{page}.md").exists(), (cid, page)


def test_the_record_figure_draws_a_row_per_claim_on_one_light_axis():
    claim = parse_claims(VALID)[CID]  # band [0.8, 1]
    outcomes = [report_mod.Outcome.of(claim, "book", _share(15, 20)), report_mod.Outcome(claim, "book", None)]
    fig = plots.record_plotly(outcomes, "toy")
    assert list(fig.layout.yaxis.ticktext) == [CID.split(".", 1)[1]] * 2
    assert len(fig.data) <= 8 and not fig.layout.shapes and not fig.layout.annotations
    [dot] = [t for t in fig.data if t.type == "scatter" and t.error_x.array is not None]
    low, high = plots._span(outcomes[0])
    value, (lo, hi) = _share(15, 20).value, _share(15, 20).interval
    assert dot.x[0] == pytest.approx((value - low) / (high - low))  # each row on its own scale
    assert dot.x[0] - dot.error_x.arrayminus[0] == pytest.approx((lo - low) / (high - low))
    assert dot.x[0] + dot.error_x.array[0] == pytest.approx((hi - low) / (high - low))
