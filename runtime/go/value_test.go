package rt_test

import (
	"encoding/json"
	"math"
	"math/big"
	"strings"
	"testing"

	rt "github.com/response-template-compiler/response-template-compiler/runtime/go"
)

// The expected texts below are what Python 3.11 prints for the same values:
// repr(float) / json.dumps(v, ensure_ascii=False). The vectors compare the
// runtime's output with Dumps on both sides, so these pin Dumps itself.

func TestFloatsPrintAsPythonRepr(t *testing.T) {
	for _, row := range []struct {
		value float64
		want  string
	}{
		{1e16, "1e+16"}, {1e15, "1000000000000000.0"}, {123.456, "123.456"}, {1e-4, "0.0001"},
		{1e-5, "1e-05"}, {-2.5e-7, "-2.5e-07"}, {5e-324, "5e-324"},
		{1.7976931348623157e308, "1.7976931348623157e+308"}, {100.0, "100.0"}, {math.Copysign(0, -1), "-0.0"},
		{0.0, "0.0"}, {math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
		{1.0 / 3, "0.3333333333333333"}, {1e22, "1e+22"}, {12345678901234567.0, "1.2345678901234568e+16"},
		{1.5e300, "1.5e+300"}, {-1.5e-300, "-1.5e-300"}, {2.5, "2.5"}, {-7.0, "-7.0"}, {1e100, "1e+100"},
		{9999999999999998.0, "9999999999999998.0"}, {0.00012, "0.00012"},
	} {
		if got := rt.Dumps(rt.Float(row.value)); got != row.want {
			t.Errorf("Dumps(Float(%v)) = %s, want %s", row.value, got, row.want)
		}
		if got := rt.Dumps(row.value); got != row.want {
			t.Errorf("Dumps(float64 %v) = %s, want %s", row.value, got, row.want)
		}
		if math.IsNaN(row.value) || math.IsInf(row.value, 0) {
			continue
		}
		if got, err := json.Marshal(rt.Float(row.value)); err != nil || string(got) != row.want {
			t.Errorf("json.Marshal(Float(%v)) = %s %v, want %s", row.value, got, err, row.want)
		}
	}
}

func TestDumpsWritesPythonJSONText(t *testing.T) {
	huge, _ := new(big.Int).SetString("-12345678901234567890123", 10)
	for _, row := range []struct {
		value any
		want  string
	}{
		{nil, "null"}, {true, "true"}, {false, "false"}, {int64(-3), "-3"}, {7, "7"}, {huge, "-12345678901234567890123"},
		{"", `""`}, {[]any{}, "[]"}, {rt.NewObject(), "{}"},
		{[]any{true, false, nil, int64(3), huge, rt.Float(2), ""}, `[true, false, null, 3, -12345678901234567890123, 2.0, ""]`},
		// json.dumps('a"\\\n\r\t\b\f\x00\x1f\x7f é 🙂', ensure_ascii=False)
		{"a\"\\\n\r\t\b\f\x00\x1f\x7f é 🙂", `"a\"\\\n\r\t\b\f\u0000\u001f` + "\x7f é 🙂\""},
		{"\x01\x0b\x0e\x10\x19\x1a", `"\u0001\u000b\u000e\u0010\u0019\u001a"`},
		{" !#/09:@AZ[]^_`az{}~", `" !#/09:@AZ[]^_` + "`" + `az{}~"`},
		// Go-only: a byte that is not UTF-8 is written as U+FFFD (Python's str cannot hold one).
		{"a\xffb", `"a\ufffdb"`}, {"a\x80b", `"a\ufffdb"`}, {"\xed\xa0", `"\ufffd\ufffd"`},
		{"\xed\x9f\xbf", "\"\ud7ff\""}, {"\xee\x80\x80", "\"\ue000\""},
		{struct{}{}, "null"},
	} {
		if got := rt.Dumps(row.value); got != row.want {
			t.Errorf("Dumps(%#v) = %s, want %s", row.value, got, row.want)
		}
	}
}

func TestLoneSurrogatesRoundTrip(t *testing.T) {
	// json.loads keeps lone surrogates; the runtime keeps them as WTF-8 and
	// Dumps writes them as \u escapes (a UTF-8 text cannot carry them): the
	// documented choice shared with the JavaScript runtime. Pairs decode to
	// one code point, as in Python.
	v, err := rt.Loads(`["\ud800x", "\udfff", "\udbff\udc00", "\ud83d\ude00 \u00e9", "\udc00\ud800", "\ud7ff\ue000"]`)
	if err != nil {
		t.Fatal(err)
	}
	want := `["\ud800x", "\udfff", "` + "\U0010fc00" + `", "😀 é", "\udc00\ud800", "` + "\ud7ff\ue000" + `"]`
	if got := rt.Dumps(v); got != want {
		t.Errorf("Dumps = %s, want %s", got, want)
	}
}

func TestObjectKeepsKeyOrderAndMarshalsLikeJSONDumps(t *testing.T) {
	o := rt.NewObject()
	keys := []string{"z", "a", "m", "b", "y", "c", "x", "d", "w", "e", "v"} // more than 8: the index takes over
	for i, k := range keys {
		o.Set(k, int64(i))
	}
	o.Set("a", "again") // an existing key keeps its place
	o.Set("v", rt.Float(1))
	if o.Len() != len(keys) || strings.Join(o.Keys(), "") != strings.Join(keys, "") {
		t.Fatalf("keys %v", o.Keys())
	}
	for i, k := range keys {
		v, ok := o.Get(k)
		if !ok || !o.Has(k) {
			t.Fatalf("%s missing", k)
		}
		if k != "a" && k != "v" && v != int64(i) {
			t.Errorf("%s = %v", k, v)
		}
	}
	if v, ok := o.Get("nope"); ok || v != nil || o.Has("nope") {
		t.Errorf("absent key found")
	}
	small := rt.NewObject()
	small.Set("b", int64(1))
	if small.Has("a") || !small.Has("b") {
		t.Errorf("small object lookup")
	}
	// json.dumps of the same dict built in the same order
	want := `{"z": 0, "a": "again", "m": 2, "b": 3, "y": 4, "c": 5, "x": 6, "d": 7, "w": 8, "e": 9, "v": 1.0}`
	if got := rt.Dumps(o); got != want {
		t.Errorf("Dumps = %s\nwant %s", got, want)
	}
	// encoding/json compacts what MarshalJSON writes: json.Marshal gives
	// json.dumps(v, separators=(",", ":")) with the key order kept, and an
	// Encoder without HTML escaping gives it byte for byte (ensure_ascii=False).
	compact := `{"z":0,"a":"again","m":2,"b":3,"y":4,"c":5,"x":6,"d":7,"w":8,"e":9,"v":1.0}`
	if got, err := json.Marshal(o); err != nil || string(got) != compact {
		t.Errorf("json.Marshal = %s %v", got, err)
	}
	nested := rt.NewObject()
	nested.Set("k", []any{o, "<a> & b\u2028", rt.Float(0.5)})
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(nested); err != nil || out.String() != `{"k":[`+compact+`,"<a> & b`+"\u2028"+`",0.5]}`+"\n" {
		t.Errorf("Encoder = %s %v", out.String(), err)
	}
	html := `{"k":[` + compact + `,"\u003ca\u003e \u0026 b\u2028",0.5]}` // json.Marshal escapes these
	if got, err := json.Marshal(nested); err != nil || string(got) != html {
		t.Errorf("json.Marshal nested = %s %v", got, err)
	}
	if got := rt.Dumps(nested); got != `{"k": [`+want+`, "<a> & b`+"\u2028"+`", 0.5]}` {
		t.Errorf("Dumps nested = %s", got)
	}
}

func TestDeepCopyIsIndependent(t *testing.T) {
	for _, n := range []int{3, 12} { // without and with the key index
		o := rt.NewObject()
		for i := 0; i < n; i++ {
			o.Set(string(rune('a'+i)), []any{int64(i)})
		}
		c := rt.DeepCopy(o).(*rt.Object)
		c.Set("a", "changed")
		c.Set("new", true)
		inner, _ := c.Get("b")
		inner.([]any)[0] = "changed"
		if got := rt.Dumps(o); strings.Contains(got, "changed") || o.Has("new") {
			t.Errorf("copy shares with the original: %s", got)
		}
		if v, _ := c.Get("a"); v != "changed" {
			t.Errorf("copy lost a set: %v", v)
		}
		if !c.Has("new") || c.Keys()[n] != "new" || c.Len() != n+1 {
			t.Errorf("copy keys %v", c.Keys())
		}
		last := string(rune('a' + n - 1))
		if v, ok := c.Get(last); !ok || rt.Dumps(v) != "["+rt.Dumps(int64(n-1))+"]" {
			t.Errorf("copy lookup of %s: %v", last, v)
		}
	}
	if rt.DeepCopy("s") != "s" || rt.DeepCopy(nil) != nil {
		t.Errorf("scalars are returned as they are")
	}
}

func TestTruthyAndTypeNameFollowPython(t *testing.T) {
	huge, _ := new(big.Int).SetString("100000000000000000000", 10)
	zero := new(big.Int)
	full := rt.NewObject()
	full.Set("a", nil)
	for _, row := range []struct {
		value  any
		truthy bool
		name   string
	}{
		{nil, false, "NoneType"}, {false, false, "bool"}, {true, true, "bool"},
		{int64(0), false, "int"}, {int64(-1), true, "int"}, {zero, false, "int"}, {huge, true, "int"},
		{rt.Float(0), false, "float"}, {rt.Float(math.Copysign(0, -1)), false, "float"}, {rt.Float(0.1), true, "float"},
		{rt.Float(math.NaN()), true, "float"},
		{"", false, "str"}, {"0", true, "str"}, {[]any{}, false, "list"}, {[]any{nil}, true, "list"},
		{rt.NewObject(), false, "dict"}, {full, true, "dict"}, {struct{}{}, true, "object"},
	} {
		if got := rt.Truthy(row.value); got != row.truthy {
			t.Errorf("Truthy(%#v) = %v", row.value, got)
		}
		if got := rt.TypeName(row.value); got != row.name {
			t.Errorf("TypeName(%#v) = %s, want %s", row.value, got, row.name)
		}
	}
}
