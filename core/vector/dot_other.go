//go:build !amd64

package vector

func dot(a, b []float32) float32 { return dotGeneric(a, b) }
