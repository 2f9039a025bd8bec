"""Faults a user meets: Ctrl-C in a pool run, runs recording at once, a wrong Dask address, and bad
arguments to a few library functions. Each must give a prompt, clear and clean result."""

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from multiprocessing import get_context
from pathlib import Path

import numpy as np
import pytest
import torch

from interp_repro.abstraction.measures import terminal_abstraction
from interp_repro.core import SCALES, ConfigError, cached
from interp_repro.core.parallel import DASK_ENV, Job, run_jobs
from interp_repro.modular_addition.data import split
from interp_repro.modular_addition.model import ModAddNet
from interp_repro.modular_addition.topology import count_bars
from interp_repro.reproduction.claims import load_claims
from interp_repro.reproduction.records import load_records, record


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("INTERP_REPRO_RECORD", str(tmp_path / "records.json"))
    monkeypatch.delenv(DASK_ENV, raising=False)


# --- Ctrl-C in a pool run ---------------------------------------------------------------------

SLOW_JOBS = '''
import os
import time
from pathlib import Path
from pathlib import Path

import numpy as np

from interp_repro.core import cached
from interp_repro.core.parallel import Job, run_jobs


def compute(n):
    Path(os.environ["STARTED"], str(n)).touch()
    time.sleep(60)
    return {"x": np.arange(n)}


def slow(n):
    cached("tests/slow", {"n": n}, lambda: compute(n))


def main():
    run_jobs([Job(slow, (n,)) for n in range(6)], desc="slow", workers=2)
'''


def _processes_with(variable: str) -> list[int]:
    """Live processes whose environment holds ``variable`` (NAME=value)."""
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if variable.encode() in environ.read_bytes().split(b"\0"):
                found.append(int(environ.parent.name))
        except OSError:  # gone, or not ours to read
            continue
    return found


def test_ctrl_c_stops_a_pool_run_at_once_and_leaves_no_partial_entry(tmp_path):
    (tmp_path / "slowjobs.py").write_text(SLOW_JOBS)
    started = tmp_path / "started"
    started.mkdir()
    env = os.environ | {"PYTHONPATH": str(tmp_path), "STARTED": str(started), "INTERP_REPRO_QUIET": "1"}
    # as from a terminal: a shell without job control starts background commands with SIGINT
    # ignored, and Python then raises no KeyboardInterrupt at all
    proc = subprocess.Popen([sys.executable, "-c", "import slowjobs; slowjobs.main()"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not any(started.iterdir()):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no job started within 2 minutes"
        time.sleep(0.1)
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    sent = time.monotonic()
    try:
        _, err = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the run went on after Ctrl-C (6 jobs of 60 s on 2 workers)")
    assert time.monotonic() - sent < 30, "the run went on after Ctrl-C (6 jobs of 60 s on 2 workers)"
    assert proc.returncode != 0 and b"KeyboardInterrupt" in err
    assert len(list(started.iterdir())) <= 2  # no queued job started after Ctrl-C
    assert not _processes_with(f"STARTED={started}"), "pool workers outlived the run"
    for path in (tmp_path / "cache").rglob("*.npz"):
        if not path.name.startswith(".tmp-"):
            with np.load(path) as data:
                assert data["x"].size >= 0


# --- runs recording at the same time ----------------------------------------------------------


def _record_each(claim_ids: list[str], scale: str, start) -> None:
    start.wait()
    claims = load_claims()
    for claim_id in claim_ids:
        record(claim_id, True if claims[claim_id].boolean else 1.0, scale)


def test_records_from_runs_at_the_same_time_all_survive():
    ids = sorted(load_claims())[:20]
    assert len(ids) == 20
    ctx = get_context("fork")
    start = ctx.Barrier(6)
    procs = [ctx.Process(target=_record_each, args=(ids[i % 2 * 10:i % 2 * 10 + 10], SCALES[i // 2], start))
             for i in range(6)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0] * 6
    records = load_records()
    assert {scale: sorted(records.get(scale, {})) for scale in SCALES} == {scale: ids for scale in SCALES}


# --- a wrong Dask address ---------------------------------------------------------------------


def _fill(n: int) -> np.ndarray:
    return cached("tests/faults", {"n": n}, lambda: {"x": np.arange(n)})["x"]


@pytest.mark.parametrize("address", ["not an address", "tcp://host", "http://127.0.0.1:8786",
                                     "tcp://127.0.0.1:8786/extra"])
def test_a_malformed_dask_address_is_refused_before_connecting(address):
    start = time.monotonic()
    with pytest.raises(ConfigError, match="is not a Dask scheduler address: expected"):
        run_jobs([Job(_fill, (3,))], "x", dask=address)
    assert time.monotonic() - start < 5  # the first fingerprint alone takes a second


@pytest.fixture
def other_service():
    """A plain TCP server on a free port; ``other_service(reply)`` sends ``reply`` to each client."""
    servers = []

    def serve(reply: bytes) -> str:
        sock = socket.create_server(("127.0.0.1", 0))
        servers.append(sock)

        def answer():
            while True:
                try:
                    conn, _ = sock.accept()
                except OSError:  # closed at teardown
                    return
                servers.append(conn)
                conn.sendall(reply)

        threading.Thread(target=answer, daemon=True).start()
        return f"tcp://127.0.0.1:{sock.getsockname()[1]}"

    yield serve
    for s in servers:
        s.close()


@pytest.mark.parametrize(("reply", "reason"), [
    (b"HTTP/1.1 200 OK\r\n\r\nhello", "the service there does not speak Dask's protocol"),
    (b"", "no answer within 2 s"),
])
def test_another_service_at_the_dask_address_fails_fast_with_one_line(other_service, reply, reason,
                                                                      monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr("interp_repro.core.parallel.CONNECT_TIMEOUT", 2)  # 10 s by default
    address = other_service(reply)
    start = time.monotonic()
    with pytest.raises(ConfigError) as err:
        run_jobs([Job(_fill, (3,))], "x", dask=address)
    assert time.monotonic() - start < 7
    assert str(err.value) == f"cannot reach a Dask scheduler at {address!r}: {reason}"


# --- bad arguments to library functions -------------------------------------------------------


def test_split_without_seeds_is_a_clear_error():
    with pytest.raises(ValueError, match="seeds must name at least one seed"):
        split(7, 0.5, seeds=[])


@pytest.mark.parametrize("dgm", [np.ones(3), np.ones((4, 3))])
def test_count_bars_names_the_diagram_shape(dgm):
    with pytest.raises(ValueError, match=r"shape \(n, 2\).*got shape .* for H1"):
        count_bars([np.zeros((0, 2)), dgm])


@pytest.mark.parametrize(("nu_x", "nu_y", "named"), [("a", 0.5, "nu_x"), (0.5, [0.1, "b"], "nu_y")])
def test_terminal_abstraction_names_a_non_numeric_nu(nu_x, nu_y, named):
    with pytest.raises(ValueError, match=rf"^{named} must be a real \(integer or float\) array"):
        terminal_abstraction(nu_x, nu_y)


@pytest.mark.parametrize("generator", [None, 0, np.random.default_rng(0)])
def test_modaddnet_asks_for_a_torch_generator(generator):
    with pytest.raises(TypeError, match="generator must be a torch.Generator"):
        ModAddNet(1, 7, "mlp_concat", generator, d_model=4, d_mlp=4)
    assert ModAddNet(1, 7, "mlp_concat", torch.Generator().manual_seed(0), d_model=4, d_mlp=4).p == 7
