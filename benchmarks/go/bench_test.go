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
	rt "github.com/response-template-compiler/response-template-compiler/runtime/go"
)

type stream struct {
	Name     string   `json:"name"`
	Template string   `json:"template"`
	Prefix   string   `json:"prefix"`
	Tokens   []string `json:"tokens"`

	whole string  // the tokens, joined
	ends  []int32 // where each token ends in whole
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
		out[i].whole, out[i].ends = compact(out[i].Tokens)
		out[i].Tokens = nil
	}
	runtime.GC()
	return out
}

// compact joins the tokens into one string and notes where each ends: the
// streams then hold no pointer per token, so the collector's cost (counted
// in the CPU time) is the parser's own, not the scanning of the streams.
func compact(tokens []string) (string, []int32) {
	ends := make([]int32, len(tokens))
	at := 0
	for i, token := range tokens {
		at += len(token)
		ends[i] = int32(at)
	}
	return strings.Join(tokens, ""), ends
}

// count is the number of tokens.
func (s *stream) count() int { return len(s.ends) }

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
				at := int32(0)
				for _, end := range s.ends {
					if _, err := p.Feed(s.whole[at:end]); err != nil {
						b.Fatal(err)
					}
					at = end
				}
				if _, _, err := p.Finalize(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N)/float64(s.count()), "cpu-ns/token")
		})
	}
}

// BenchmarkStreamAppend is BenchmarkStream through AppendFeed, one event
// buffer reused for every token (a caller that sends each step's events on
// before the next step): a plain token then allocates nothing.
func BenchmarkStreamAppend(b *testing.B) {
	for _, s := range loadStreams(b) {
		s := s
		newParser := parsers.All[s.Template]
		b.Run(s.Name, func(b *testing.B) {
			b.ReportAllocs()
			var buffer []rt.Event
			cpu := cpuNanos()
			for i := 0; i < b.N; i++ {
				p, err := newParser(s.Prefix)
				if err != nil {
					b.Fatal(err)
				}
				at := int32(0)
				for _, end := range s.ends {
					if buffer, err = p.AppendFeed(buffer[:0], s.whole[at:end]); err != nil {
						b.Fatal(err)
					}
					at = end
				}
				if _, _, err := p.Finalize(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N)/float64(s.count()), "cpu-ns/token")
		})
	}
}
