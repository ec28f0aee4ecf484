module github.com/response-template-compiler/response-template-compiler/generated/go

go 1.22

require github.com/response-template-compiler/response-template-compiler/runtime/go v0.0.0

replace github.com/response-template-compiler/response-template-compiler/runtime/go => ../../runtime/go
