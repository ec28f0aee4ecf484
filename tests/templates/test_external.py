"""The external corpus (tests/templates/external/): other servers' parser tests, run
through the bundled templates. Fails when an agreement drops below the level
recorded in baseline.json, when a case disagrees that templates_src/README.md
does not list, or when a case listed as malformed stops raising."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "templates" / "external"))

import corpus  # noqa: E402

REPORT = corpus.run()
BASELINE = json.loads((ROOT / "tests" / "templates" / "external" / "baseline.json").read_text(encoding="utf-8"))
README = (ROOT / "templates_src" / "README.md").read_text(encoding="utf-8")


def test_the_corpus_has_both_sources_and_records_where_each_case_comes_from():
    cases = corpus.load_cases()
    assert {c["source"] for c in cases} == {"sglang", "llama.cpp"}
    assert len(cases) > 400
    for case in cases:
        assert case["file"] and len(case["commit"]) == 40 and case["repository"]


@pytest.mark.parametrize("source", sorted(BASELINE["per_source"]))
def test_agreement_per_source_does_not_drop(source):
    got = corpus.ratio(REPORT["per_source"][source])
    assert got >= BASELINE["per_source"][source] - 1e-9, f"{source}: {got:.4f} < {BASELINE['per_source'][source]}"
    assert got >= 0.95, f"{source}: {got:.4f} is under the 95% target"


@pytest.mark.parametrize("template", sorted(BASELINE["per_template"]))
def test_agreement_per_template_does_not_drop(template):
    counts = REPORT["per_template"].get(template)
    assert counts is not None, f"{template}: no longer compared"
    assert corpus.ratio(counts) >= BASELINE["per_template"][template] - 1e-9


def test_every_disagreement_is_explained_in_the_templates_readme():
    unexplained = [r["id"] for r in REPORT["results"] if r["status"] == "disagree" and f"`{r['id']}`" not in README]
    assert not unexplained, f"disagreements not listed in templates_src/README.md: {unexplained}"


def test_listed_malformed_cases_still_raise():
    listed = {k for k in json.loads((ROOT / "tests" / "templates" / "external" / "raises.json").read_text()) if not k.startswith("_")}
    statuses = {r["id"]: r["status"] for r in REPORT["results"]}
    assert {i for i in listed if statuses.get(i) != "raises"} == set()
