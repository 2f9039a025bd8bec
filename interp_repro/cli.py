"""Command line: ``interp-repro list | run STUDY | chapter NAME | report``."""

import argparse
import importlib
import os
import sys
from pathlib import Path

from interp_repro import STUDIES
from interp_repro.claims import REPORT_COLUMNS, check_records, report_rows
from interp_repro.core import SCALES, cache_dir, check_scale, record_all
from interp_repro.core.parallel import DASK_ENV, WORKERS_ENV
from interp_repro.core.progress import QUIET_ENV


def _study(name: str) -> str:
    if name not in STUDIES:
        raise argparse.ArgumentTypeError(f"unknown study {name!r}: choose one of {', '.join(STUDIES)}")
    return name


def _scale(name: str) -> str:
    try:
        return check_scale(name)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


BOOK = Path(__file__).resolve().parents[1] / "book"


def chapters() -> list[str]:
    """Chapter names ``study/page`` found in the repository's ``book/`` folder."""
    return sorted(f"{p.parent.name}/{p.stem}" for study in STUDIES for p in (BOOK / study).glob("*.md"))


def _chapter(name: str) -> str:
    if not BOOK.is_dir():
        raise argparse.ArgumentTypeError(f"no book/ folder next to the library ({BOOK}): chapters run from "
                                         "a clone of the repository (pip install -e .)")
    if name.removesuffix(".md").removeprefix("book/") not in chapters():
        raise argparse.ArgumentTypeError(f"unknown chapter {name!r}: choose one of {', '.join(chapters())}")
    return name.removesuffix(".md").removeprefix("book/")


def _workers(value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"--workers must be a positive integer, got {value!r}")
    return int(value)


def _table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
             for r in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def cmd_list(_args) -> int:
    print("studies: " + ", ".join(STUDIES))
    print("scales:  " + ", ".join(SCALES) + " (default book)")
    print(f"cache:   {cache_dir()}")
    return 0


def cmd_run(args) -> int:
    module = importlib.import_module(f"interp_repro.{args.study}.experiments")
    values = module.run_all(args.scale)
    record_all(values, args.scale)
    outcomes = [o for o in check_records(args.scale, study=args.study) if o.claim.id in values]
    for o in outcomes:
        print(o.message())
    return 1 if any(o.result == "FAIL" for o in outcomes) else 0


def cmd_chapter(args) -> int:
    import jupytext
    import papermill

    source = BOOK / f"{args.chapter}.md"
    out = args.out or Path("_build") / "chapters" / f"{args.chapter}.ipynb"
    out.parent.mkdir(parents=True, exist_ok=True)
    papermill.execute_notebook(jupytext.read(source), str(out), parameters={"SCALE": args.scale},
                               kernel_name="python3", cwd=str(source.parent), progress_bar=not args.quiet)
    print(f"executed {args.chapter} at scale {args.scale}: {out}")
    return 0


def cmd_report(args) -> int:
    outcomes = check_records(args.scale, study=args.study)
    print(f"reproduction report, scale {args.scale}")
    print(_table(report_rows(outcomes), REPORT_COLUMNS))
    return 1 if any(o.result == "FAIL" for o in outcomes) else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="interp-repro", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="studies, scales and the cache folder").set_defaults(func=cmd_list)
    run = sub.add_parser("run", help="run a study's experiments and record its claims")
    run.add_argument("study", type=_study, help=f"one of {', '.join(STUDIES)}")
    run.add_argument("--scale", type=_scale, default="book", help=f"one of {', '.join(SCALES)}")
    run.add_argument("--quiet", action="store_true", help="no progress bars")
    where = run.add_mutually_exclusive_group()
    where.add_argument("--workers", type=_workers, default=None,
                       help="train independent models in N local processes (default: one per core)")
    where.add_argument("--dask", metavar="ADDRESS", default=None,
                       help="send independent trainings and analyses to the Dask scheduler at ADDRESS, "
                            "e.g. tcp://10.0.0.5:8786 (install this checkout on every worker)")
    run.set_defaults(func=cmd_run)
    chap = sub.add_parser("chapter", help="execute one chapter as a notebook (figures, numbers, records)")
    chap.add_argument("chapter", type=_chapter, help="study/page, e.g. schur_rnn/copy_task")
    chap.add_argument("--scale", type=_scale, default="book", help=f"one of {', '.join(SCALES)}")
    chap.add_argument("--out", type=Path, default=None,
                      help="executed notebook to write (default _build/chapters/STUDY/PAGE.ipynb)")
    chap.add_argument("--quiet", action="store_true", help="no progress bars")
    chap.set_defaults(func=cmd_chapter)
    rep = sub.add_parser("report", help="claims, paper values, ours and status")
    rep.add_argument("--scale", type=_scale, default="book", help=f"one of {', '.join(SCALES)}")
    rep.add_argument("--study", type=_study, default=None)
    rep.set_defaults(func=cmd_report)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if getattr(args, "quiet", False):
        os.environ[QUIET_ENV] = "1"
    if getattr(args, "workers", None) is not None:
        os.environ[WORKERS_ENV] = str(args.workers)
    if getattr(args, "dask", None):
        os.environ[DASK_ENV] = args.dask
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
