package server

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3gen"

	"github.com/huimemory/huimemory/core"
)

// The OpenAPI documents are generated here, in the tests, from the route
// table that registers the handlers and from the Go types of their request
// and response bodies, and embedded in the binary (openapi.go): the
// generator's dependencies stay out of the huimem binary, whose every start
// would pay for their initialisation. TestOpenAPIIsCurrent fails when an
// embedded document differs from what the code generates; rewrite them with
// go test ./core/server -run TestOpenAPIIsCurrent -update.

var update = flag.Bool("update", false, "rewrite the embedded OpenAPI documents")

func TestOpenAPIIsCurrent(t *testing.T) {
	for _, takeover := range []bool{false, true} {
		opts := Options{}
		if takeover {
			opts.Takeover = &core.TakeoverConfig{}
		}
		s, err := New(nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		doc := buildOpenAPI(s.routes)
		if err := doc.Validate(context.Background()); err != nil {
			t.Fatalf("the generated document is invalid: %v", err)
		}
		want, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		path := filepath.Join("openapi", docName(takeover))
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got := s.OpenAPI(); !bytes.Equal(got, want) {
			t.Errorf("%s is out of date with the routes: run go test ./core/server -run TestOpenAPIIsCurrent -update", path)
		}
	}
}

// loadDoc parses a server's embedded document for request and response
// validation in the tests.
func loadDoc(t *testing.T, s *Server) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(s.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the OpenAPI document is invalid: %v", err)
	}
	return doc
}

func buildOpenAPI(routes []*route) *openapi3.T {
	doc := &openapi3.T{
		OpenAPI: "3.0.3",
		Info: &openapi3.Info{Title: "HuiMemory HTTP API", Version: APIVersion,
			Description: "Long-term memory for LLM agents: recall by keyword, meaning and time; turns walked by id. Errors are {\"error\": {\"code\", \"message\"}}."},
		Paths: openapi3.NewPaths(),
		Components: &openapi3.Components{
			Schemas: openapi3.Schemas{},
			SecuritySchemes: openapi3.SecuritySchemes{
				"bearer": &openapi3.SecuritySchemeRef{Value: openapi3.NewJWTSecurityScheme().WithBearerFormat("opaque")},
			},
		},
	}
	gen := openapi3gen.NewGenerator(openapi3gen.UseAllExportedFields(), openapi3gen.SchemaCustomizer(customize))
	schema := func(v any) *openapi3.SchemaRef {
		ref, err := gen.NewSchemaRefForValue(v, doc.Components.Schemas)
		if err != nil {
			panic("server: generating schema for " + reflect.TypeOf(v).String() + ": " + err.Error())
		}
		return ref
	}
	errResp := openapi3.NewResponse().WithDescription("an error, with a stable code").
		WithJSONSchemaRef(schema(ErrorBody{}))
	for _, r := range routes {
		op := openapi3.NewOperation()
		op.OperationID, op.Summary = r.id, r.summary
		if !authless(r.path) {
			op.Security = &openapi3.SecurityRequirements{{"bearer": []string{}}}
		}
		for _, p := range r.params {
			pp := &openapi3.Parameter{Name: p.name, In: p.in, Required: p.required, Description: p.desc,
				Schema: openapi3.NewSchemaRef("", &openapi3.Schema{Type: &openapi3.Types{p.typ}})}
			op.AddParameter(pp)
		}
		switch {
		case r.oneOf != nil:
			var alts []*openapi3.SchemaRef
			for _, v := range r.oneOf {
				alts = append(alts, schema(v))
			}
			op.RequestBody = &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithRequired(true).
				WithJSONSchema(openapi3.NewOneOfSchema(derefAll(alts)...))}
		case r.reqSchema != nil:
			raw, _ := json.Marshal(r.reqSchema)
			var sc openapi3.Schema
			json.Unmarshal(raw, &sc)
			op.RequestBody = &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithRequired(true).WithJSONSchema(&sc)}
		case r.req != nil:
			op.RequestBody = &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithRequired(true).WithJSONSchemaRef(schema(r.req))}
		}
		code := r.status
		if code == 0 {
			code = 200
		}
		var ok *openapi3.Response
		switch {
		case r.id == "openapi":
			ok = openapi3.NewResponse().WithDescription("the OpenAPI document").WithJSONSchema(openapi3.NewObjectSchema())
		case r.raw:
			ok = openapi3.NewResponse().WithDescription("JSON Lines, one message per line, in the generic ingest format").
				WithContent(openapi3.NewContentWithSchema(openapi3.NewStringSchema(), []string{"application/x-ndjson"}))
		default:
			ok = openapi3.NewResponse().WithDescription("success").WithJSONSchemaRef(schema(r.resp))
		}
		op.Responses = openapi3.NewResponses(
			openapi3.WithStatus(code, &openapi3.ResponseRef{Value: ok}),
			openapi3.WithName("default", errResp),
		)
		doc.AddOperation(r.path, r.method, op)
	}
	return doc
}

func derefAll(refs []*openapi3.SchemaRef) []*openapi3.Schema {
	out := make([]*openapi3.Schema, len(refs))
	for i, r := range refs {
		out[i] = r.Value
	}
	return out
}

// customize marks optional fields as nullable-free and time fields as
// date-time strings, and records which fields are required: those whose
// JSON tag has no omitempty, except where the API fills a default.
func customize(name string, t reflect.Type, tag reflect.StructTag, schema *openapi3.Schema) error {
	if t == reflect.TypeOf(time.Time{}) {
		schema.Type = &openapi3.Types{"string"}
		schema.Format = "date-time"
		schema.Properties = nil
	}
	if j := tag.Get("json"); strings.Contains(j, "omitempty") || strings.Contains(j, "omitzero") {
		schema.Nullable = false
	}
	return nil
}
