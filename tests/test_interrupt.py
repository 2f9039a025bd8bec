"""Ctrl-C during a pooled run, as a terminal sends it (SIGINT to the whole process group): the command
exits 130 with one line, leaves no partial entry and no leaked semaphore, and a rerun reuses the
entries that finished."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

DRIVER = """
import sys

import interrupted_jobs
from interp_repro import cli
from interp_repro.core.parallel import Job, run_jobs


def run(args) -> int:  # `interp-repro run` with these jobs for its training, and no claims to check
    run_jobs([Job(interrupted_jobs.work, (i, float(s))) for i, s in enumerate(sys.argv[2:])], desc="jobs")
    return 0


if __name__ == "__main__":
    cli.cmd_run = run
    sys.exit(cli.main(["run", "abstraction", "--scale", "ci", "--workers", sys.argv[1]]))
"""


def _start(tmp_path: Path, workers: int, seconds: list[float]) -> subprocess.Popen:
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    env = os.environ | {"PYTHONPATH": str(Path(__file__).parent), "INTERRUPT_LOG": str(tmp_path / "log"),
                        "INTERP_REPRO_CACHE": str(tmp_path / "cache"),
                        "INTERP_REPRO_RECORD": str(tmp_path / "records.json"), "INTERP_REPRO_QUIET": "0"}
    return subprocess.Popen([sys.executable, str(driver), str(workers), *map(str, seconds)], env=env,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def _entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache").rglob("*.npz"))


def test_ctrl_c_exits_130_in_one_line_and_a_rerun_reuses_what_finished(tmp_path):
    run = _start(tmp_path, 2, [0.2, 0.2, 60, 60])
    deadline = time.monotonic() + 60
    while len(_entries(tmp_path)) < 2 and time.monotonic() < deadline:  # the two short jobs
        time.sleep(0.2)
    time.sleep(1)  # the long ones are well under way
    os.killpg(run.pid, signal.SIGINT)
    out, err = run.communicate(timeout=60)
    assert run.returncode == 130, err
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("jobs:")]
    assert lines == ["interp-repro: interrupted; the cache holds 2 finished entries, nothing partial"], err
    assert "leaked" not in out + err and "Traceback" not in out + err
    assert [p.name for p in (tmp_path / "cache").rglob("*") if p.name.startswith(".tmp-")] == []

    rerun = _start(tmp_path, 1, [0.2, 0.2, 0.2, 0.2])  # in this process: no pool to start again
    out, err = rerun.communicate(timeout=120)
    assert rerun.returncode == 0, err
    computed = (tmp_path / "log").read_text().split()
    assert sorted(computed) == ["0", "1", "2", "2", "3", "3"]  # 0 and 1 once, from the first run
