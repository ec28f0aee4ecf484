package rt

import (
	"strings"
	"unicode/utf8"
)

// Hint lets a regex delimiter run only where a match can start (planned by
// the compiler's analysis): every match is lead characters then one of the
// trigger strings; a partial match may end in a proper prefix of one, or be
// lead characters only. The answers equal Regex.Search's.
type Hint struct {
	Triggers  []string
	Leads     []rune // union of the lead classes (nil: none)
	FirstLead []rune // the pattern starts with an unbounded repeat of this class
	Exact     bool   // leads then a proper trigger prefix is certainly a partial match

	prefixes map[string]bool
	longest  int
}

func (h *Hint) prepare() {
	h.prefixes = map[string]bool{}
	for _, t := range h.Triggers {
		if len(t) > h.longest {
			h.longest = len(t)
		}
		for i := 1; i < len(t); i++ {
			if utf8.RuneStart(t[i]) {
				h.prefixes[t[:i]] = true
			}
		}
	}
}

func (h *Hint) runStart(text string, end, floor int) int {
	for end > floor {
		r, size := utf8.DecodeLastRuneInString(text[:end])
		if !inSet(h.Leads, r) {
			break
		}
		end -= size
	}
	return end
}

// firstStart is the first candidate start in [runStart, runEnd], and
// whether it is the only one (a run of the first lead is tried from its
// start only).
func (h *Hint) firstStart(text string, runStart, runEnd int) (int, bool) {
	return runStart, h.FirstLead != nil && (runStart == runEnd || holdsAll(h.FirstLead, text[runStart:runEnd]))
}

// nextStart is the candidate start after at, up to runEnd, or -1.
func nextStart(text string, at, runEnd int) int {
	if at >= len(text) {
		return -1
	}
	_, size := utf8.DecodeRuneInString(text[at:])
	if at+size > runEnd {
		return -1
	}
	return at + size
}

func (h *Hint) nextTrigger(text string, start int) int {
	found := -1
	for _, t := range h.Triggers {
		if at := strings.Index(text[start:], t); at >= 0 && (found < 0 || start+at < found) {
			found = start + at
		}
	}
	return found
}

func (h *Hint) tailTrigger(text string, start int) int {
	at := len(text) - h.longest + 1
	if at < start {
		at = start
	}
	for ; at < len(text); at++ {
		if utf8.RuneStart(text[at]) && isProperPrefix(h.Triggers, text[at:]) {
			return at
		}
	}
	return -1
}

// MatchAt is the `regex` module's anchored compiled.match(text, pos, partial=...).
func (re *Regex) MatchAt(text string, s int, partial bool) *Match {
	return re.matchAt(&machine{}, text, s, partial).toMatch(re, text)
}

func (re *Regex) matchAt(m *machine, text string, s int, partial bool) span {
	m.reset(re, text)
	m.resetCaps()
	m.start = s
	if re.mayComplete(text, s) && m.run(re.Root, s, false, m.accept) {
		return m.complete(s)
	}
	if !partial {
		return span{}
	}
	m.partial = true
	m.resetCaps()
	m.run(re.Root, s, false, m.accept)
	if m.hit {
		return m.partialAt(s)
	}
	return span{}
}

// SearchHinted is Search run only where the hint allows a match to start,
// except that an empty partial match at the very end may come back as nil.
func (re *Regex) SearchHinted(h *Hint, text string, pos int, partial bool) *Match {
	return re.searchHinted(&machine{}, h, text, pos, partial).toMatch(re, text)
}

func (re *Regex) searchHinted(m *machine, h *Hint, text string, pos int, partial bool) span {
	size := len(text)
	var firstPartial span
	start := pos
	for start < size {
		triggerAt := h.nextTrigger(text, start)
		if triggerAt < 0 {
			break
		}
		candidate, only := h.firstStart(text, h.runStart(text, triggerAt, start), triggerAt)
		for candidate >= 0 {
			// Once a partial match is found only a complete one matters.
			if found := re.matchAt(m, text, candidate, partial && !firstPartial.ok); found.ok {
				if !found.partial {
					return found // complete matches win over partial ones, as in search
				}
				if !firstPartial.ok {
					firstPartial = found
				}
			}
			if only {
				break
			}
			candidate = nextStart(text, candidate, triggerAt)
		}
		_, step := utf8.DecodeRuneInString(text[triggerAt:])
		start = triggerAt + step
	}
	if firstPartial.ok || !partial {
		return firstPartial
	}
	// No complete match: a partial one ends in a trigger prefix or is all leads.
	if len(h.prefixes) > 0 {
		if tailAt := h.tailTrigger(text, start); tailAt >= 0 {
			run := h.runStart(text, tailAt, start)
			if h.Exact && (run == tailAt || holdsAll(h.FirstLead, text[run:tailAt])) {
				return span{start: run, end: size, partial: true, ok: true}
			}
			for candidate, only := h.firstStart(text, run, tailAt); candidate >= 0; candidate = nextStart(text, candidate, tailAt) {
				if found := re.matchAt(m, text, candidate, true); found.ok {
					return found
				}
				if only {
					break
				}
			}
			_, step := utf8.DecodeRuneInString(text[tailAt:])
			start = tailAt + step
		}
	}
	if h.Leads != nil && start < size {
		run := h.runStart(text, size, start)
		if run < size {
			_, last := utf8.DecodeLastRuneInString(text)
			for candidate, only := h.firstStart(text, run, size-last); candidate >= 0; candidate = nextStart(text, candidate, size-last) {
				if found := re.matchAt(m, text, candidate, true); found.ok {
					return found
				}
				if only {
					break
				}
			}
		}
	}
	return span{}
}
