package rt

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Loads is Python's json.loads on a str: objects keep key order (a repeated
// key keeps its first place and takes the last value), NaN/Infinity/-Infinity
// are accepted, integers have any size, \u escapes of lone surrogates are
// kept (as WTF-8 bytes), control characters inside strings are refused.
// Every failure is a ValueError (Python's JSONDecodeError is one).
func Loads(s string) (any, error) {
	d := jsonDecoder{s: s}
	d.ws()
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.ws()
	if d.i != len(d.s) {
		return nil, d.fail("Extra data")
	}
	return v, nil
}

type jsonDecoder struct {
	s string
	i int
}

func (d *jsonDecoder) fail(msg string) error {
	return Errorf("ValueError", "%s: char %d", msg, utf8.RuneCountInString(d.s[:d.i]))
}

func (d *jsonDecoder) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value() (any, error) {
	if d.i >= len(d.s) {
		return nil, d.fail("Expecting value")
	}
	rest := d.s[d.i:]
	switch c := rest[0]; {
	case c == '"':
		d.i++
		return d.str()
	case c == '{':
		d.i++
		return d.object()
	case c == '[':
		d.i++
		return d.array()
	case strings.HasPrefix(rest, "null"):
		d.i += 4
		return nil, nil
	case strings.HasPrefix(rest, "true"):
		d.i += 4
		return true, nil
	case strings.HasPrefix(rest, "false"):
		d.i += 5
		return false, nil
	case strings.HasPrefix(rest, "NaN"):
		d.i += 3
		return Float(math.NaN()), nil
	case strings.HasPrefix(rest, "Infinity"):
		d.i += 8
		return Float(math.Inf(1)), nil
	case strings.HasPrefix(rest, "-Infinity"):
		d.i += 9
		return Float(math.Inf(-1)), nil
	}
	return d.number()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (d *jsonDecoder) number() (any, error) {
	s, start := d.s, d.i
	i := start
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return nil, d.fail("Expecting value")
	}
	isFloat := false
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		isFloat = true
		i += 2
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			isFloat = true
			i = j
		}
	}
	d.i = i
	text := s[start:i]
	if isFloat {
		f, _ := strconv.ParseFloat(text, 64) // out of range: ±Inf or 0, as Python's float()
		return Float(f), nil
	}
	return intFromDigits(text), nil
}

// intFromDigits turns an ASCII decimal (optional sign) into int64 or *big.Int.
func intFromDigits(text string) any {
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n
	}
	n, _ := new(big.Int).SetString(text, 10)
	return n
}

func hexValue(s string) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for i := 0; i < 4; i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

func (d *jsonDecoder) str() (string, error) {
	s := d.s
	var out []byte
	chunk := d.i
	for {
		if d.i >= len(s) {
			return "", d.fail("Unterminated string starting at")
		}
		c := s[d.i]
		if c == '"' {
			if out == nil {
				v := s[chunk:d.i]
				d.i++
				return v, nil
			}
			out = append(out, s[chunk:d.i]...)
			d.i++
			return string(out), nil
		}
		if c < 0x20 {
			return "", d.fail("Invalid control character at")
		}
		if c != '\\' {
			d.i++
			continue
		}
		out = append(out, s[chunk:d.i]...)
		d.i++
		if d.i >= len(s) {
			return "", d.fail("Unterminated string starting at")
		}
		esc := s[d.i]
		d.i++
		switch esc {
		case '"', '\\', '/':
			out = append(out, esc)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hexValue(s[d.i:])
			if !ok {
				return "", d.fail("Invalid \\uXXXX escape")
			}
			d.i += 4
			if r >= 0xD800 && r <= 0xDBFF && strings.HasPrefix(s[d.i:], "\\u") {
				if low, ok := hexValue(s[d.i+2:]); ok && low >= 0xDC00 && low <= 0xDFFF {
					d.i += 6
					out = utf8.AppendRune(out, 0x10000+(r-0xD800)<<10+(low-0xDC00))
					chunk = d.i
					continue
				}
			}
			if r >= 0xD800 && r <= 0xDFFF {
				out = appendSurrogate(out, r)
			} else {
				out = utf8.AppendRune(out, r)
			}
		default:
			d.i -= 2
			return "", d.fail("Invalid \\escape")
		}
		chunk = d.i
	}
}

// newObjectSized is an empty Object with room for n keys (one allocation
// per slice instead of a few as it grows).
func newObjectSized(n int) *Object {
	return &Object{keys: make([]string, 0, n), values: make([]any, 0, n)}
}

func (d *jsonDecoder) object() (any, error) {
	obj := newObjectSized(4)
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return obj, nil
	}
	for {
		if d.i >= len(d.s) || d.s[d.i] != '"' {
			return nil, d.fail("Expecting property name enclosed in double quotes")
		}
		d.i++
		key, err := d.str()
		if err != nil {
			return nil, err
		}
		d.ws()
		if d.i >= len(d.s) || d.s[d.i] != ':' {
			return nil, d.fail("Expecting ':' delimiter")
		}
		d.i++
		d.ws()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		obj.Set(key, v)
		d.ws()
		if d.i < len(d.s) && d.s[d.i] == '}' {
			d.i++
			return obj, nil
		}
		if d.i >= len(d.s) || d.s[d.i] != ',' {
			return nil, d.fail("Expecting ',' delimiter")
		}
		d.i++
		d.ws()
	}
}

func (d *jsonDecoder) array() (any, error) {
	out := []any{}
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return out, nil
	}
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		d.ws()
		if d.i < len(d.s) && d.s[d.i] == ']' {
			d.i++
			return out, nil
		}
		if d.i >= len(d.s) || d.s[d.i] != ',' {
			return nil, d.fail("Expecting ',' delimiter")
		}
		d.i++
		d.ws()
	}
}
