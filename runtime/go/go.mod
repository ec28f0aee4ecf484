module github.com/response-template-compiler/response-template-compiler/runtime/go

go 1.22
