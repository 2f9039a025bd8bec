"""Analyse your own network (``interp-repro analyse``, ``<study>.external``): each study's file format
round-trips a network the library trains to the values its chapters compute, and a file that is not
the format gets one line and exit status 2, with nothing written to the cache."""

import json
import shutil

import numpy as np
import pytest
import torch

from interp_repro.abstraction import external as reps
from interp_repro.abstraction import measures as abs_measures
from interp_repro.abstraction.data import two_factor_data
from interp_repro.abstraction.experiments import ablation as abs_ablation
from interp_repro.cli import main
from interp_repro.core import torch_generator
from interp_repro.modular_addition import experiments as modadd_experiments
from interp_repro.modular_addition import external as modadd
from interp_repro.modular_addition import measures as modadd_measures
from interp_repro.modular_addition import zhong
from interp_repro.modular_addition.experiments import ModAddConfig
from interp_repro.modular_addition.model import ModAddNet
from interp_repro.modular_addition.train import train as train_modadd
from interp_repro.schur_rnn import experiments as schur_experiments
from interp_repro.schur_rnn import external as schur
from interp_repro.schur_rnn import measures as schur_measures
from interp_repro.schur_rnn.train import train as train_rnn
from interp_repro.superposition import experiments as toy_experiments
from interp_repro.superposition import external as toy
from interp_repro.superposition import measures as toy_measures
from interp_repro.superposition.train import train_best


@pytest.fixture(autouse=True)
def isolated(request, tmp_path, monkeypatch):
    """A cache and record of the test's own, unless it reads the session's (``filled``)."""
    if "filled" not in request.fixturenames:
        monkeypatch.setenv("INTERP_REPRO_CACHE", str(tmp_path / "cache"))
        monkeypatch.setenv("INTERP_REPRO_RECORD", str(tmp_path / "records.json"))


def _pentagon() -> np.ndarray:
    angles = np.deg2rad(np.arange(5) * 72.0)
    return np.stack([np.cos(angles), np.sin(angles)])  # the paper's (m, n) = (2, 5)


def test_a_trained_toy_model_round_trips_to_the_chapters_measures(tmp_path):
    importance, density = 0.9 ** np.arange(6), np.array([0.1, 1.0])
    res = train_best("relu", 6, 2, np.tile(importance, (2, 1)), density, seeds=2, steps=200, batch=256,
                     seed=0, desc="toy")
    network = toy.ToyNetwork(res["W"], res["b"], importance, 0.1)
    back = toy.load(toy.save(network, tmp_path / "toy.npz"))
    for k in range(2):
        report = toy.analyse(back, k)
        W = res["W"][k]
        assert report.dstar == float(toy_measures.dimensions_per_feature(W))
        assert report.dims == toy_measures.feature_dimensionality(W).tolist()
        assert report.squared_frobenius == toy_measures.squared_frobenius(W)
        assert report.represented == int(toy_measures.represented(W).sum())
        assert report.phase is None  # 6 -> 2 has no phase diagram


def test_the_notebooks_instance_layout_reads_as_the_papers_matrix(tmp_path):
    np.savez(tmp_path / "notebook.npz", W=_pentagon().T[None])  # (K, n, m)
    np.savez(tmp_path / "paper.npz", W=_pentagon())
    notebook, paper = (toy.analyse(toy.load(tmp_path / f"{n}.npz")) for n in ("notebook", "paper"))
    assert notebook == paper
    assert paper.geometry["pentagon"] == 5 and sum(paper.geometry.values()) == 5
    assert paper.dstar == pytest.approx(0.4) and paper.dims == pytest.approx([0.4] * 5)


def test_a_2_to_1_model_gets_its_phase_and_the_closed_forms():
    pair = toy.ToyNetwork(np.array([[[1.0, -1.0]]]), None, np.array([1.0, 0.7]), 0.05)
    alone = toy.ToyNetwork(np.array([[[0.0, 1.0]]]), None, np.array([1.0, 3.0]), 0.9)
    assert (toy.analyse(pair).phase, toy.analyse(pair).analytic_phase) == ("superposition", "superposition")
    assert (toy.analyse(alone).phase, toy.analyse(alone).analytic_phase) == ("learned alone", "learned alone")
    assert toy.analyse(toy.ToyNetwork(pair.W)).analytic_phase is None  # no importance, no closed form


def test_a_trained_rnn_round_trips_to_the_chapters_ablation_profile(tmp_path):
    """The chapters profile a unit's K seeds at once (``experiments.profile_unit``: held-out seed
    ``spec.seed + 2``); the analysis of each seed from the file gives the same numbers, bit for bit."""
    res = train_rnn("copy", "orthogonal", 16, seeds=2, steps=30, seed=5, batch=16, train_replay=8,
                    full_replay_share=0.5, task_options={"replay": 16}, eval_batch=32, quiet=True)
    weights = {"W_xh": res.W_xh, "W_hh": res.W_hh, "W_hy": res.W_hy}
    chapter = schur_measures.ablation_profile(weights, "copy", 0.9, seed=7, batch=32)
    path = schur.save(schur.RecurrentWeights(res.W_hh, res.W_xh, res.W_hy, "copy", 0.9, 7, 32),
                      tmp_path / "rnn.npz")
    for k in range(2):
        report = schur.analyse(schur.load(path), k)
        assert [a["accuracy"] for a in report.ablations.values()] == chapter["accuracy"][:, k].tolist()
        assert [a["fvu"] for a in report.ablations.values()] == chapter["fvu"][:, k].tolist()
        assert report.r == chapter["r"][k]
        assert list(report.shares.values()) == chapter["parts"][k].tolist()
    assert schur.analyse(schur.RecurrentWeights(res.W_hh[:1])).ablations is None  # no task, no scores


def _two_factor_layers():
    """Noise-free two-factor data (input alpha (1 - nu_x) / (1 + nu_x) = 1/3 exactly), a rotation of it
    (alpha unchanged), a ReLU layer of it and the targets."""
    data = two_factor_data(nu_x=0.5, nu_y=0.0, n_per_class=8, d_in=6, d_out=4, seed=0)
    rotation = np.linalg.qr(np.random.default_rng(1).normal(size=(6, 6)))[0]
    hidden = np.maximum(data.X @ np.random.default_rng(2).normal(size=(6, 10)), 0)
    return data, reps.Representations(data.labels, (data.X, data.X @ rotation, hidden), data.Y)


def test_representations_round_trip_to_the_chapters_measures(tmp_path):
    data, network = _two_factor_layers()
    loaded = reps.load(reps.save(network, tmp_path / "net.npz"))
    report = reps.analyse(loaded)
    assert report == reps.analyse(network) and report.widths == [6, 6, 10]
    assert report.alpha_shape[:2] == pytest.approx([1 / 3, 1 / 3], abs=1e-12)  # exact class means, rotation
    assert report.alpha_shape[2] == abs_measures.abstraction_score(network.layers[2], data.labels)
    assert report.probe_colour[0] == abs_measures.probe_transfer(data.X, data.labels, "colour")
    assert report.alpha_target == pytest.approx(1.0)  # nu_y = 0: the targets are perfectly abstract
    assert report.kernel_alignment[0] == pytest.approx(report.kernel_alignment[1])  # rotation-invariant
    assert abs_measures.kernel_alignment(data.Y, data.Y) == pytest.approx(1.0)
    assert report.depth_deviation is not None and report.depth_deviation >= 0


def test_each_study_offers_its_analysis_at_the_package_level(tmp_path):
    import interp_repro.abstraction
    import interp_repro.modular_addition
    import interp_repro.schur_rnn
    import interp_repro.superposition

    _, network = _two_factor_layers()
    path = reps.save(network, tmp_path / "reps.npz")
    assert interp_repro.abstraction.analyse(interp_repro.abstraction.load(path)) == reps.analyse(network)
    for package, module in ((interp_repro.superposition, toy), (interp_repro.modular_addition, modadd),
                            (interp_repro.schur_rnn, schur)):
        assert (package.FORMAT, package.load, package.save, package.analyse) == (
            module.FORMAT, module.load, module.save, module.analyse)
    with pytest.raises(AttributeError, match="no attribute 'analyze'"):
        interp_repro.superposition.analyze  # noqa: B018


def test_the_cli_analyses_representations_layer_by_layer(tmp_path, capsys):
    _, network = _two_factor_layers()
    path = reps.save(network, tmp_path / "reps.npz")
    assert main(["analyse", "abstraction", str(path), "--out", str(tmp_path)]) == 0
    assert "layer 2: alpha shape" in capsys.readouterr().out
    written = json.loads((tmp_path / "reps.json").read_text())
    assert written["study"] == "abstraction" and len(written["alpha_shape"]) == 3


@pytest.fixture(scope="module")
def small_networks():
    """Two small attention networks (p = 23) trained together, as the chapters stack seeds."""
    return train_modadd("attention", 23, [0, 1], steps=300, rate=1.0, d_model=32, n_heads=4, d_mlp=64,
                        eval_every=50, desc="small", quiet=True).model


def test_a_trained_modular_addition_network_round_trips_to_the_chapters_analysis(small_networks, tmp_path):
    """The chapters analyse each network alone (``experiments._unit``: ``measures.analyse`` with their
    cluster and landmark settings); the file's analysis of each instance gives the same numbers."""
    back = modadd.load(modadd.save(small_networks, tmp_path / "net.pt"))
    cfg = ModAddConfig()
    for k in range(2):
        alone = modadd.single(small_networks, k)
        chapter = modadd_measures.analyse(alone, cfg.min_cluster, cfg.max_clusters, cfg.n_landmarks)
        report = modadd.analyse(back, k)
        assert report.gradient_symmetricity == float(chapter["gradient_symmetricity"])
        assert report.distance_irrelevance == float(chapter["distance_irrelevance"])
        assert [c["frequency"] for c in report.clusters] == chapter["cluster_freqs"].tolist()
        assert [c["betti"] for c in report.clusters] == chapter["betti"].tolist()
        assert [c["cka"]["disc"] for c in report.clusters] == chapter["cka"][:, 0].tolist()
        assert report.rate == 1.0 and report.population["networks"] == len(zhong.population(1.0))


def test_zhongs_release_format_reads_as_his_network(tmp_path):
    for name in (f"model_{zhong.MODEL_A}.pt", f"config_{zhong.MODEL_A}.json"):
        shutil.copy(zhong.RELEASE / name, tmp_path / name)
    ours, his = modadd.load(tmp_path / f"model_{zhong.MODEL_A}.pt"), zhong.load(zhong.path(zhong.MODEL_A))
    pairs = zip(ours.state_dict().values(), his.state_dict().values(), strict=True)
    assert all(torch.equal(a, b) for a, b in pairs) and ours.rate == his.rate


@pytest.mark.book
def test_networks_the_book_trains_export_to_the_chapters_own_values(filled, tmp_path, capsys):
    """``interp-repro export`` of a network of each study the ci build trained (from the session's
    cache), analysed from the file: the chapters' own values, bit for bit."""
    assert main(["export", "modular_addition", "uniform/seed0", "--scale", "ci", "--out", str(tmp_path)]) == 0
    assert main(["export", "schur_rnn", "copy/orthogonal/72", "--scale", "ci", "--out", str(tmp_path)]) == 0
    assert main(["export", "superposition", "five_two/density0.05", "--scale", "ci",
                 "--out", str(tmp_path)]) == 0
    assert main(["export", "abstraction", "gelu/seed1", "--scale", "ci", "--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out.split() == [str(tmp_path / "uniform-seed0-ci.pt"),
                                               str(tmp_path / "copy-orthogonal-72-ci.npz"),
                                               str(tmp_path / "five_two-density0.05-ci.npz"),
                                               str(tmp_path / "gelu-seed1-ci.npz")]
    ablation = abs_ablation.run_ablation(abs_ablation.AblationConfig.preset("ci"))  # the chapter's, cached
    gelu = reps.analyse(reps.load(tmp_path / "gelu-seed1-ci.npz"))  # trained again, on one thread
    for score, ours in (("alpha", (gelu.alpha_shape, gelu.alpha_colour)),
                        ("probe", (gelu.probe_shape, gelu.probe_colour))):
        assert [list(c) for c in zip(*ours, strict=True)][1:] == ablation[f"{score}_intact"][1].tolist()
    intro = toy_experiments.run_intro(toy_experiments.IntroConfig.preset("ci"))
    sparse = toy.analyse(toy.load(tmp_path / "five_two-density0.05-ci.npz"))
    chapter = toy_experiments.intro_claims(intro)
    assert sparse.represented == chapter["superposition.five_two_sparse_count"]
    assert sparse.dims == toy_measures.feature_dimensionality(intro["W"][-1]).tolist()
    assert sparse.dstar == float(toy_measures.dimensions_per_feature(intro["W"][-1]))
    cfg = ModAddConfig.preset("ci")
    chapter = modadd_experiments.run_networks(cfg)["uniform"][0].measured
    report = modadd.analyse(modadd.load(tmp_path / "uniform-seed0-ci.pt"))
    assert report.gradient_symmetricity == float(chapter["gradient_symmetricity"])
    assert report.distance_irrelevance_top_incorrect == float(chapter["distance_irrelevance_top_incorrect"])
    assert [c["betti"] for c in report.clusters] == chapter["betti"].tolist()
    assert [c["cka"]["disc"] for c in report.clusters] == chapter["cka"][:, 0].tolist()
    copy = schur_experiments.CopyConfig.preset("ci")
    spec = copy.specs()[0]
    unit = schur_experiments.run_unit(spec, copy.alpha, copy.eval_batch)
    exported = schur.load(tmp_path / "copy-orthogonal-72-ci.npz")
    for k in range(spec.seeds):
        ablations = schur.analyse(exported, k).ablations
        assert [a["accuracy"] for a in ablations.values()] == unit.measured["accuracy"][:, k].tolist()
        assert [a["fvu"] for a in ablations.values()] == unit.measured["fvu"][:, k].tolist()


@pytest.mark.book
def test_each_of_zhongs_networks_analyses_to_the_chapters_values(filled):
    """Every network of Zhong's release our model represents, read from his own save file through the
    analyse format's loader: the values the manifolds chapter shows for it (from the ci build's cache)."""
    chapter = {u.spec.runid: u.measured for u in modadd_experiments.run_zhong(ModAddConfig.preset("ci"))}
    for runid in zhong.NETWORKS:
        report, measured = modadd.analyse(modadd.load(zhong.path(runid))), chapter[runid]
        assert report.accuracy == float(measured["accuracy"]), runid
        assert report.gradient_symmetricity_triples == float(measured["gradient_symmetricity_triples"]), runid
        assert report.distance_irrelevance == float(measured["distance_irrelevance"]), runid
        assert [c["betti"] for c in report.clusters] == measured["betti"].tolist(), runid


def test_an_unknown_network_to_export_names_the_closest(capsys):
    assert main(["export", "modular_addition", "unifrm/seed0", "--scale", "ci"]) == 2
    assert "did you mean uniform/seed0" in capsys.readouterr().err
    assert main(["export", "schur_rnn", "--list", "--scale", "ci"]) == 0
    assert "copy/orthogonal/72" in capsys.readouterr().out.split()


def test_the_cli_prints_the_report_and_writes_it_as_json(tmp_path, capsys):
    np.savez(tmp_path / "pentagon.npz", W=_pentagon())
    assert main(["analyse", "superposition", str(tmp_path / "pentagon.npz"), "--out", str(tmp_path)]) == 0
    assert "5 pentagon" in capsys.readouterr().out
    written = json.loads((tmp_path / "pentagon.json").read_text())
    assert written["study"] == "superposition" and written["geometry"]["pentagon"] == 5
    assert not (tmp_path / "cache").exists()


def test_the_cli_writes_the_studys_figures_of_the_network_in_each_format_asked(tmp_path, capsys):
    np.savez(tmp_path / "pentagon.npz", W=_pentagon())
    _, network = _two_factor_layers()
    reps.save(network, tmp_path / "reps.npz")
    for study, stem, name in (("superposition", "pentagon", "directions"),
                              ("abstraction", "reps", "alpha_by_layer")):
        assert main(["analyse", study, str(tmp_path / f"{stem}.npz"), "--out", str(tmp_path / "out"),
                     "--format", "png", "--format", "svg"]) == 0
        for fmt in ("png", "svg"):
            assert (tmp_path / "out" / f"{stem}-{name}.{fmt}").stat().st_size > 1000
    assert (tmp_path / "out" / "pentagon-directions.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(SystemExit) as exit_:
        main(["analyse", "superposition", str(tmp_path / "pentagon.npz"), "--format", "jpg"])
    assert exit_.value.code == 2 and "invalid choice: 'jpg'" in capsys.readouterr().err


def test_the_help_names_each_format(capsys):
    with pytest.raises(SystemExit):
        main(["analyse", "--help"])
    out = capsys.readouterr().out
    assert all(" ".join(m.FORMAT.split()) in " ".join(out.split()) for m in (toy, modadd, schur, reps))


def _write(path, **arrays):
    np.savez(path, **arrays)
    return path


def _modadd(path, drop=None, settings=None, **weights):
    """A small attention network in the format, with weights replaced, one dropped or settings changed."""
    model = ModAddNet(1, 5, "attention", torch_generator(0), d_model=32, n_heads=4, d_mlp=64)
    modadd.save(model, path)
    state = torch.load(path, weights_only=True) | weights
    state.pop(drop, None)
    torch.save(state, path)
    beside = path.with_suffix(".json")
    beside.write_text(json.dumps(json.loads(beside.read_text()) | (settings or {})))
    return path


SQUARE = np.eye(4)
LABELS = np.array([(1, 1), (1, -1), (-1, 1), (-1, -1)])
MALFORMED = {
    "superposition": {
        "a W of four axes": (lambda p: _write(p, W=np.zeros((1, 2, 3, 4))), "W must be (m, n)"),
        "no W": (lambda p: _write(p, b=np.zeros(3)), "no W"),
        "NaN weights": (lambda p: _write(p, W=np.full((2, 3), np.nan)), "NaN or infinity"),
        "weights as text": (lambda p: _write(p, W=np.array([["a", "b"]])), "must hold real numbers"),
        "a bias of the wrong length": (lambda p: _write(p, W=np.ones((2, 3)), b=np.ones(4)), "b must be"),
        "a density above 1": (lambda p: _write(p, W=np.ones((2, 3)), density=np.array(2.0)), "density must"),
        "a key it does not know": (lambda p: _write(p, W=np.ones((2, 3)), V=np.ones(2)), "unknown keys"),
    },
    "modular_addition": {
        "no settings beside it": (lambda p: (torch.save({"W_E": torch.ones(1, 5, 4)}, p), p)[1],
                                  "no settings"),
        "a missing weight": (lambda p: _modadd(p, drop="W_U"), "do not fit the settings"),
        "a wrong shape": (lambda p: _modadd(p, W_E=torch.ones(1, 7, 32)), "do not fit the settings"),
        "NaN weights": (lambda p: _modadd(p, W_in=torch.full((1, 32, 64), float("nan"))), "finite floats"),
        "a kind we do not have": (lambda p: _modadd(p, settings={"kind": "lstm"}), "kind must be one of"),
        "a width as text": (lambda p: _modadd(p, settings={"d_mlp": "64"}), "d_mlp must be an integer"),
        "settings that are not JSON": (lambda p: (_modadd(p).with_suffix(".json").write_text("{p: 5"), p)[1],
                                       "not a JSON file"),
        "weights that are text": (lambda p: (_modadd(p).write_text("W_E = 1"), p)[1],
                                  "not a torch state_dict"),
    },
    "abstraction": {
        "labels of three columns": (lambda p: _write(p, labels=np.ones((4, 3)), layer0=np.ones((4, 2))),
                                    "labels must be (N, 2)"),
        "no labels": (lambda p: _write(p, layer0=np.ones((4, 2))), "no labels"),
        "NaN representations": (lambda p: _write(p, labels=LABELS, layer0=np.full((4, 2), np.nan)),
                                "NaN or infinity"),
        "representations as text": (lambda p: _write(p, labels=LABELS, layer0=np.array([["a"]] * 4)),
                                    "must hold real numbers"),
        "a layer of other samples": (lambda p: _write(p, labels=LABELS, layer0=np.ones((5, 2))),
                                     "layer0 must be (N, d) with N = 4"),
        "a gap between layers": (lambda p: _write(p, labels=LABELS, layer0=np.ones((4, 2)),
                                                  layer2=np.ones((4, 2))), "without a gap"),
        "a class with no sample": (lambda p: _write(p, labels=LABELS[[0, 0, 1, 2]], layer0=np.ones((4, 2))),
                                   "every (shape, colour) class needs a sample"),
        "labels that are not +-1": (lambda p: _write(p, labels=2 * LABELS, layer0=np.ones((4, 2))),
                                    "in {+1, -1}"),
    },
    "schur_rnn": {
        "a W_hh that is not square": (lambda p: _write(p, W_hh=np.ones((3, 4))), "W_hh must be square"),
        "no W_hh": (lambda p: _write(p, W_xh=np.ones((4, 1))), "no W_hh"),
        "NaN weights": (lambda p: _write(p, W_hh=np.full((4, 4), np.nan)), "NaN or infinity"),
        "weights as text": (lambda p: _write(p, W_hh=np.array([["a"]])), "must hold real numbers"),
        "W_xh without W_hy": (lambda p: _write(p, W_hh=SQUARE, W_xh=np.ones((4, 9))), "come together"),
        "an unknown task": (lambda p: _write(p, W_hh=SQUARE, task=np.array("dance")), "task must be one of"),
        "inputs of the wrong width for the task": (
            lambda p: _write(p, W_hh=SQUARE, W_xh=np.ones((4, 2)), W_hy=np.ones((8, 4)),
                             task=np.array("copy")),
            "W_xh must be (4, "),
    },
}
NOT_THE_FORMAT = {
    "a text file": (lambda p: (p.write_text("W = 1\n"), p)[1], "not an .npz file"),
    "a single .npy array": (lambda p: (np.save(p.with_suffix(".npy"), SQUARE), p.with_suffix(".npy"))[1],
                            "a single array"),
    "an empty file": (lambda p: (p.write_bytes(b""), p)[1], "not an .npz file"),
}


@pytest.mark.parametrize(("study", "case"), [(s, c) for s, cases in MALFORMED.items() for c in cases]
                         + [(s, c) for s in ("superposition", "abstraction", "schur_rnn")
                            for c in NOT_THE_FORMAT])
def test_a_file_that_is_not_the_format_gets_one_line_and_exit_2(study, case, tmp_path, capsys):
    make, message = MALFORMED[study].get(case) or NOT_THE_FORMAT[case]
    path = make(tmp_path / "net.npz")
    assert main(["analyse", study, str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("interp-repro: error: ") and message in err, err
    assert not (tmp_path / "cache").exists() and not (tmp_path / "out").exists()


def test_an_instance_the_file_does_not_hold_and_a_study_without_analysis_are_refused(tmp_path, capsys):
    path = _write(tmp_path / "one.npz", W_hh=SQUARE)
    assert main(["analyse", "schur_rnn", str(path), "--instance", "1"]) == 2
    assert "instance must be an integer in [0, 1)" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main(["analyse", "circuits", str(path)])
    assert exit_.value.code == 2 and "the studies are superposition" in capsys.readouterr().err
    _, network = _two_factor_layers()
    layers = reps.save(network, tmp_path / "reps.npz")
    assert main(["analyse", "abstraction", str(layers), "--instance", "1"]) == 2
    assert "holds one network" in capsys.readouterr().err
    assert main(["analyse", "schur_rnn", str(tmp_path / "missing.npz")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_a_network_the_analysis_cannot_read_gets_one_line(tmp_path, capsys):
    """An untrained MLP of two neurons has no cluster of four: the measure's refusal, in one line."""
    tiny = ModAddNet(1, 5, "mlp_add", torch_generator(0), d_model=8, d_mlp=2)
    path = modadd.save(tiny, tmp_path / "tiny.pt")
    assert main(["analyse", "modular_addition", str(path), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no key-frequency cluster has 4 or more neurons" in err


def test_non_finite_report_values_are_written_as_null():
    from interp_repro.cli import _json_values

    assert _json_values({"a": [1.0, float("nan")], "b": {"c": float("inf"), "d": "x"}}) == \
        {"a": [1.0, None], "b": {"c": None, "d": "x"}}
