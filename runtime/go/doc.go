// Package rt is the runtime every generated Go parser runs on: the tables a
// generated package supplies (Program) and the driver, the regex matcher,
// the content parsers, transforms and tool typing over them, with Python's
// value semantics.
//
// A bracketed list of ids in a comment, such as [content.text.strip,
// content.text.strip-false], names entries of the format inventory
// (compiler/conformance/inventory.json, entries[*].id): the rules the code next to
// it implements, as runtime/core.py cites them. tests/test_rule_citations.py
// checks that every id cited exists and that every rule the Python runtime
// cites is cited here too. Not cited: the load.* and template.* rules and
// start_anchor.list-duplicates (the compiler checks and normalises the
// template at build time), and error.init.prefix-none (a Go prefix is a
// string: no None).
package rt
