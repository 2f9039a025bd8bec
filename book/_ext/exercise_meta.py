"""Sphinx extension: every exercise's difficulty and time where the student reads it, and the
instructors' table, both from ``interp_repro.exercises.catalogue`` (one source, never typed twice).

Under each sphinx-exercise title it puts the catalogue's line ("★★ · 30 min", with the points of a
coding exercise); an exercise missing from the catalogue is a warning, an error under ``-W``. The
``exercise-table`` directive writes the instructors' table. Both pages are read again on every build,
so an edit of the catalogue alone reaches them.
"""

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

LOGGER = logging.getLogger(__name__)
TABLE_PAGE = "book/instructors"


def _exercise_pages(env) -> list[str]:
    return sorted(doc for doc in env.found_docs if doc.startswith("book/") and doc.endswith("/exercises"))


def _outdated(app: Sphinx, env, added, changed, removed) -> list[str]:
    return [doc for doc in [TABLE_PAGE, *_exercise_pages(env)] if doc in env.found_docs]


def _add_badges(app: Sphinx, doctree: nodes.document) -> None:
    from sphinx_exercise.nodes import exercise_enumerable_node, exercise_node

    from interp_repro.exercises.catalogue import exercise

    for node in doctree.findall(lambda n: isinstance(n, exercise_node | exercise_enumerable_node)):
        try:
            entry = exercise(node["label"])
        except KeyError as err:
            LOGGER.warning(str(err.args[0]), location=node)
            continue
        text = entry.badge + (f" · {entry.points} points when graded" if entry.points else "")
        badge = nodes.paragraph("", "", nodes.strong(text=text), classes=["exercise-badge"])
        content = next((child for child in node.children if isinstance(child, nodes.section)), node)
        content.insert(0, badge)


class ExerciseTable(SphinxDirective):
    """The instructors' table of every exercise, from the catalogue."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from interp_repro.exercises.catalogue import instructors_table

        container = nodes.container(classes=["exercise-table"])
        self.state.nested_parse(StringList(instructors_table().splitlines(), source="catalogue"),
                                self.content_offset, container)
        return [container]


def setup(app: Sphinx) -> dict[str, bool]:
    app.add_directive("exercise-table", ExerciseTable)
    app.connect("env-get-outdated", _outdated)
    app.connect("doctree-read", _add_badges)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
