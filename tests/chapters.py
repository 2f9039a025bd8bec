"""The chapters listed in _toc.yml, and the study each belongs to."""

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def toc_files() -> list[str]:
    """Every 'file' entry of _toc.yml, in book order (root first)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    found = [toc["root"]]

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                found.append(node["file"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(toc.get("parts", []))
    return found


EXERCISES = "exercises"
"""File name (without .md) of a study's exercise page: in the toc, but not a study chapter."""


def _study_pages() -> list[tuple[str, str, str]]:
    """(path book/<study>/<name>.md, study, name) for every page of a study folder in the toc."""
    out = []
    for entry in toc_files():
        parts = Path(entry).parts
        if len(parts) == 3 and parts[0] == "book":
            out.append((f"{entry}.md", parts[1], parts[2]))
    return out


def study_chapters() -> dict[str, str]:
    """{chapter path (book/<study>/<name>.md): study} for every study chapter in the toc; exercise
    pages are not chapters (they record no claims)."""
    return {path: study for path, study, name in _study_pages() if name != EXERCISES}


def exercise_pages() -> dict[str, str]:
    """{exercise page path (book/<study>/exercises.md): study} for every exercise page in the toc."""
    return {path: study for path, study, name in _study_pages() if name == EXERCISES}


OWN_NETWORKS = "book/analyse.md"
"""The page that analyses networks a reader brings: no study's chapter, yet executed and drawn like one."""
