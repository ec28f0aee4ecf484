"""The format inventory (tests/vectors/inventory.json) is fully exercised:
every entry by at least one vector, on which the reference interpreter took
that rule's path (compiler/coverage.py); every tag the probes emit is listed."""

from __future__ import annotations

from compiler.coverage import load_inventory, report


def test_inventory_ids_are_unique_and_described():
    entries = load_inventory()
    ids = [entry["id"] for entry in entries]
    assert len(ids) == len(set(ids))
    assert all(entry["rule"] and entry["area"] and entry["reference"] for entry in entries)


def test_every_inventory_entry_is_exercised_by_a_vector():
    """Fails naming each entry no vector exercises (and each probe tag missing
    from the inventory): add a sample to tests/vectors/features/ and run
    `python -m compiler vectors`."""
    text, missing = report()
    assert missing == [], text
