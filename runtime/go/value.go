package rt

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Values are JSON-shaped Go values with Python's distinctions kept:
//
//	nil        None
//	bool       bool
//	int64      int (when it fits)
//	*big.Int   int (beyond int64)
//	Float      float (a named type so 3.0 stays a float when marshalled)
//	string     str (lone surrogates from JSON escapes are kept as WTF-8 bytes)
//	[]any      list
//	*Object    dict (keys keep insertion order)

// Float is Python's float; it marshals as Python's repr (3.0, 1e+16).
type Float float64

// MarshalJSON gives Python's json.dumps text; NaN and infinities have no JSON
// form, so encoding/json rejects them: use Dumps for such values.
func (f Float) MarshalJSON() ([]byte, error) {
	return []byte(floatRepr(float64(f))), nil
}

// Object is a dict that keeps key order, as Python's does. Small objects
// (most JSON arguments) are searched linearly; an index appears past 8 keys.
type Object struct {
	keys   []string
	values []any
	index  map[string]int
}

// NewObject returns an empty Object.
func NewObject() *Object { return &Object{} }

// Len is the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// Keys are the keys in insertion order.
func (o *Object) Keys() []string { return o.keys }

func (o *Object) find(key string) int {
	if o.index != nil {
		if i, ok := o.index[key]; ok {
			return i
		}
		return -1
	}
	for i, k := range o.keys {
		if k == key {
			return i
		}
	}
	return -1
}

// Get returns the value of key and whether it is present.
func (o *Object) Get(key string) (any, bool) {
	if i := o.find(key); i >= 0 {
		return o.values[i], true
	}
	return nil, false
}

// Has reports whether key is present.
func (o *Object) Has(key string) bool { return o.find(key) >= 0 }

// Set stores a value; a new key goes last, an existing key keeps its place.
func (o *Object) Set(key string, value any) {
	if i := o.find(key); i >= 0 {
		o.values[i] = value
		return
	}
	o.keys = append(o.keys, key)
	o.values = append(o.values, value)
	if o.index != nil {
		o.index[key] = len(o.keys) - 1
	} else if len(o.keys) > 8 {
		o.index = make(map[string]int, 2*len(o.keys))
		for i, k := range o.keys {
			o.index[k] = i
		}
	}
}

// MarshalJSON writes the object with its key order (see Dumps for NaN).
func (o *Object) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	writeJSON(&b, o)
	return []byte(b.String()), nil
}

// DeepCopy copies dicts and lists (Python's copy.deepcopy on JSON values).
func DeepCopy(v any) any {
	switch x := v.(type) {
	case *Object:
		out := &Object{keys: append([]string(nil), x.keys...), values: make([]any, len(x.values))}
		for i, val := range x.values {
			out.values[i] = DeepCopy(val)
		}
		if x.index != nil {
			out.index = make(map[string]int, len(x.index))
			for k, i := range x.index {
				out.index[k] = i
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = DeepCopy(item)
		}
		return out
	}
	return v
}

// Truthy is Python's bool(v).
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case int64:
		return x != 0
	case *big.Int:
		return x.Sign() != 0
	case Float:
		return x != 0
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case *Object:
		return x.Len() > 0
	}
	return true
}

// TypeName is Python's type(v).__name__, for error messages.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int64, *big.Int:
		return "int"
	case Float:
		return "float"
	case string:
		return "str"
	case []any:
		return "list"
	case *Object:
		return "dict"
	}
	return "object"
}

// Dumps is Python's json.dumps(v, ensure_ascii=False): ", " and ": "
// separators, NaN/Infinity for non-finite floats, lone surrogates escaped.
func Dumps(v any) string {
	var b strings.Builder
	writeJSON(&b, v)
	return b.String()
}

func writeJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case int:
		b.WriteString(strconv.Itoa(x))
	case *big.Int:
		b.WriteString(x.String())
	case Float:
		b.WriteString(floatRepr(float64(x)))
	case float64:
		b.WriteString(floatRepr(x))
	case string:
		writeJSONString(b, x)
	case []any:
		b.WriteByte('[')
		for i, item := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSON(b, item)
		}
		b.WriteByte(']')
	case *Object:
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONString(b, k)
			b.WriteString(": ")
			writeJSON(b, x.values[i])
		}
		b.WriteByte('}')
	case []Event:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteString(", ")
			}
			writeEvent(b, e)
		}
		b.WriteByte(']')
	case Event:
		writeEvent(b, x)
	default:
		b.WriteString("null")
	}
}

func writeEvent(b *strings.Builder, e Event) {
	b.WriteString(`{"type": `)
	writeJSONString(b, e.Type().String())
	b.WriteString(`, "field": `)
	writeJSONString(b, e.Field())
	switch e.Type() {
	case RegionChunk:
		b.WriteString(`, "text": `)
		writeJSONString(b, e.Text())
		if e.Dirty() {
			b.WriteString(`, "dirty": true}`)
		} else {
			b.WriteString(`, "dirty": false}`)
		}
		return
	}
	if start, end, ok := e.Span(); ok {
		b.WriteString(`, "start": `)
		b.WriteString(strconv.Itoa(start))
		b.WriteString(`, "end": `)
		b.WriteString(strconv.Itoa(end))
	}
	if captures, ok := e.Captures(); ok {
		b.WriteString(`, "captures": {`)
		for i, c := range captures {
			if i > 0 {
				b.WriteString(", ")
			}
			writeJSONString(b, c.Name)
			b.WriteString(": ")
			writeJSONString(b, c.Value)
		}
		b.WriteByte('}')
	}
	switch e.Type() {
	case RegionClose:
		b.WriteString(`, "value": `)
		writeJSON(b, e.Value())
	case RegionMalformed: // the error as its Python class name
		b.WriteString(`, "error": `)
		writeJSONString(b, PythonType(e.Err()))
	}
	b.WriteByte('}')
}

const hexDigits = "0123456789abcdef"

func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				b.WriteString(`\"`)
			case c == '\\':
				b.WriteString(`\\`)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c == '\t':
				b.WriteString(`\t`)
			case c == '\b':
				b.WriteString(`\b`)
			case c == '\f':
				b.WriteString(`\f`)
			case c < 0x20:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&15])
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		if sur, ok := surrogateAt(s, i); ok {
			b.WriteString(`\u`)
			b.WriteString(strconv.FormatInt(int64(sur), 16))
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(`\ufffd`)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// surrogateAt reads a WTF-8 encoded lone surrogate (ED A0..BF xx) at s[i].
func surrogateAt(s string, i int) (rune, bool) {
	if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
		return 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), true
	}
	return 0, false
}

func appendSurrogate(b []byte, r rune) []byte {
	return append(b, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
}

// floatRepr is Python's repr(float), as json.dumps writes it.
func floatRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	sign := ""
	if e[0] == '-' {
		sign, e = "-", e[1:]
	}
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	if -4 <= exp && exp < 16 {
		if exp >= 0 {
			if len(digits) <= exp+1 {
				return sign + digits + strings.Repeat("0", exp+1-len(digits)) + ".0"
			}
			return sign + digits[:exp+1] + "." + digits[exp+1:]
		}
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	}
	out := digits[:1]
	if len(digits) > 1 {
		out += "." + digits[1:]
	}
	expSign := "+"
	if exp < 0 {
		expSign, exp = "-", -exp
	}
	expStr := strconv.Itoa(exp)
	if len(expStr) < 2 {
		expStr = "0" + expStr
	}
	return sign + out + "e" + expSign + expStr
}
