module github.com/blevesearch/vellum

go 1.24.0

require (
	github.com/bits-and-blooms/bitset v1.24.2
	github.com/blevesearch/mmap-go v1.2.0
)

require golang.org/x/sys v0.40.0 // indirect
