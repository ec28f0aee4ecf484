"""The format inventory (compiler/conformance/inventory.json) is fully exercised:
every entry by at least one vector, on which the reference interpreter took
that rule's path (compiler/conformance/coverage.py); every tag the probes emit is listed."""

from __future__ import annotations

from compiler.conformance.coverage import load_inventory, report


def test_inventory_ids_are_unique_and_described():
    entries = load_inventory()
    ids = [entry["id"] for entry in entries]
    assert len(ids) == len(set(ids))
    assert all(entry["rule"] and entry["area"] and entry["reference"] for entry in entries)


def test_every_inventory_entry_is_exercised_by_a_vector():
    """Fails naming each entry no vector exercises (and each probe tag missing
    from the inventory): add a sample to compiler/conformance/features/ and run
    `python -m compiler vectors`."""
    text, missing = report()
    assert missing == [], text


def test_runtime_comments_name_inventory_entries():
    """The runtime's comments and docstrings cite rules by inventory id
    ([content.kv-lines.first-separator]); every id cited exists."""
    import io
    import re
    import tokenize

    from compiler.resources import PROJECT_ROOT

    ids = {entry["id"] for entry in load_inventory()}
    text = "\n".join(path.read_text(encoding="utf-8") for path in sorted((PROJECT_ROOT / "runtime").glob("*.py")))
    cited = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            for group in re.findall(r"\[([a-z][^\]\[]*)\]", token.string):
                parts = [part for part in re.split(r"[,\s#]+", group) if part]
                if all(re.fullmatch(r"[a-z][a-z0-9_-]*(\.[A-Za-z0-9_-]+)+|transform(_each)?", p) for p in parts):
                    cited.update(parts)
    assert cited, "no inventory ids cited"
    assert sorted(cited - ids) == []
