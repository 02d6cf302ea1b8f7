// Copyright IBM Corp. 2016, 2025
// SPDX-License-Identifier: MPL-2.0

package plugin

import (
	"context"
	"reflect"
	"testing"

	grpctest "github.com/hashicorp/go-plugin/test/grpc"
	"github.com/jhump/protoreflect/grpcreflect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

func TestGRPC_App(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		testGRPCClientApp(t, false)
	})
	t.Run("mux", func(t *testing.T) {
		testGRPCClientApp(t, true)
	})
}

func testGRPCClientApp(t *testing.T, multiplex bool) {
	client, server := TestPluginGRPCConn(t, multiplex, map[string]Plugin{
		"test": new(testGRPCInterfacePlugin),
	})
	defer func() { _ = client.Close() }()
	defer server.Stop()

	raw, err := client.Dispense("test")
	if err != nil {
		t.Fatalf("err: %s", err)
	}

	impl, ok := raw.(testInterface)
	if !ok {
		t.Fatalf("bad: %#v", raw)
	}

	result := impl.Double(21)
	if result != 42 {
		t.Fatalf("bad: %#v", result)
	}

	err = impl.Bidirectional()
	if err != nil {
		t.Fatal(err)
	}
}

func TestGRPCConn_BidirectionalPing(t *testing.T) {
	conn, _ := TestGRPCConn(t, func(s *grpc.Server) {
		grpctest.RegisterPingPongServer(s, &pingPongServer{})
	})
	defer func() { _ = conn.Close() }()
	pingPongClient := grpctest.NewPingPongClient(conn)

	pResp, err := pingPongClient.Ping(context.Background(), &grpctest.PingRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if pResp.Msg != "pong" {
		t.Fatal("Bad PingPong")
	}
}

func TestGRPCC_Stream(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		testGRPCStream(t, false)
	})
	t.Run("mux", func(t *testing.T) {
		testGRPCStream(t, true)
	})
}

func testGRPCStream(t *testing.T, multiplex bool) {
	client, server := TestPluginGRPCConn(t, multiplex, map[string]Plugin{
		"test": new(testGRPCInterfacePlugin),
	})
	defer func() { _ = client.Close() }()
	defer server.Stop()

	raw, err := client.Dispense("test")
	if err != nil {
		t.Fatalf("err: %s", err)
	}

	impl, ok := raw.(testStreamer)
	if !ok {
		t.Fatalf("bad: %#v", raw)
	}

	expected := []int32{21, 22, 23, 24, 25, 26}
	result, err := impl.Stream(21, 27)
	if err != nil {
		t.Fatal(err)
	}

	if !reflect.DeepEqual(result, expected) {
		t.Fatalf("expected: %v\ngot: %v", expected, result)
	}
}

func TestGRPC_Ping(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		testGRPCClientPing(t, false)
	})
	t.Run("mux", func(t *testing.T) {
		testGRPCClientPing(t, true)
	})
}

func testGRPCClientPing(t *testing.T, multiplex bool) {
	client, server := TestPluginGRPCConn(t, multiplex, map[string]Plugin{
		"test": new(testGRPCInterfacePlugin),
	})
	defer func() { _ = client.Close() }()
	defer server.Stop()

	// Run a couple pings
	if err := client.Ping(); err != nil {
		t.Fatalf("err: %s", err)
	}
	if err := client.Ping(); err != nil {
		t.Fatalf("err: %s", err)
	}

	// Close the remote end
	server.server.Stop()

	// Test ping fails
	if err := client.Ping(); err == nil {
		t.Fatal("should error")
	}
}

func TestGRPC_Reflection(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		testGRPCClientReflection(t, false)
	})
	t.Run("mux", func(t *testing.T) {
		testGRPCClientReflection(t, true)
	})
}

// testGRPCClientReflection checks the patch (PATCH.md): the server
// registers no reflection service, so a reflection client is told it is
// not implemented, and the plugin's own services still answer.
func testGRPCClientReflection(t *testing.T, multiplex bool) {
	ctx := context.Background()

	client, server := TestPluginGRPCConn(t, multiplex, map[string]Plugin{
		"test": new(testGRPCInterfacePlugin),
	})
	defer func() { _ = client.Close() }()
	defer server.Stop()

	refClient := grpcreflect.NewClientAuto(ctx, client.Conn)
	if svcs, err := refClient.ListServices(); err == nil {
		t.Fatalf("the server lists its services by reflection: %v", svcs)
	} else if status.Code(err) != codes.Unimplemented {
		t.Fatalf("reflection: got %v, want Unimplemented", err)
	}

	resp, err := grpc_health_v1.NewHealthClient(client.Conn).Check(ctx, &grpc_health_v1.HealthCheckRequest{Service: GRPCServiceName})
	if err != nil {
		t.Fatalf("health check: %s", err)
	}
	if resp.Status != grpc_health_v1.HealthCheckResponse_SERVING {
		t.Fatalf("health check: %v, want SERVING", resp.Status)
	}
}
