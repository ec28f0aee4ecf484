package rt

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Content parsers: the body text of a closed region -> its value, as the
// reference's content_parsers.py computes it [field.content.text,
// field.content.int, field.content.float, field.content.bool,
// field.content.json, field.content.xml-inline, field.content.kv-lines].

func argOr(args *Object, key string, fallback any) any {
	if args != nil {
		if v, ok := args.Get(key); ok {
			return v
		}
	}
	return fallback
}

// parseText: str.strip, Unicode whitespace, unless strip is false
// [content.text.strip, content.text.strip-false, content.text.empty,
// content.text.whitespace-only, content.text.crlf, content.text.non-bmp,
// field.content_args.strip].
func parseText(text string, args *Object) string {
	if Truthy(argOr(args, "strip", true)) {
		return Strip(text)
	}
	return text
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// ParseContent runs the named content parser with its content_args.
func (p *Program) ParseContent(text any, name string, args *Object) (any, error) {
	s, isString := text.(string)
	if !isString {
		return nil, Errorf("AttributeError", "'%s' object has no attribute 'strip'", TypeName(text))
	}
	switch name {
	case "text":
		return parseText(s, args), nil
	case "int": // Python int(), any size [content.int, content.int.error, content.int.strip-false,
		// content.int.beyond-double, content.number.underscore, content.number.unicode-digits]
		return PyInt(parseText(s, args))
	case "float": // Python float(): exponents, nan/inf words [content.float, content.float.exponent,
		// content.float.error]
		f, err := PyFloat(parseText(s, args))
		return Float(f), err
	case "bool": // never an error [content.bool.true, content.bool.true-any-case, content.bool.one,
		// content.bool.other-false]
		word := asciiLower(parseText(s, args))
		return word == "true" || word == "1", nil
	case "json":
		return parseJSON(s, args)
	case "xml-inline":
		return p.parseXMLInline(s, args)
	case "kv-lines":
		return p.parseKVLines(s, args)
	}
	return nil, Errorf("KeyError", "%s", pyRepr(name))
}

const sentinelOpen, sentinelClose = "\x01", "\x02"

// parseJSON: json.loads (Loads) after the dialect rewrites [content.json,
// content.json.nan-infinity, content.json.duplicate-keys,
// content.json.unicode-escapes, content.json.beyond-double,
// error.feed.json-invalid, error.feed.json-invalid-after-dialect].
func parseJSON(text string, args *Object) (any, error) {
	delims := argOr(args, "string_delims", []any{})
	useDelims := Truthy(delims)
	// Checked before anything else, so allow_non_json does not apply [error.feed.json-sentinel]
	if useDelims && (strings.Contains(text, sentinelOpen) || strings.Contains(text, sentinelClose)) {
		return nil, Errorf("ValueError", "json: input contains reserved sentinel characters (\\x01/\\x02); cannot parse safely.")
	}
	working := text
	var stashed []string
	if useDelims { // [content.json.string_delims, field.content_args.string_delims]
		pairs, ok := delims.([]any)
		if !ok {
			return nil, Errorf("TypeError", "string_delims must be a list of pairs")
		}
		for _, pair := range pairs {
			two, ok := pair.([]any)
			if !ok || len(two) != 2 {
				return nil, Errorf("ValueError", "string_delims entries must be [open, close] pairs")
			}
			open, okOpen := two[0].(string)
			close, okClose := two[1].(string)
			if !okOpen || !okClose {
				return nil, Errorf("TypeError", "string_delims entries must be strings")
			}
			// Pair by pair, non-greedy, across newlines [content.json.string_delims.parsed,
			// content.json.string_delims.several]
			working = stashDelimited(working, open, close, &stashed)
		}
	}
	if Truthy(argOr(args, "unquoted_keys", false)) { // [content.json.unquoted_keys, field.content_args.unquoted_keys]
		working = quoteBareKeys(working)
	}
	for i, v := range stashed {
		working = strings.ReplaceAll(working, sentinelOpen+strconv.Itoa(i)+sentinelClose, Dumps(v))
	}
	value, err := Loads(working)
	if err != nil {
		// The original body, not the rewritten one [content.json.allow_non_json,
		// content.json.allow_non_json.strip-false, field.content_args.allow_non_json]
		if Truthy(argOr(args, "allow_non_json", nil)) {
			return parseText(text, args), nil
		}
		if working == text {
			return nil, Errorf("ValueError", "json: could not parse region as JSON: %s", err.(*Error).Message)
		}
		return nil, Errorf("ValueError", "json: could not parse after dialect transforms: %s", err.(*Error).Message)
	}
	return value, nil
}

// stashDelimited is regex.sub(escape(open) + "(.*?)" + escape(close), ...)
// under DOTALL: each delimited run becomes a numbered sentinel.
func stashDelimited(text, open, close string, stashed *[]string) string {
	var b strings.Builder
	from := 0
	for from <= len(text) {
		at := strings.Index(text[from:], open)
		if at < 0 {
			break
		}
		start := from + at
		inner := start + len(open)
		end := strings.Index(text[inner:], close)
		if end < 0 {
			break
		}
		b.WriteString(text[from:start])
		*stashed = append(*stashed, text[inner:inner+end])
		b.WriteString(sentinelOpen + strconv.Itoa(len(*stashed)-1) + sentinelClose)
		next := inner + end + len(close)
		if next == start { // an empty match: step over one character
			if next >= len(text) {
				from = len(text) + 1
				break
			}
			_, size := utf8.DecodeRuneInString(text[next:])
			b.WriteString(text[next : next+size])
			next += size
		}
		from = next
	}
	if from <= len(text) {
		b.WriteString(text[from:])
	}
	return b.String()
}

// quoteBareKeys is regex.sub(r"(?<=[{,])(\w+):", r'"\1":', text): only a
// \w+ key right after "{" or "," [content.json.unquoted_keys.quoted].
func quoteBareKeys(text string) string {
	var b strings.Builder
	last := 0
	for i := 1; i < len(text); i++ {
		if text[i-1] != '{' && text[i-1] != ',' {
			continue
		}
		j := i
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if !inSet(wordSet, r) {
				break
			}
			j += size
		}
		if j > i && j < len(text) && text[j] == ':' {
			b.WriteString(text[last:i])
			b.WriteString(`"` + text[i:j] + `":`)
			last = j + 1
			i = j
		}
	}
	b.WriteString(text[last:])
	return b.String()
}

// parseValue: name defaults to text [content.value_parser,
// content.value_parser.default-text, field.content_args.value_parser].
func (p *Program) parseValue(raw any, valueParser any) (any, error) {
	if valueParser == nil {
		return raw, nil
	}
	vp, ok := valueParser.(*Object)
	if !ok {
		return nil, Errorf("AttributeError", "'%s' object has no attribute 'get'", TypeName(valueParser))
	}
	name, _ := argOr(vp, "name", "text").(string)
	args, _ := argOr(vp, "args", NewObject()).(*Object)
	return p.ParseContent(raw, name, args)
}

// parseXMLInline: every non-overlapping tag_pattern match adds key -> value
// [content.xml-inline, content.xml-inline.no-match, field.content_args.tag_pattern].
func (p *Program) parseXMLInline(text string, args *Object) (any, error) {
	raw := argOr(args, "tag_pattern", nil)
	if raw == nil { // at the close, not at load [error.feed.xml-no-tag-pattern]
		return nil, Errorf("ValueError", "xml-inline: 'tag_pattern' content_arg is required")
	}
	source, _ := raw.(string)
	re := p.Patterns[source]
	if re == nil {
		return nil, Errorf("ValueError", "xml-inline: tag_pattern %s was not compiled", pyRepr(source))
	}
	valueParser := argOr(args, "value_parser", nil)
	merge := Truthy(argOr(args, "merge_duplicates", false))
	out := NewObject()
	for _, match := range re.FindAll(text) {
		key, ok := match.Group("key")
		if !ok { // absent or not taking part [error.feed.xml-no-key-group]
			return nil, Errorf("ValueError", "xml-inline: tag_pattern must have a named group 'key'. Pattern: %s", source)
		}
		// No value group: ""; one that did not take part: None, which a value
		// parser cannot strip [content.xml-inline.value-missing,
		// error.feed.xml-value-group-unmatched-parsed]
		var raw any = ""
		if re.HasGroup("value") {
			raw = nil
			if v, ok := match.Group("value"); ok {
				raw = v
			}
		}
		value, err := p.parseValue(raw, valueParser)
		if err != nil {
			return nil, err
		}
		// [content.xml-inline.merge_duplicates, content.xml-inline.duplicates-last-wins,
		// field.content_args.merge_duplicates]
		if previous, exists := out.Get(key); merge && exists {
			list, isList := previous.([]any)
			if !isList {
				list = []any{previous}
			}
			out.Set(key, append(list, value))
		} else {
			out.Set(key, value)
		}
	}
	return out, nil
}

// parseKVLines: key/value lines into a dict [content.kv-lines, content.kv-lines.strip-false,
// field.content_args.line_sep, field.content_args.kv_sep].
func (p *Program) parseKVLines(text string, args *Object) (any, error) {
	lineSep, _ := argOr(args, "line_sep", "\n").(string)
	kvSep, _ := argOr(args, "kv_sep", ":").(string) // [content.kv-lines.kv_sep]
	if lineSep == "" {
		return nil, Errorf("ValueError", "empty separator")
	}
	valueParser := argOr(args, "value_parser", nil)
	out := NewObject()
	for _, line := range strings.Split(text, lineSep) { // [content.kv-lines.line_sep]
		line = parseText(line, args)
		if line == "" || !strings.Contains(line, kvSep) { // [content.kv-lines.line-skipped]
			continue
		}
		if kvSep == "" {
			return nil, Errorf("ValueError", "empty separator")
		}
		// At the first separator; later keys overwrite [content.kv-lines.first-separator,
		// content.kv-lines.duplicates-last-wins]
		key, value, _ := strings.Cut(line, kvSep)
		parsed, err := p.parseValue(parseText(value, args), valueParser)
		if err != nil {
			return nil, err
		}
		out.Set(parseText(key, args), parsed)
	}
	return out, nil
}

// Transform is a field's transform, placeholders found at build time
// [transform, transform.nested, transform.whole-value, transform.scalars-kept,
// transform.braces-literal, transform.type-kept].
type Transform struct {
	Kind    byte   // 'v' kept value (JSON), 'p' placeholder, 'd' dict, 'l' list
	JSON    string // 'v'
	Path    string // 'p': "root.key.key"
	Keys    []string
	Items   []*Transform
	literal any
	parts   []string // 'p': Path split at dots (prepare)
}

// TValue keeps a value (given as JSON text) as it is.
func TValue(json string) *Transform { return &Transform{Kind: 'v', JSON: json} }

// TPlaceholder is a whole-string "{root.key}" placeholder.
func TPlaceholder(path string) *Transform { return &Transform{Kind: 'p', Path: path} }

// TDict rebuilds a dict: keys[i] -> items[i].
func TDict(keys []string, items ...*Transform) *Transform {
	return &Transform{Kind: 'd', Keys: keys, Items: items}
}

// TList rebuilds a list.
func TList(items ...*Transform) *Transform { return &Transform{Kind: 'l', Items: items} }

// prepare parses the kept values once (Program.Init), so applying only reads.
func (t *Transform) prepare() {
	if t.Kind == 'v' {
		v, err := Loads(t.JSON)
		if err != nil {
			panic(err)
		}
		t.literal = v
	}
	t.parts = strings.Split(t.Path, ".")
	for _, item := range t.Items {
		item.prepare()
	}
}

type scope struct {
	captures []Capture
	content  any
	item     *Object // transform_each: the element's keys
	each     bool
}

// lookup: an element's key, else content, wins over a capture of that name
// [transform.capture, transform.content-shadows-capture,
// transform_each.item-shadows-capture].
func (s *scope) lookup(name string) (any, bool) {
	if s.each {
		if v, ok := s.item.Get(name); ok {
			return v, true
		}
	} else if name == "content" {
		return s.content, true
	}
	for _, c := range s.captures {
		if c.Name == name {
			return c.Value, true
		}
	}
	return nil, false
}

func (s *scope) names() []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, c := range s.captures {
		add(c.Name)
	}
	if s.each {
		for _, k := range s.item.Keys() {
			add(k)
		}
	} else {
		add("content")
	}
	return out
}

func (t *Transform) apply(s *scope) (any, error) {
	switch t.Kind {
	case 'v':
		return DeepCopy(t.literal), nil
	case 'd':
		out := newObjectSized(len(t.Keys))
		for i, key := range t.Keys {
			v, err := t.Items[i].apply(s)
			if err != nil {
				return nil, err
			}
			out.Set(key, v)
		}
		return out, nil
	case 'l':
		out := make([]any, 0, len(t.Items))
		for _, item := range t.Items {
			v, err := item.apply(s)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	parts := t.parts
	if parts == nil { // not prepared
		parts = strings.Split(t.Path, ".")
	}
	value, ok := s.lookup(parts[0])
	if !ok { // [error.transform.unknown-name]
		return nil, Errorf("KeyError", "transform placeholder '{%s}' is not defined. Available: %v", t.Path, s.names())
	}
	for _, key := range parts[1:] { // [transform.dotted]
		obj, isObj := value.(*Object)
		if !isObj { // [error.transform.index-non-dict]
			return nil, Errorf("ValueError", "transform placeholder '{%s}' cannot index into %s at '%s'", t.Path, TypeName(value), key)
		}
		next, has := obj.Get(key)
		if !has { // [error.transform.missing-key]
			return nil, Errorf("ValueError", "transform placeholder '{%s}' is missing key '%s'", t.Path, key)
		}
		value = next
	}
	return value, nil
}

// Tool-argument typing: string arguments cast to the JSON-schema types
// their tool declares (first success wins), as the reference does
// [typing.union, typing.union.later-type-wins, typing.all-fail-stays-string,
// typing.unknown-type, typing.string.fails].

// schemaTypes: type (a name or a list), then anyOf and oneOf choices, then
// null for nullable [typing.schema.type-list, typing.schema.anyOf,
// typing.schema.oneOf, typing.schema.nullable].
func schemaTypes(schema any) []string {
	obj, ok := schema.(*Object)
	if !ok {
		return nil
	}
	var types []string
	declared, _ := obj.Get("type")
	switch d := declared.(type) {
	case string:
		types = append(types, d)
	case []any:
		for _, name := range d {
			if s, ok := name.(string); ok {
				types = append(types, s)
			}
		}
	}
	for _, union := range []string{"anyOf", "oneOf"} {
		choices, _ := obj.Get(union)
		if list, ok := choices.([]any); ok {
			for _, choice := range list {
				types = append(types, schemaTypes(choice)...)
			}
		}
	}
	if nullable, _ := obj.Get("nullable"); Truthy(nullable) {
		has := false
		for _, t := range types {
			has = has || t == "null"
		}
		if !has {
			types = append(types, "null")
		}
	}
	return types
}

func castOne(raw, typeName string) (any, bool) {
	switch typeName {
	case "integer": // [typing.integer, typing.integer.fails]
		if n, err := PyInt(raw); err == nil {
			return n, true
		}
		// Whole numbers written as floats, e.g. "3.0" [typing.integer.whole-float-text]
		f, err := PyFloat(raw)
		if err == nil && !math.IsInf(f, 0) && f == math.Trunc(f) {
			return intOfFloat(f), true
		}
	case "number": // [typing.number.int, typing.number.float, typing.number.fails]
		f, err := PyFloat(raw)
		if err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			if f == math.Trunc(f) && !strings.Contains(raw, ".") {
				return intOfFloat(f), true
			}
			return Float(f), true
		}
	case "boolean": // [typing.boolean.word, typing.boolean.digit, typing.boolean.fails]
		word := asciiLower(Strip(raw))
		switch word {
		case "true", "1":
			return true, true
		case "false", "0":
			return false, true
		}
	case "null": // case-sensitive [typing.null.null, typing.null.None, typing.null.fails]
		if w := Strip(raw); w == "null" || w == "None" {
			return nil, true
		}
	case "object", "array": // [typing.object, typing.object.fails, typing.array, typing.array.fails]
		v, err := Loads(raw)
		if err == nil {
			if _, isObj := v.(*Object); isObj && typeName == "object" {
				return v, true
			}
			if _, isList := v.([]any); isList && typeName == "array" {
				return v, true
			}
		}
	}
	return nil, false
}

func castArgument(raw string, types []string) any {
	for _, t := range types {
		if v, ok := castOne(raw, t); ok {
			return v
		}
	}
	return raw
}

// toolParameters: each tool's properties by name, wrapped in "function" or
// bare [typing.tools.function-shape, typing.tools.bare-shape,
// typing.tools.empty-list].
func toolParameters(tools []any) map[string]*Object {
	params := map[string]*Object{}
	for _, tool := range tools {
		obj, ok := tool.(*Object)
		if !ok {
			continue
		}
		function := any(obj)
		if f, has := obj.Get("function"); has {
			function = f
		}
		fn, ok := function.(*Object)
		if !ok {
			continue
		}
		nameValue, _ := fn.Get("name")
		name, ok := nameValue.(string)
		if !ok {
			continue
		}
		props := NewObject()
		if parameters, ok := argOr(fn, "parameters", nil).(*Object); ok {
			if p, ok := argOr(parameters, "properties", nil).(*Object); ok {
				props = p
			}
		}
		params[name] = props
	}
	return params
}

// typeToolCalls types any stored value shaped {function: {name, arguments}}
// [typing.applied, typing.applied-to-list, typing.not-a-call-skipped,
// typing.tool-unknown, typing.tool-without-properties].
func typeToolCalls(value any, params map[string]*Object) any {
	if list, ok := value.([]any); ok {
		out := make([]any, len(list))
		for i, item := range list {
			out[i] = typeToolCalls(item, params)
		}
		return out
	}
	obj, ok := value.(*Object)
	if !ok {
		return value
	}
	fn, ok := argOr(obj, "function", nil).(*Object)
	if !ok {
		return value
	}
	name, okName := argOr(fn, "name", nil).(string)
	arguments, okArgs := argOr(fn, "arguments", nil).(*Object)
	if !okName || !okArgs {
		return value
	}
	properties := params[name]
	if properties == nil || properties.Len() == 0 {
		return value
	}
	for _, key := range arguments.Keys() {
		schema, declared := properties.Get(key)
		if !declared { // [typing.argument-not-in-schema]
			continue
		}
		types := schemaTypes(schema)
		if len(types) == 0 { // [typing.schema.untyped]
			continue
		}
		argument, _ := arguments.Get(key)
		switch a := argument.(type) { // other types untouched [typing.non-string-untouched]
		case string:
			arguments.Set(key, castArgument(a, types))
		case []any:
			isArray := false
			for _, t := range types {
				isArray = isArray || t == "array"
			}
			if !isArray { // [typing.list-elementwise, typing.array-list-untouched]
				out := make([]any, len(a))
				for i, item := range a {
					if s, ok := item.(string); ok {
						out[i] = castArgument(s, types)
					} else {
						out[i] = item
					}
				}
				arguments.Set(key, out)
			}
		}
	}
	return value
}
