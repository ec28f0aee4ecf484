"""Whole-text parsing: `parse_response` on an output it already has whole.

`parse_response(text, prefix=...)` is, by the reference's definition, the
prefix's tail fed as generated text, the output fed, then finalize. Fed
whole, every step of the output that commits before the end of the stream
commits the same at the end of it (a match that more text could still
change starts no earlier than every committable one it could displace), so
the output is searched once, as the end of the stream: no partial matches,
no hold-back, no events. Only the prefix's tail, which the reference feeds
on its own, is processed as a feed (`_feed_tail`, the reference's steps with
partial matching), and it is short: the chat template's generation prompt.

What is particular to a template comes from its generated module: per
parser state, one function (`scans`) that returns the match the state's
watched delimiters commit at the end of the stream, with the tie rules
(earliest start, longest, opens before closes, field name) decided by the
compiler as the order of its searches. This module holds the loop they
share: route the text before a match, open or close, store the values.
"""

from runtime.values import _ATOMS, CLOSE, close_region


def plain_scan(fields, watch, buf, pos, eos, memo):
    """The reference's scan (SPEC steps 2-3) without the driver's speed
    machinery: the best committable match among a state's watched
    delimiters, (kind, index, start, end, captures) or None, and the hold
    position. Literals are found with str.find (`memo`, as Literals.find
    keeps it: the buffer only grows), patterns with their search. Used for
    the prefix's tail here and by the recovery mode (runtime/recover.py)."""
    size = len(buf)
    hold = size
    best = best_key = None
    for kind, index, delim in watch:
        captures = {}
        if delim.literals is None:
            match = delim.search(buf, pos, not eos)
            if match is None:
                continue
            start, end = match.span()
            if not eos and (match.partial or end == size):  # (a zero-width match is a pattern's: it grows)
                hold = min(hold, start)
                continue
            captures = {key: value for key, value in match.groupdict().items() if value is not None}
        else:
            found = delim.find(buf, pos, 0, memo)
            if found is None:
                if not eos:
                    partial = delim.partial_start(buf, pos)
                    if partial >= 0:
                        hold = min(hold, partial)
                continue
            start, end = found
            if not eos and end == size and delim.grows_at_edge:
                hold = min(hold, start)
                continue
        key = (start, start - end, kind, fields[index].name)
        if best_key is None or key < best_key:
            best_key, best = key, (kind, index, start, end, captures)
    if best is not None and best[2] >= hold:
        best = None
    return best, hold


def _feed_tail(parser_class, tail, output, params):
    """The prefix's tail as the reference feeds it (SPEC steps 1-5, not at
    the end of the stream). Returns (state, pos, pieces, captures, opened)."""
    implicit = parser_class.IMPLICIT
    current, pos, pieces, captures, opened = implicit, 0, [], {}, False
    memo = {}
    while True:
        state = -1 if current is None or current == implicit else current
        best, hold = plain_scan(parser_class.FIELDS, parser_class.WATCH[state], tail, pos, False, memo)
        if best is None:
            if hold > pos and current is not None:
                pieces.append(tail[pos:hold])
                opened = True
            return state, max(pos, hold), pieces, captures, opened
        kind, index, start, end, found = best
        if start > pos and current is not None:
            pieces.append(tail[pos:start])
            opened = True
        pos = end
        had_text = opened
        if current is not None and opened:
            close_region(parser_class.FIELDS[current], output, pieces, captures, params)
        current, pieces, captures, opened = implicit, [], {}, False
        if kind == CLOSE:
            if not had_text and start == end:
                return -1, pos, pieces, captures, opened
            continue
        current, opened, captures = index, True, found


TAIL_LIMIT = 256  # prefix tails up to this long are remembered (see _tail_state)
TAILS_KEPT = 64  # per template
_TAILS = {}  # (parser class, tail) -> what _feed_tail made of it


def tail_state(parser_class, tail, output, params):
    """`_feed_tail`, remembered per template for short tails that leave only
    atoms in the message: a tail is the chat template's generation prompt
    (`<think>\n`, an empty reasoning block), the same for every request,
    so its steps are taken once. Never keyed by the model's output."""
    key = (parser_class, tail)
    known = _TAILS.get(key)
    if known is not None:
        state, pos, pieces, captures, opened, stored = known
        output.update(stored)
        return state, pos, list(pieces), dict(captures), opened
    before = dict(output)
    state, pos, pieces, captures, opened = _feed_tail(parser_class, tail, output, params)
    if (
        len(tail) <= TAIL_LIMIT
        and len(_TAILS) < TAILS_KEPT * 4
        and all(type(value) in _ATOMS for value in output.values())
        and all(type(value) in _ATOMS for value in captures.values())
    ):
        stored = {key: value for key, value in output.items() if key not in before or before[key] is not value}
        _TAILS[key] = (state, pos, tuple(pieces), dict(captures), opened, stored)
    return state, pos, pieces, captures, opened


WHOLE_LIMIT = 32768  # texts up to this long go to the module's whole-text parse (runtime/whole.py)


def run_parse_response(parser_class, text, prefix, tools, whole=None):
    """`parse_response` for one text or a batch (list of texts, with one
    prefix for all or one per text). A text up to WHOLE_LIMIT characters
    goes to `whole` (the generated module's search of the whole text);
    a longer one to the streaming machine's whole-text path."""
    if prefix is None:
        parser_class(None)  # raises the missing-prefix ValueError
    if isinstance(text, str):
        texts, batched = [text], False
    elif isinstance(text, (list, tuple)):
        texts, batched = list(text), True
    else:
        raise TypeError(f"parse_response expects a str or a list of str, got {type(text).__name__}")
    if isinstance(prefix, str):
        prefixes = [prefix] * len(texts)
    elif isinstance(prefix, (list, tuple)):
        if not prefix:
            prefixes = [""] * len(texts)
        elif len(prefix) != len(texts):
            raise ValueError(
                f"Got {len(texts)} response(s) but {len(prefix)} prefix(es); `prefix` must be one string "
                "(used for every response) or one per response."
            )
        else:
            prefixes = list(prefix)
    else:
        raise TypeError(f"prefix must be a str or a list of str, got {type(prefix).__name__}")
    messages = []
    for one_text, one_prefix in zip(texts, prefixes):
        if whole is not None and type(one_text) is str and type(one_prefix) is str and len(one_text) <= WHOLE_LIMIT:
            messages.append(whole(one_text, one_prefix, tools))
            continue
        parser = parser_class(one_prefix, tools=tools)
        parser.feed(one_text)
        messages.append(parser.finalize()[0])
    return messages if batched else messages[0]
