// Package bench times the generated Go parsers on the speed suite's token
// streams (written by `python -m benchmarks.go_streams`; STREAMS names the
// file). Run through `python -m benchmarks.go_bench`, which also times the
// compiled Python parsers on the same streams.
package bench

import (
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"

	parsers "github.com/response-template-compiler/response-template-compiler/generated/go"
)

type stream struct {
	Name     string   `json:"name"`
	Template string   `json:"template"`
	Prefix   string   `json:"prefix"`
	Tokens   []string `json:"tokens"`
}

func loadStreams(b *testing.B) []stream {
	path := os.Getenv("STREAMS")
	if path == "" {
		path = "streams.json"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatalf("%v (write it with `python -m benchmarks.go_streams %s`)", err, path)
	}
	var out []stream
	if err := json.Unmarshal(data, &out); err != nil {
		b.Fatal(err)
	}
	for i := range out {
		out[i].Tokens = compact(out[i].Tokens)
	}
	runtime.GC()
	return out
}

// compact re-slices the tokens out of one string: the collector then scans
// a few objects, not one per token, so its cost is the parser's own.
func compact(tokens []string) []string {
	whole := strings.Join(tokens, "")
	out := make([]string, len(tokens))
	at := 0
	for i, token := range tokens {
		out[i] = whole[at : at+len(token)]
		at += len(token)
	}
	return out
}

// BenchmarkStream feeds each stream token by token, then finalizes; it
// reports CPU time per token (cpu-ns/token).
func BenchmarkStream(b *testing.B) {
	for _, s := range loadStreams(b) {
		s := s
		newParser := parsers.All[s.Template]
		b.Run(s.Name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuNanos()
			for i := 0; i < b.N; i++ {
				p, err := newParser(s.Prefix)
				if err != nil {
					b.Fatal(err)
				}
				for _, token := range s.Tokens {
					if _, err := p.Feed(token); err != nil {
						b.Fatal(err)
					}
				}
				if _, _, err := p.Finalize(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N)/float64(len(s.Tokens)), "cpu-ns/token")
		})
	}
}
