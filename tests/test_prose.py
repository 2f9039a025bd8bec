"""Prose that cannot go stale: the chapters state no decimal number that a run could change.

Measured numbers are glued from the run (``{glue:text}``) and the papers' numbers from
``claims.toml`` (``{glue:md}`<claim>.paper```). What is left outside glue, math, code and
citations must be a setting or a name, and is listed below with the reason.
"""

import re

import pytest
from chapters import ROOT

BOOK = ROOT / "book"

ALLOWED: dict[str, set[str]] = {
    # versions of tools
    "intro.md": {"3.11"},            # the Python version the book is tested with
    # names from the papers
    "modular_addition/clock_pizza.md": {"0.0", "1.0"},  # "Attention 0.0 / 1.0", the architectures
    # settings a chapter chooses and states in its setup (they configure runs; no run measures them)
    "superposition/demonstrating.md": {"0.05", "0.999"},   # density range of Figure 1, sparsity range
    "superposition/phase_change.md": {"0.1", "0.01"},      # the 2 -> 1 grid's ranges
    "superposition/geometry.md": {"0.025"},                # the fraction window in the claim's statement
    "schur_rnn/neuroscience.md": {"0.05", "0.1", "0.6"},   # pulse probability, frequency range
    "schur_rnn/copy_task.md": {"0.9"},                     # the split threshold the paper states
    "abstraction/exercises.md": {"0.1", "0.3"},            # the leaky slopes the exercise compares
}
"""Decimal numbers that a chapter may type, per page: a short list, each with its reason."""

DECIMAL = re.compile(r"(?<![\w.])\d*\.\d+(?!\w|\.\d)")
_SKIPPED = [
    re.compile(r"\A---\n.*?\n---\n", re.S),        # front matter
    re.compile(r"^(`{3,}|:{3,}).*?^\1", re.S | re.M),  # code cells, fences and directives' options
    re.compile(r"\$\$.*?\$\$", re.S),               # display math
    re.compile(r"\$[^$\n]+\$"),                     # inline math
    re.compile(r"\{[\w:-]+\}`[^`]*`"),              # roles: glue, cite, ref, ...
    re.compile(r"`[^`\n]*`"),                       # inline code
    re.compile(r"\]\([^)\s]*\)"),                   # link targets
]


def typed_decimals(text: str) -> list[tuple[int, str]]:
    """(line, number) of each decimal number in ``text``'s prose, outside code, math and roles."""
    for pattern in _SKIPPED:
        text = pattern.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return [(i, m.group(0)) for i, line in enumerate(text.splitlines(), 1) for m in DECIMAL.finditer(line)]


def pages() -> list[str]:
    return sorted(str(p.relative_to(BOOK)) for p in BOOK.rglob("*.md") if "_build" not in p.parts)


@pytest.mark.parametrize("page", pages())
def test_no_typed_decimal_outside_glue_math_and_the_allow_list(page):
    typed = [(line, n) for line, n in typed_decimals((BOOK / page).read_text())
             if n not in ALLOWED.get(page, set())]
    assert not typed, (f"{page} types decimal numbers (line, number) {typed}: glue measured numbers "
                       "from the run, the paper's from claims.toml, or list a setting in ALLOWED")


def test_every_allowed_number_is_still_on_its_page():
    for page, numbers in ALLOWED.items():
        found = {n for _, n in typed_decimals((BOOK / page).read_text())}
        assert numbers <= found, f"{page}: {sorted(numbers - found)} no longer typed; drop from ALLOWED"


@pytest.mark.parametrize(("text", "found"), [
    ("ours is 0.42 here", [(1, "0.42")]),
    ("ours is {glue:text}`a.b:.3f`, paper {glue:md}`a.b.paper`", []),
    ("math $x = 0.5$ and $$\n0.25\n$$ and `0.1` and {cite}`x2022`", []),
    ("```{code-cell}\nx = 0.3\n```\nthen 1.5", [(4, "1.5")]),
    ("version 3.11.2 and v1.2 and 2.", []),
    ("it ends at 0.05.", [(1, "0.05")]),
])
def test_the_scanner_finds_decimals_only_in_prose(text, found):
    assert typed_decimals(text) == found
