package server

import "embed"

// APIVersion is the version of the HTTP API the OpenAPI documents describe.
const APIVersion = "1.0.0"

//go:embed openapi/*.json
var openapiDocs embed.FS

func docName(takeover bool) string {
	if takeover {
		return "takeover.json"
	}
	return "enhance.json"
}

// OpenAPI returns the OpenAPI 3 document of this server's API (the
// takeover routes are in it only in takeover mode). The documents are
// generated from the route table and the request and response types by
// the package's tests, which fail when they are out of date.
func (s *Server) OpenAPI() []byte {
	b, _ := openapiDocs.ReadFile("openapi/" + docName(s.opts.Takeover != nil))
	return b
}
