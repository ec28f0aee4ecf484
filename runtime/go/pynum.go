package rt

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsSpace is Python's str.isspace() for one character.
func IsSpace(r rune) bool {
	switch {
	case r >= 0x9 && r <= 0xd, r >= 0x1c && r <= 0x20, r == 0x85, r == 0xa0, r == 0x1680:
		return true
	case r >= 0x2000 && r <= 0x200a, r == 0x2028, r == 0x2029, r == 0x202f, r == 0x205f, r == 0x3000:
		return true
	}
	return false
}

// Strip is Python's str.strip() with no argument.
func Strip(s string) string {
	start := 0
	for start < len(s) {
		r, size := utf8.DecodeRuneInString(s[start:])
		if !IsSpace(r) {
			break
		}
		start += size
	}
	end := len(s)
	for end > start {
		r, size := utf8.DecodeLastRuneInString(s[:end])
		if !IsSpace(r) {
			break
		}
		end -= size
	}
	return s[start:end]
}

// decimalValue is the digit value of a Unicode decimal digit (category Nd),
// or -1. Nd characters come in runs of ten starting at a zero.
func decimalValue(r rune) int {
	if r >= '0' && r <= '9' {
		return int(r - '0')
	}
	if r < 0x80 || !unicode.Is(unicode.Nd, r) {
		return -1
	}
	start := r
	for unicode.Is(unicode.Nd, start-1) {
		start--
	}
	return int(r-start) % 10
}

// toASCIINumber mirrors CPython's _PyUnicode_TransformDecimalAndSpaceToASCII:
// non-ASCII whitespace becomes ' ', decimal digits their ASCII digit; any
// other non-ASCII character makes the text unparseable.
func toASCIINumber(s string) (string, bool) {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s, true
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 127:
			b.WriteRune(r)
		case IsSpace(r):
			b.WriteByte(' ')
		default:
			v := decimalValue(r)
			if v < 0 {
				return "", false
			}
			b.WriteByte(byte('0' + v))
		}
	}
	return b.String(), true
}

func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func trimASCIISpace(s string) string {
	for len(s) > 0 && asciiSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && asciiSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// dropUnderscores removes underscores that sit between two digits; any
// other underscore makes the text invalid (Python's numeric literals rule).
func dropUnderscores(s string) (string, bool) {
	if !strings.Contains(s, "_") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '_' {
			if i == 0 || i+1 >= len(s) || !isDigit(s[i-1]) || !isDigit(s[i+1]) {
				return "", false
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String(), true
}

// PyInt is Python's int(text): surrounding whitespace, a sign, Unicode
// decimal digits and single underscores between digits.
func PyInt(text string) (any, error) {
	bad := func() error { return Errorf("ValueError", "invalid literal for int() with base 10: %s", pyRepr(text)) }
	s, ok := toASCIINumber(text)
	if !ok {
		return nil, bad()
	}
	s = trimASCIISpace(s)
	sign := ""
	if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
		if s[0] == '-' {
			sign = "-"
		}
		s = s[1:]
	}
	if s == "" || !isDigit(s[0]) {
		return nil, bad()
	}
	digits, ok := dropUnderscores(s)
	if !ok {
		return nil, bad()
	}
	for i := 0; i < len(digits); i++ {
		if !isDigit(digits[i]) {
			return nil, bad()
		}
	}
	if len(digits) > 4300 {
		return nil, Errorf("ValueError", "Exceeds the limit (4300 digits) for integer string conversion")
	}
	return intFromDigits(sign + digits), nil
}

// PyFloat is Python's float(text).
func PyFloat(text string) (float64, error) {
	bad := func() error { return Errorf("ValueError", "could not convert string to float: %s", pyRepr(text)) }
	s, ok := toASCIINumber(text)
	if !ok {
		return 0, bad()
	}
	s = trimASCIISpace(s)
	body := s
	neg := false
	if len(body) > 0 && (body[0] == '+' || body[0] == '-') {
		neg = body[0] == '-'
		body = body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if neg {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case "nan":
		return math.NaN(), nil
	}
	clean, ok := dropUnderscores(s)
	if !ok || !decimalFloatSyntax(clean) {
		return 0, bad()
	}
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil {
		if ne, isNum := err.(*strconv.NumError); !isNum || ne.Err != strconv.ErrRange {
			return 0, bad()
		}
	}
	return f, nil
}

// decimalFloatSyntax: [sign] (digits [. digits?] | . digits) [(e|E) [sign] digits].
func decimalFloatSyntax(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	intDigits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		intDigits++
	}
	fracDigits := 0
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			fracDigits++
		}
	}
	if intDigits+fracDigits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		expDigits := 0
		for i < len(s) && isDigit(s[i]) {
			i++
			expDigits++
		}
		if expDigits == 0 {
			return false
		}
	}
	return i == len(s)
}

// intOfFloat is Python's int(f) for a finite whole float.
func intOfFloat(f float64) any {
	if f >= -9.2e18 && f <= 9.2e18 {
		return int64(f)
	}
	n, _ := big.NewFloat(f).Int(nil)
	return n
}

// pyRepr approximates Python's repr of a str, for error messages only.
func pyRepr(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "\\'") + "'"
}
