"""Re-render a `dtree compare` report of docs/results from its JSON (the scores of the
finished folds) with the current report code, through the functions the command uses,
without growing a tree; optionally with one dataset's scores replaced by a newer run's
(its JSON from `dtree compare` on that dataset alone, same folds and options). Writes
docs/results/STEM.md and .json (and --svg FILE), from docs/results/STEM.json:

    python docs/results/rerender.py STEM REFERENCE.csv [--sd] [--svg FILE]
        [--replace DATASET NEW.json]

Issue 35 used it when examples/balanced/australian.csv was corrected (docs/reproduce.md).
"""
import json
import sys

from dtcli.cli.evaluate_commands import _write_cd_diagram
from dtcli.reporting.comparison import comparison_document, render_comparison
from dtcli.reporting.reference import reference_comparison

stem, reference = sys.argv[1], sys.argv[2]
show_sd = "--sd" in sys.argv
old = json.load(open(f"docs/results/{stem}.json"))
scores, options = old["scores"], old["options"]
if "--replace" in sys.argv:
    i = sys.argv.index("--replace")
    name, newer = sys.argv[i + 1], json.load(open(sys.argv[i + 2]))
    scores[name], options = newer["scores"][name], newer["options"]
ds, cs = old["datasets"], old["criteria"]
get = lambda k: [[scores[d][c][k] for c in cs] for d in ds]  # noqa: E731
about = {k: old[k] for k in ("metric", "cv", "repeats", "seed")}
about.update(options=options, sources=old["sources"])
repeats = get("repeat_std") if old["repeats"] > 1 else None
doc = comparison_document(ds, cs, get("mean"), get("std"), higher_is_better=True,
                          base=old["base"], repeat_stds=repeats, about=about)
doc["timing"] = old["timing"]
doc["reference"] = reference_comparison(doc, reference)
svg = sys.argv[sys.argv.index("--svg") + 1] if "--svg" in sys.argv else None
if svg:
    _write_cd_diagram(doc, svg)
with open(f"docs/results/{stem}.md", "w") as f:
    render_comparison(doc, "markdown", f, show_sd=show_sd)
with open(f"docs/results/{stem}.json", "w") as f:
    render_comparison(doc, "json", f)
