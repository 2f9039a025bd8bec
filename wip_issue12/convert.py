"""Convert the old claims.toml (status + per-scale checks) into the new schema."""
import json, sys, tomllib

old = tomllib.load(open("/tmp/s/old_claims.toml", "rb"))["claims"]
NEW_HEADER = """# Every headline claim of every study. See interp_repro/reproduction/claims.py for the schema.
# band: the paper's result as a check (its number with a stated tolerance, or its statement as a
# bound); a value in the band is reproduced, any other differs: the status is measured, never typed.
# expected: the status each scale's run must measure (a run with another fails, either way).
# guard: optional bounds around our own value per scale, against drift; never decides the status.
# skip: a scale where the status cannot be told, with the reason. A band is never widened to pass.
"""
ci = json.load(open(sys.argv[1]))        # {claim: value} chapters' seeds, ci
ci2 = json.load(open(sys.argv[2]))       # {claim: value} seeds + 1000, ci
OV = json.load(open("/tmp/s/conv/overrides.json"))

SANITY = {"abstraction.rich_max_alpha", "abstraction.lazy_excess", "abstraction.depth_profile_deviation",
          "abstraction.kernel_mc_max_error", "abstraction.depth_terminal_gap",
          "schur_rnn.copy_cayley_max_change", "schur_rnn.neuro_cayley_max_dfvu"}
SEED = {"modular_addition.seed_mean_bottleneck", "modular_addition.seed_permutation_p"}
NOT_COMPARABLE = {"abstraction.gelu_alpha_intact", "abstraction.gelu_alpha_ablated",
                  "abstraction.gelu_probe_intact", "abstraction.gelu_probe_ablated"}


def passes(b, v):
    if "equals" in b:
        return v == b["equals"] and isinstance(v, bool) == isinstance(b["equals"], bool)
    if isinstance(v, bool):
        return False
    return (b.get("min") is None or v >= b["min"]) and (b.get("max") is None or v <= b["max"])


def fmt(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {fmt(x)}" for k, x in v.items()) + " }"
    return repr(v)


out, problems, notcomp = [NEW_HEADER], [], []
study_now = None
for c in old:
    cid = c["id"]
    if c["study"] != study_now and cid not in NOT_COMPARABLE:
        study_now = c["study"]
        out.append(f"# --- {study_now} " + "-" * (90 - len(study_now)))
    o = OV.get(cid, {})
    if cid in NOT_COMPARABLE:
        notcomp.append(c)
        continue
    kind = o.get("kind", "sanity" if cid in SANITY else "seed" if cid in SEED else "reproduction")
    band = o.get("band") or {k: v for k, v in c["check"]["book"].items()}
    if "band" not in o and c["status"] != "reproduced":
        problems.append(f"{cid}: no band override for a {c['status']} claim")
    expected, skip, guard = {}, dict(o.get("skip", {})), dict(o.get("guard", {}))
    for scale in ("ci", "book", "paper"):
        if scale in skip:
            continue
        if scale == "ci":
            a, b = ci.get(cid), ci2.get(cid)
            if a is None:
                problems.append(f"{cid}: no ci value")
                continue
            sa, sb = passes(band, a), (passes(band, b) if b is not None else None)
            if sb is not None and sa != sb:
                problems.append(f"{cid}: ci straddles the band: {a} / {b} vs {band}")
            expected["ci"] = "reproduced" if sa else "differs"
            if not sa and "ci" not in guard and c["status"] == "reproduced":
                guard["ci"] = c["check"]["ci"]
        else:
            expected[scale] = o.get("expected", {}).get(scale, "reproduced" if c["status"] == "reproduced" else "differs")
    if "expected" in o and "ci" in o["expected"]:
        if o["expected"]["ci"] != expected.get("ci"):
            problems.append(f"{cid}: override expects ci {o['expected']['ci']} but measured {expected.get('ci')}")
    lines = ["[[claims]]", f"id = {fmt(cid)}", f"study = {fmt(c['study'])}", f"kind = {fmt(kind)}",
             f"statement = {fmt(o.get('statement', c['statement']))}", f"source = {fmt(c['source'])}",
             f"paper = {fmt(o.get('paper', c['paper']))}"]
    if "paper_value" in o:
        lines.append(f"paper_value = {fmt(o['paper_value'])}")
    lines.append(f"band = {fmt(band)}")
    lines.append(f"expected = {fmt(expected)}")
    if skip:
        lines.append(f"skip = {fmt(skip)}")
    for scale, g in guard.items():
        lines.append(f"guard.{scale} = {fmt(g)}")
    note = o.get("note", c.get("note", ""))
    if note:
        lines.append(f"note = {fmt(note)}")
    out.append("\n".join(lines) + "\n")
    if cid.startswith("modular_addition.") and False:
        pass

text = "\n".join(out)
nc = []
for c in notcomp:
    nc.append("\n".join(["[[not_reproduced]]", f"id = {fmt(c['id'])}", f"study = {fmt(c['study'])}",
                         f"statement = {fmt(c['statement'])}", f"source = {fmt(c['source'])}",
                         f"paper = {fmt(c['paper'])}", f"why = {fmt(OV['_why'][c['id']])}"]) + "\n")
NC_HEADER = ("# --- not reproduced here " + "-" * 67 + "\n# Results we do not claim, because we cannot run "
             "what they were measured on; listed, never counted.\n")
open("/tmp/s/conv/claims.toml", "w").write(text + "\n" + NC_HEADER + "\n" + "\n".join(nc))
print("\n".join(problems) or "no problems")
