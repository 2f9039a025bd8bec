"""The Benchmarks page's tables, from small stand-ins of kept results and recorded book builds."""

import pytest

from interp_repro.reproduction import speed

HOST = {"cpu": "Some CPU", "cores": 2, "torch": "2.x"}


def test_comparisons_are_ratios_and_refuse_nonpositive_times():
    c = speed.comparison("stacked vs one", 2.0, 5.0, "ci")
    assert c["speedup"] == 2.5
    with pytest.raises(ValueError, match="positive"):
        speed.comparison("x", 0.0, 1.0, "ci")


def test_provenance_and_matching_rows():
    results = {"topology": {"measured_at": "today", "host": HOST, "library": "abc",
                            "comparisons": [speed.comparison("landmark vs full", 1.0, 9.0, "disc"),
                                            speed.comparison("4 workers vs 1", 2.0, 3.0, "ci")]},
               "old": {"library": "zzz", "comparisons": []}}
    rows = speed.provenance_table(results, current="abc")
    assert rows[0] == {"benchmark": "topology", "measured": "today",
                       "machine": "Some CPU, 2 cores, torch 2.x", "code": "this version"}
    assert rows[1]["machine"] == "?" and rows[1]["code"] == "an older version"
    table = speed.comparison_table(results)
    assert speed.matching(table, "landmark vs full|alpha complex")["speedup"].tolist() == [9.0]
    assert speed.matching(table, "batched vs one").empty


def test_ceiling_rows_read_the_flops_and_the_stacking_shares():
    assert speed.ceiling_table({}) == []
    bptt = {"share_of_matmul_one_seed": 0.5, "share_of_matmul_stacked": 0.6, "matmul_gflops_one_thread": 40.0}
    flops = {"achieved_gflops": 8.0, "matmul_gflops": 40.0, "share_of_matmul": 0.2}
    rows = speed.ceiling_table({"schur_rnn": {"bptt_stacking": bptt},
                                "modular_addition_training": {"flops": flops}})
    assert [r["GFLOP/s"] for r in rows] == [8.0, 20.0, 24.0]
    assert [r["share"] for r in rows] == [0.2, 0.5, 0.6]


def test_build_summary_takes_the_latest_of_each_kind():
    def build(kind, seconds, scale="book", studies=None):
        return {"kind": kind, "scale": scale, "seconds": seconds, "new_cache_entries": 3, "host": HOST,
                "measured_at": "t", **({"studies": studies} if studies else {})}

    studies = {"schur_rnn": {"seconds": 600.0, "by_function": {"run_unit": 540.0, "profile": 30.0}}}
    summary = speed.build_summary([build("cold", 1200.0, studies=studies), build("warm", 60.0),
                                   build("cold", 2400.0, studies=studies)])
    assert [(r["build"], r["minutes"]) for r in summary["latest"]] == [("cold", 40.0), ("warm", 1.0)]
    assert summary["warm_share"] == pytest.approx(60 / 2400)
    assert summary["minutes"] == [{"scale": "book", "schur_rnn": 10.0}]
    assert summary["where"] == [{"scale": "book", "study": "schur_rnn", "experiment": "run_unit",
                                 "minutes": 9.0}]
    assert speed.build_summary([build("warm", 60.0)])["warm_share"] is None
