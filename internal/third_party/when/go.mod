module github.com/olebedev/when

go 1.19

require (
	github.com/AlekSi/pointer v1.0.0
	github.com/pkg/errors v0.8.1
	github.com/stretchr/testify v1.3.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/stretchr/objx v0.1.0 // indirect
)
