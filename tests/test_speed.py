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
    geometry = {"blocked": {"gflops": 12.0}, "matmul_gflops_one_thread": 40.0, "share_of_matmul": 0.3}
    rows = speed.ceiling_table({"schur_rnn": {"bptt_stacking": bptt},
                                "modular_addition_training": {"flops": flops},
                                "superposition_training": {"geometry_step": geometry}})
    assert [r["GFLOP/s"] for r in rows] == [12.0, 8.0, 20.0, 24.0]
    assert [r["share"] for r in rows] == [0.3, 0.2, 0.5, 0.6]


def test_the_denormal_table_has_a_row_per_block_and_is_empty_unmeasured():
    assert speed.denormal_table({}) == []
    runs = {"steps": 1500, "block": 1000,
            "flushed": {"seconds_per_step": [0.05, 0.05], "subnormal_share": [0.0, 0.0]},
            "not flushed": {"seconds_per_step": [0.05, 0.2], "subnormal_share": [0.0, 0.3]}}
    rows = speed.denormal_table({"modular_addition_training": {"denormals": runs}})
    assert [r["steps"] for r in rows] == ["1-1,000", "1,001-1,500"]
    assert rows[1]["ms/step, not flushed"] == pytest.approx(200.0)
    assert rows[1]["subnormal gradients, not flushed"] == 0.3


def _job(name, cpu_s, gflop, bounds=(), training_s=None):
    return {"job": name, "cpu_s": cpu_s, "wall_s": cpu_s, "gflop": gflop,
            "training_s": cpu_s if training_s is None else training_s, "bounds": list(bounds)}


def test_build_summary_takes_the_latest_of_each_kind():
    def build(kind, seconds, scale="book", studies=None):
        return {"kind": kind, "scale": scale, "seconds": seconds, "new_cache_entries": 3, "host": HOST,
                "measured_at": "t", "matmul_gflops_one_thread": 50.0,
                **({"studies": studies} if studies else {})}

    studies = {"schur_rnn": {"seconds": 600.0, "by_job": [_job("copy", 540.0, 10_800.0, ["a loop"])]}}
    summary = speed.build_summary([build("cold", 1200.0, studies=studies), build("warm", 60.0),
                                   build("cold", 2400.0, studies=studies)])
    assert [(r["build"], r["minutes"]) for r in summary["latest"]] == [("cold", 40.0), ("warm", 1.0)]
    assert summary["warm_share"] == pytest.approx(60 / 2400)
    assert summary["minutes"] == [{"scale": "book", "schur_rnn": 10.0}]
    assert summary["jobs"]["book"]["ceiling"] == 50.0
    [row] = summary["jobs"]["book"]["table"]
    assert row["job"] == "copy" and row["CPU min"] == 9.0 and row["GFLOP/s"] == 20.0
    assert row["share of ceiling"] == pytest.approx(0.4) and row["bound by"] == ""  # above 30%: no reason
    assert speed.build_summary([build("warm", 60.0)])["warm_share"] is None


def test_the_job_table_sorts_by_cost_and_says_what_bounds_a_slow_training_job():
    studies = {"superposition": {"by_job": [_job("geometry", 120.0, 1200.0, ["random numbers"], 100.0)]},
               "modular_addition": {"by_job": [_job("Zhong's 1", 600.0, 0.0, training_s=0.0)]}}
    rows = speed.job_table({"studies": studies, "matmul_gflops_one_thread": 100.0})
    assert [r["job"] for r in rows] == ["Zhong's 1", "geometry"]
    assert rows[0]["GFLOP/s"] is None and rows[0]["share of ceiling"] is None  # an analysis trains nothing
    assert rows[1]["GFLOP/s"] == 12.0 and rows[1]["training"] == pytest.approx(100 / 120)
    assert rows[1]["share of ceiling"] == pytest.approx(0.12) and rows[1]["bound by"] == "random numbers"
    no_ceiling = speed.job_table({"studies": studies})
    assert no_ceiling[1]["GFLOP/s"] == 12.0 and no_ceiling[1]["share of ceiling"] is None
