// Package ollama times the generated qwen3 parser beside Ollama's
// hand-written one (parsers.ParserForName) on the same token streams
// (`python -m benchmarks.go_streams --ollama FILE`; STREAMS names the file).
// A separate module: it needs github.com/ollama/ollama from the Go module
// proxy, so it is not part of the tests. Run by `python -m benchmarks.go_bench --ollama`.
package ollama

import (
	"encoding/json"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/ollama/ollama/model/parsers"
	"github.com/response-template-compiler/response-template-compiler/generated/go/qwen3"
)

type stream struct {
	Name     string   `json:"name"`
	Template string   `json:"template"`
	Ollama   string   `json:"ollama"`
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
		b.Fatalf("%v (write it with `python -m benchmarks.go_streams --ollama %s`)", err, path)
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

// perToken reports the CPU time per token since cpu (see cpuNanos).
func perToken(b *testing.B, cpu int64, tokens int) {
	b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N)/float64(tokens), "cpu-ns/token")
}

func BenchmarkGenerated(b *testing.B) {
	for _, s := range loadStreams(b) {
		s := s
		b.Run(s.Name, func(b *testing.B) {
			cpu := cpuNanos()
			for i := 0; i < b.N; i++ {
				p, err := qwen3.New(s.Prefix)
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
			perToken(b, cpu, len(s.Tokens))
		})
	}
}

func BenchmarkOllama(b *testing.B) {
	for _, s := range loadStreams(b) {
		s := s
		b.Run(s.Name, func(b *testing.B) {
			calls := 0
			cpu := cpuNanos()
			for i := 0; i < b.N; i++ {
				p := parsers.ParserForName(s.Ollama)
				p.Init(nil, nil, nil)
				for j, token := range s.Tokens {
					_, _, found, err := p.Add(token, j == len(s.Tokens)-1)
					if err != nil {
						b.Fatal(err)
					}
					calls += len(found)
				}
			}
			perToken(b, cpu, len(s.Tokens))
		})
	}
}
