package shared

import (
	"context"
	"errors"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// ErrUnsupported means the plugin does not have an optional capability,
// such as taking options. It travels as codes.Unimplemented.
var ErrUnsupported = errors.New("not supported by the plugin")

// ToStatus turns an implementation's error into the gRPC status the server
// returns: ErrUnsupported becomes Unimplemented, context errors become
// Canceled or DeadlineExceeded, a status error stays as it is, and
// anything else is Unknown with the error's text.
func ToStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	switch {
	case errors.Is(err, ErrUnsupported):
		return status.Error(codes.Unimplemented, err.Error())
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	}
	return status.Error(codes.Unknown, err.Error())
}

// FromStatus turns a call's error back into a Go error for the client.
// Unimplemented wraps ErrUnsupported. The plugin's own failures (Unknown,
// InvalidArgument, FailedPrecondition, NotFound, Internal) become plain
// errors with the plugin's message. Transport failures (Unavailable,
// DeadlineExceeded, Canceled, ResourceExhausted, ...) stay status errors,
// so that a host can tell a crashed or slow plugin from a failing one.
func FromStatus(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	switch st.Code() {
	case codes.Unimplemented:
		return &remoteError{msg: st.Message(), unwrap: ErrUnsupported}
	case codes.Unknown, codes.InvalidArgument, codes.FailedPrecondition, codes.NotFound,
		codes.Internal, codes.OutOfRange, codes.AlreadyExists, codes.Aborted, codes.DataLoss:
		return &remoteError{msg: st.Message()}
	}
	return err
}

// remoteError is an error a plugin returned, with its message as the
// plugin wrote it.
type remoteError struct {
	msg    string
	unwrap error
}

func (e *remoteError) Error() string {
	if e.unwrap != nil && !strings.HasPrefix(e.msg, e.unwrap.Error()) {
		return e.unwrap.Error() + ": " + e.msg
	}
	return e.msg
}

func (e *remoteError) Unwrap() error { return e.unwrap }
