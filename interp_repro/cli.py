"""Command line: ``interp-repro list | run STUDY|all | chapter NAME | figure NAME | report | cache |
analyse STUDY FILE | export STUDY NAME``.

An expected error (a bad argument, setting, path, address or record file) is one line on stderr and
exit status 2; a claim that fails is exit status 1 (:data:`EXIT_STATUS`).
"""

import argparse
import difflib
import importlib
import json
import math
import os
import sys
from pathlib import Path

from interp_repro import STUDIES, __version__
from interp_repro.core import SCALES, ConfigError, cache_dir, check_scale, default_scale
from interp_repro.core.cache import cache_usage, check_cache_dir, prune
from interp_repro.core.device import DEVICE_ENV, DEVICES, default_device
from interp_repro.core.parallel import (
    DASK_ENV,
    WORKERS_ENV,
    check_dask_address,
    dask_address,
    default_workers,
)
from interp_repro.core.presets import seed_offset
from interp_repro.core.progress import QUIET_ENV
from interp_repro.core.seeding import MAX_SEED
from interp_repro.core.validate import check_writable_dir, env_flag, env_path
from interp_repro.figures import DPI, FORMATS, NO_DATES, book_figures, check_names, render
from interp_repro.reproduction.claims import NOT_CHECKED, load_claims
from interp_repro.reproduction.records import check_record_path, record_path, resolve_env_paths
from interp_repro.reproduction.report import REPORT_COLUMNS, Outcome, check_records, record_all, report_rows
from interp_repro.studies import check_registry, fill_cache, run_all

DESCRIPTION = """\
Run the four reproduced interpretability studies, execute the book's chapters, and report which of
the papers' claims reproduce."""
EXIT_STATUS = """\
exit status: 0 ok; 1 a claim failed; 2 a usage or input error (a bad argument, setting, path, address,
record file or cache entry, or for report nothing recorded), told in one line on stderr; 130 interrupted
(Ctrl-C), with nothing partial left in the cache
"""
ENVIRONMENT = EXIT_STATUS + """
environment variables (a command-line flag wins over its variable):
  INTERP_REPRO_SCALE    the default --scale of run, chapter and report (else book)
  INTERP_REPRO_CACHE    the results cache folder (default ~/.cache/interp-repro)
  INTERP_REPRO_RECORD   the claim record file (default $XDG_STATE_HOME/interp-repro/records.json,
                        i.e. ~/.local/state/interp-repro/records.json)
  INTERP_REPRO_WORKERS  local worker processes (default one per core); --workers N
  INTERP_REPRO_DASK     a Dask scheduler to run jobs on; --dask ADDRESS (--workers N ignores it)
  INTERP_REPRO_QUIET    1, true, yes or on: no progress bars (0, false, no, off: bars); --quiet
  INTERP_REPRO_DEVICE   where modular addition and the Schur RNNs train: cpu (default), cuda, auto; --device
  INTERP_REPRO_BOOK     the book's source folder for chapter and figure (default ./book); --book DIR
"""


def _study(name: str) -> str:
    if name not in STUDIES:
        raise argparse.ArgumentTypeError(f"unknown study {name!r}: choose one of {', '.join(STUDIES)}")
    return name


def _study_or_all(name: str) -> str:
    return name if name == "all" else _study(name)


def _scale(name: str) -> str:
    try:
        return check_scale(name)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


BOOK_ENV = "INTERP_REPRO_BOOK"


def book_dir(book: Path | None = None) -> Path:
    """The book's source folder: ``book``, else ``$INTERP_REPRO_BOOK``, else ``book/`` in the current
    folder (a clone's root); a :class:`ConfigError` when it is not a folder."""
    folder = Path(book or env_path(BOOK_ENV) or "book")
    if not folder.is_dir():
        raise ConfigError(f"no book folder at {folder.resolve()}: run from the root of a clone of the "
                          f"repository, or give --book DIR or ${BOOK_ENV}")
    return folder.resolve()


def chapters(book: Path) -> list[str]:
    """Chapter names ``study/page`` found in the book folder ``book``."""
    return sorted(f"{p.parent.name}/{p.stem}" for study in STUDIES for p in (book / study).glob("*.md"))


def _chapter_name(name: str) -> str:
    return name.removesuffix(".md").removeprefix("book/")


def _seed_offset(value: str) -> int:
    if not value.isascii() or not value.isdigit() or int(value) > MAX_SEED:
        raise argparse.ArgumentTypeError(f"--seed-offset must be an integer in [0, 2**63 - 1] (what the "
                                         f"random generators take), got {value!r:.40}")
    return int(value)


def _nonnegative(value: str) -> int:
    if not value.isascii() or not value.isdigit():
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {value!r:.40}")
    return int(value)


def _workers(value: str) -> int:
    if not value.isascii() or not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"--workers must be a positive integer, got {value!r}")
    return int(value)


def _dask(address: str) -> str:
    try:
        return check_dask_address(address)
    except ConfigError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _default_scale() -> str:
    try:
        return default_scale()
    except ValueError as err:
        raise ConfigError(str(err)) from None


def _check_setup() -> None:
    """Fail on a bad setting before any work: the cache folder, the record file, the registry against
    the claims functions, where jobs run."""
    check_cache_dir()
    check_record_path()
    check_registry()
    if dask_address() is None:
        default_workers()


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line, ``PROG: error: ...``, with exit status 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def cmd_list(_args) -> int:
    scale, cache, records = _default_scale(), cache_dir(), record_path()  # a bad setting: nothing printed
    print("studies: " + ", ".join(STUDIES))
    print("scales:  " + ", ".join(SCALES) + f" (default {scale})")
    print(f"cache:   {cache}")
    print(f"records: {records}")
    return 0


def cmd_run(args) -> int:
    _check_setup()
    studies = STUDIES if args.study == "all" else (args.study,)
    with seed_offset(args.seed_offset):
        fill_cache(args.scale, studies)  # each study's jobs in a pool
        values = {cid: v for study in studies for cid, v in run_all(args.scale, study).items()}
    claims = load_claims()
    outcomes = {cid: Outcome.of(claims[cid], args.scale, v) for cid, v in values.items()}
    if not args.seed_offset:  # other seeds than the book's are checked, not recorded
        record_all({cid: v for cid, v in values.items() if not outcomes[cid].invalid}, args.scale)
        recorded = {o.claim.id: o for o in check_records(args.scale) if o.claim.id in values}
        outcomes = {cid: o if o.invalid else recorded[cid] for cid, o in outcomes.items()}
    for claim in claims.values():  # checked at this scale, yet no claims function measured it
        if claim.study in studies and args.scale not in claim.skipped and claim.id not in values:
            outcomes[claim.id] = Outcome(claim, args.scale, None,
                                         invalid=f"no claims function returned a value at {args.scale}")
    for o in outcomes.values():
        print(o.message())
    return 1 if any(o.result == "FAIL" for o in outcomes.values()) else 0


def cmd_chapter(args) -> int:
    _check_setup()
    import jupytext
    import papermill

    source = args.book / f"{args.chapter}.md"
    out = args.out or Path("_build") / "chapters" / f"{args.chapter}.ipynb"
    check_writable_dir("the folder of the executed notebook (--out)", out.parent)
    if out.is_dir():
        raise ConfigError(f"--out {out} is a folder: give the notebook file to write")
    papermill.execute_notebook(jupytext.read(source), str(out), parameters={"SCALE": args.scale},
                               kernel_name="python3", cwd=str(source.parent), progress_bar=not args.quiet)
    print(f"executed {args.chapter} at scale {args.scale}: {out}")
    return 0


def cmd_figure(args) -> int:
    figures = book_figures(args.book)
    if args.names and (args.list or args.all):
        raise ConfigError(f"give figure names, or --list or --all, not both (got {' '.join(args.names)})")
    if args.list:
        rows = [(f.name, f.chapter, f.caption[:60] + ("..." if len(f.caption) > 60 else ""))
                for f in figures.values()]
        print(_table(rows, ("figure", "chapter", "caption")))
        return 0
    names = list(figures) if args.all else check_names(args.names, figures)
    if not names:
        raise ConfigError("name a figure (or several), or give --all or --list")
    _check_setup()
    check_writable_dir("the figure folder (--out)", args.out)
    for path in render(names, args.book, args.scale, args.format or ["pdf"], args.out):
        print(path)
    return 0


def cmd_report(args) -> int:
    outcomes = check_records(args.scale, study=args.study)
    if all(o.result in ("not run", NOT_CHECKED) for o in outcomes):
        raise ConfigError(f"no claim recorded at scale {args.scale} for {args.study or 'any study'} by "
                          f"this library code in {record_path()}: run `interp-repro run STUDY --scale "
                          f"{args.scale}` first")
    if args.json:
        print(json.dumps([o.as_dict() for o in outcomes], indent=1, allow_nan=False))
    else:
        print(f"reproduction report, scale {args.scale}")
        print(_table(report_rows(outcomes), REPORT_COLUMNS))
    return 1 if any(o.result == "FAIL" for o in outcomes) else 0


ANALYSED = {"superposition": "interp_repro.superposition.external",
            "modular_addition": "interp_repro.modular_addition.external",
            "abstraction": "interp_repro.abstraction.external",
            "schur_rnn": "interp_repro.schur_rnn.external"}
"""The studies whose analysis ``analyse`` runs on a network the user brings, and whose networks
``export`` writes in that format: the module of each, with its ``FORMAT``, ``load``, ``save``,
``analyse``, ``figures`` and ``exportable``."""


def _analysed(name: str) -> str:
    if name not in ANALYSED:
        raise argparse.ArgumentTypeError(f"the studies are {', '.join(ANALYSED)}, got {name!r}")
    return name


def _json_values(value):
    """``value`` with every NaN or infinite float as None (JSON has neither)."""
    if isinstance(value, dict):
        return {k: _json_values(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_values(v) for v in value]
    return None if isinstance(value, float) and not math.isfinite(value) else value


def cmd_analyse(args) -> int:
    study = importlib.import_module(ANALYSED[args.study])
    if not args.path.is_file():
        raise ConfigError(f"{args.path}: no such file")
    network = study.load(args.path)
    try:
        report = study.analyse(network, args.instance)
    except ValueError as err:  # the network's own values refused by a measure (no cluster, a NaN score)
        raise ConfigError(f"{args.path}: {str(err).splitlines()[0]}") from None
    print(f"{args.study} analysis of {args.path} (instance {args.instance})")
    print("\n".join(f"  {line}" for line in report.lines()))
    folder = check_writable_dir("the analysis folder (--out)", args.out)
    out = folder / f"{args.path.stem}.json"
    out.write_text(json.dumps(_json_values({"study": args.study, "file": str(args.path),
                                            "instance": args.instance, **report.as_dict()}), indent=1,
                              allow_nan=False))
    print(out)
    if args.format:
        import matplotlib

        matplotlib.use("agg")  # before pyplot: no window opens
        import matplotlib.pyplot as plt

        for name, fig in study.figures(network, report, args.instance).items():
            for fmt in dict.fromkeys(args.format):
                path = folder / f"{args.path.stem}-{name}.{fmt}"
                fig.savefig(path, format=fmt, dpi=DPI, metadata=NO_DATES[fmt])
                print(path)
            plt.close(fig)
    return 0


def cmd_export(args) -> int:
    study = importlib.import_module(ANALYSED[args.study])
    networks = study.exportable(args.scale)
    if args.list:
        print("\n".join(networks))
        return 0
    if args.name is None:
        raise ConfigError("name a network (see --list)")
    if args.name not in networks:
        close = difflib.get_close_matches(args.name, networks, n=3, cutoff=0.5)
        hint = f"did you mean {', '.join(close)}?" if close else f"`interp-repro export {args.study} --list`"
        raise ConfigError(f"no network {args.name!r} at scale {args.scale}: {hint}")
    _check_setup()
    folder = check_writable_dir("the export folder (--out)", args.out)
    suffix = ".pt" if args.study == "modular_addition" else ".npz"
    path = study.save(networks[args.name](), folder / f"{args.name.replace('/', '-')}-{args.scale}{suffix}")
    print(path)
    return 0


def cmd_cache(args) -> int:
    root = cache_dir()
    if root.exists() or args.prune:  # --size reads what is there and creates nothing
        check_cache_dir()
    if args.prune:
        print(f"removed {len(prune())} outdated entries and stale temporary files from {root}")
        return 0
    usage = cache_usage()
    rows = [(study, str(u.entries), f"{u.bytes / 1e6:.1f} MB") for study, u in sorted(usage.items())]
    rows.append(("total", str(sum(u.entries for u in usage.values())),
                 f"{sum(u.bytes for u in usage.values()) / 1e6:.1f} MB"))
    print(f"cache: {root}")
    print(_table(rows, ("study", "entries", "size")))
    corrupt = sum(u.corrupt for u in usage.values())
    if corrupt:
        print(f"{corrupt} of these entries are corrupt (unreadable or invalid): "
              "`interp-repro cache --prune` removes them")
    return 0


def _command(sub, name: str, summary: str, func) -> argparse.ArgumentParser:
    parser = sub.add_parser(name, help=summary, description=summary, epilog=ENVIRONMENT,
                            formatter_class=argparse.RawDescriptionHelpFormatter)  # a _Parser, as its parent
    parser.set_defaults(func=func)
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="interp-repro", description=DESCRIPTION, epilog=ENVIRONMENT,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"interp-repro {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    book_help = f"the book's source folder (default ${BOOK_ENV}, else ./book)"
    scale_help = f"one of {', '.join(SCALES)} (default $INTERP_REPRO_SCALE, else book)"
    _command(sub, "list", "studies, scales, the cache folder and the record file", cmd_list)
    run = _command(sub, "run", "run a study's experiments (or every study's) and record its claims",
                   cmd_run)
    run.add_argument("study", type=_study_or_all,
                     help=f"one of {', '.join(STUDIES)}, or all")
    run.add_argument("--scale", type=_scale, default=None, help=scale_help)
    run.add_argument("--quiet", action="store_true", help="no progress bars")
    run.add_argument("--seed-offset", type=_seed_offset, default=0, metavar="K",
                     help="shift every seed by K: check the claims on other seeds (not recorded)")
    device_help = ("cpu, or cuda (auto: cuda where torch sees a GPU) to train modular addition's networks "
                   "stacked on the GPU, many per program, and the Schur RNN units (their seeds stacked)")
    run.add_argument("--device", choices=(*DEVICES, "auto"), default=None, help=device_help)
    where = run.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_workers, default=None,
                       help="train independent models in N local processes (default: one per core)")
    where.add_argument("--dask", metavar="ADDRESS", type=_dask, default=None,
                       help="send independent trainings and analyses to the Dask scheduler at ADDRESS, "
                            "e.g. tcp://10.0.0.5:8786 (install this checkout on every worker)")
    chap = _command(sub, "chapter", "execute one chapter as a notebook (figures, numbers, records)",
                    cmd_chapter)
    chap.add_argument("chapter", type=_chapter_name, help="study/page, e.g. schur_rnn/copy_task")
    chap.add_argument("--scale", type=_scale, default=None, help=scale_help)
    chap.add_argument("--out", type=Path, default=None,
                      help="executed notebook to write (default _build/chapters/STUDY/PAGE.ipynb)")
    chap.add_argument("--book", type=Path, default=None, help=book_help)
    chap.add_argument("--quiet", action="store_true", help="no progress bars")
    chap.add_argument("--device", choices=(*DEVICES, "auto"), default=None, help=device_help)
    fig = _command(sub, "figure", "render book figures by name (the name: of their MyST figure) to PDF, "
                   "SVG or PNG files, from the cache, training only what is missing", cmd_figure)
    fig.add_argument("names", nargs="*", metavar="NAME", help="figure names, e.g. fig-dstar (see --list)")
    which = fig.add_mutually_exclusive_group()
    which.add_argument("--list", action="store_true", help="list the figures: name, chapter, caption")
    which.add_argument("--all", action="store_true", help="render every figure")
    fig.add_argument("--format", choices=FORMATS, action="append", default=None,
                     help="pdf, svg or png (300 dpi); repeat for several (default pdf)")
    fig.add_argument("--scale", type=_scale, default=None, help=scale_help)
    fig.add_argument("--out", type=Path, default=Path("_build") / "figures",
                     help="folder for NAME.FORMAT files (default _build/figures)")
    fig.add_argument("--book", type=Path, default=None, help=book_help)
    fig.add_argument("--quiet", action="store_true", help="no progress bars")
    rep = _command(sub, "report", "claims: the paper's value and band, ours, the measured and the expected "
                   "status; exit 1 when an outcome fails, 2 for a bad record file or nothing recorded",
                   cmd_report)
    rep.add_argument("--scale", type=_scale, default=None, help=scale_help)
    rep.add_argument("--study", type=_study, default=None)
    rep.add_argument("--json", action="store_true",
                     help="print one object per claim: id, kind, paper value and band, ours, measured "
                          "and expected status, guard and result")
    formats = "\n".join(f"  {importlib.import_module(m).FORMAT}" for m in ANALYSED.values())
    ana = _command(sub, "analyse", "the paper's analysis on a network of your own, from a file; prints a "
                   "short report and writes it as JSON", cmd_analyse)
    ana.epilog = f"file formats:\n{formats}\n\n{ENVIRONMENT}"
    ana.add_argument("study", type=_analysed, help=", ".join(ANALYSED))
    ana.add_argument("path", type=Path, metavar="FILE", help="the network, in the study's format (below)")
    ana.add_argument("--instance", type=_nonnegative, default=0, metavar="K",
                     help="which network of a file that holds several (default 0)")
    ana.add_argument("--out", type=Path, default=Path("_build") / "analyses",
                     help="folder for FILE.json, the report, and its figures (default _build/analyses)")
    ana.add_argument("--format", choices=FORMATS, action="append", default=None,
                     help="also write the study's figures of the network as FILE-NAME.FORMAT (repeat for "
                          "several formats)")
    exp = _command(sub, "export", "write a network the book trains in the format analyse reads (training it "
                   "if the cache lacks it)", cmd_export)
    exp.add_argument("study", type=_analysed, help=", ".join(ANALYSED))
    exp.add_argument("name", nargs="?", default=None, help="the network, e.g. uniform/seed0 (see --list)")
    exp.add_argument("--list", action="store_true", help="the networks the book trains at this scale")
    exp.add_argument("--scale", type=_scale, default=None, help=scale_help)
    exp.add_argument("--out", type=Path, default=Path("_build") / "networks",
                     help="folder for the file (default _build/networks)")
    cache = _command(sub, "cache", "the size of the results cache, or prune it", cmd_cache)
    what = cache.add_mutually_exclusive_group(required=True)
    what.add_argument("--size", action="store_true", help="entries and megabytes per study")
    what.add_argument("--prune", action="store_true",
                      help="delete the entries older library code wrote and stale temporary files")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; expected errors (:class:`ConfigError`) print one line and return 2, and
    Ctrl-C one line and 130."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "quiet", False):
        os.environ[QUIET_ENV] = "1"
    if getattr(args, "workers", None) is not None:
        os.environ[WORKERS_ENV] = str(args.workers)
        os.environ.pop(DASK_ENV, None)
    if getattr(args, "dask", None):
        os.environ[DASK_ENV] = args.dask
    if getattr(args, "device", None):
        os.environ[DEVICE_ENV] = args.device
    try:
        resolve_env_paths()
        env_flag(QUIET_ENV)
        if args.command in ("run", "chapter", "figure", "export"):  # the commands that train
            try:
                default_device()
            except (ValueError, RuntimeError) as err:
                raise ConfigError(f"${DEVICE_ENV} or --device: {err}") from None
        if "scale" in args and args.scale is None:
            args.scale = _default_scale()
        if "book" in args:
            args.book = book_dir(args.book)
        if "chapter" in args and args.chapter not in chapters(args.book):
            parser.error(f"argument chapter: unknown chapter {args.chapter!r}: choose one of "
                         f"{', '.join(chapters(args.book))}")
        return args.func(args)
    except ConfigError as err:
        print(f"interp-repro: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # the pool's workers are stopped by then (core.parallel)
        finished = sum(usage[0] for usage in cache_usage().values())
        print(f"interp-repro: interrupted; the cache holds {finished} finished entries, nothing partial",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
