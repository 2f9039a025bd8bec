"""Sphinx extension: write how long each page took to execute in this build.

MyST-NB times every notebook it executes; at the end of the build this writes those times, in
seconds, to ``<build>/execution-times.json`` ({page: seconds}), with the scale the build ran at.
``make book`` and the test suite's ``ci`` build read it, so the times the README and the chapters
state can be checked against a fresh measurement.
"""

import json
import os
from pathlib import Path


def _write_times(app, exception):
    from myst_nb.sphinx_ import NbMetadataCollector

    if exception is not None:
        return
    times = {}
    for docname in sorted(app.env.found_docs):
        data = NbMetadataCollector.get_exec_data(app.env, docname)
        if data and data.get("runtime") is not None:
            times[f"{docname}.md"] = round(data["runtime"], 1)
    out = Path(app.outdir).parent / "execution-times.json"
    out.write_text(json.dumps({"scale": os.environ.get("INTERP_REPRO_SCALE", "book"), "seconds": times},
                              indent=1))


def setup(app):
    app.connect("build-finished", _write_times)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
