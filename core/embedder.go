package core

import "context"

// EmbedderInfo describes the model behind an [Embedder]. The engine records
// it in the store on first use and refuses to mix vectors from two models.
type EmbedderInfo struct {
	// Name is the embedder's registered name, such as "hash" or "openai".
	Name string `json:"name"`
	// Model names the model or its parameters, such as "ngram-1-3".
	Model string `json:"model"`
	// Dim is the length of every vector the embedder returns.
	Dim int `json:"dim"`
}

// Embedder turns texts into vectors of a fixed dimension.
//
// Implementations must return exactly one vector per text, each of length
// Info().Dim, and must be safe for concurrent use.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Info reports the embedder's name, model and dimension.
	Info(ctx context.Context) (EmbedderInfo, error)
}
