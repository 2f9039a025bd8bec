"""Claim values at ci on seeds + 1000 from a filled cache (argv[1]); prints JSON {claim: value}."""
import importlib, json, os, sys
os.environ["INTERP_REPRO_CACHE"] = sys.argv[1]
os.environ["INTERP_REPRO_QUIET"] = "1"
os.environ["INTERP_REPRO_WORKERS"] = "1"
from interp_repro.core.presets import seed_offset
out = {}
with seed_offset(1000):
    for study in ("abstraction", "modular_addition", "schur_rnn", "superposition"):
        values = importlib.import_module(f"interp_repro.{study}.experiments").run_all("ci")
        out |= {k: (v.item() if hasattr(v, "item") else v) for k, v in values.items()}
json.dump(out, open(sys.argv[2], "w"), indent=1)
print(len(out), "values")
