package openai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/huimemory/huimemory/plugins/embedder/openai"
)

// ExampleNew embeds two texts with a server that speaks the OpenAI
// embeddings API; here a stand-in that answers 3-dimensional vectors.
// With Ollama, BaseURL would be "http://localhost:11434" and Model, say,
// "nomic-embed-text".
func ExampleNew() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input []string }
		json.NewDecoder(r.Body).Decode(&req)
		var data []map[string]any
		for i, s := range req.Input {
			data = append(data, map[string]any{"index": i, "embedding": []float32{float32(len(s)), 0, 1}})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	}))
	defer srv.Close()

	e, err := openai.New(openai.Config{BaseURL: srv.URL, Model: "nomic-embed-text"})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	vecs, err := e.Embed(ctx, []string{"hello", "本地模型"})
	if err != nil {
		fmt.Println(err)
		return
	}
	info, _ := e.Info(ctx) // the dimension was learnt from the answer
	fmt.Println(vecs, info.Name, info.Model, info.Dim)
	// Output:
	// [[5 0 1] [12 0 1]] openai nomic-embed-text 3
}
