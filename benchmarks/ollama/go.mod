module github.com/response-template-compiler/response-template-compiler/benchmarks/ollama

go 1.24.1

require (
	github.com/ollama/ollama v0.17.4
	github.com/response-template-compiler/response-template-compiler/generated/go v0.0.0
)

require (
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.1 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/mailru/easyjson v0.7.7 // indirect
	github.com/response-template-compiler/response-template-compiler/runtime/go v0.0.0 // indirect
	github.com/wk8/go-ordered-map/v2 v2.1.8 // indirect
	golang.org/x/crypto v0.43.0 // indirect
	golang.org/x/sys v0.37.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace (
	github.com/response-template-compiler/response-template-compiler/generated/go => ../../generated/go
	github.com/response-template-compiler/response-template-compiler/runtime/go => ../../runtime/go
)
