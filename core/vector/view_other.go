//go:build !(amd64 || arm64)

package vector

const canView = false

func view(b []byte) []float32 { panic("vector: view on a machine that cannot read floats in place") }
