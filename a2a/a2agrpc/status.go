package a2agrpc

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"

	"github.com/a2a-mcp-bridge/bridge/a2a"
)

// codeOf is the gRPC code named by a2a.Error.GRPCStatus.
var codeOf = map[string]codes.Code{
	"INVALID_ARGUMENT":    codes.InvalidArgument,
	"UNIMPLEMENTED":       codes.Unimplemented,
	"NOT_FOUND":           codes.NotFound,
	"FAILED_PRECONDITION": codes.FailedPrecondition,
	"UNAUTHENTICATED":     codes.Unauthenticated,
	"PERMISSION_DENIED":   codes.PermissionDenied,
	"RESOURCE_EXHAUSTED":  codes.ResourceExhausted,
	"UNAVAILABLE":         codes.Unavailable,
	"INTERNAL":            codes.Internal,
}

// Status is the gRPC status of an A2A error: the code of the v1.0.1 table,
// the error's message, and details holding google.rpc.ErrorInfo (reason,
// domain a2a-protocol.org, metadata) and google.rpc.BadRequest for the
// invalid fields.
func Status(e *a2a.Error) *status.Status { return StatusIn(e, a2a.ErrorTableV101) }

// StatusIn is Status with the codes of error table t.
func StatusIn(e *a2a.Error, t a2a.ErrorTable) *status.Status {
	code, ok := codeOf[e.GRPCStatusIn(t)]
	if !ok {
		code = codes.Internal
	}
	st := status.New(code, e.Message)
	var details []protoadapt.MessageV1
	if e.Reason != "" {
		details = append(details, &errdetails.ErrorInfo{Reason: e.Reason, Domain: a2a.ErrorDomain, Metadata: e.Metadata})
	}
	if len(e.Violations) > 0 {
		br := &errdetails.BadRequest{}
		for _, v := range e.Violations {
			br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{Field: v.Field, Description: v.Description})
		}
		details = append(details, br)
	}
	if len(details) == 0 {
		return st
	}
	withDetails, err := st.WithDetails(details...)
	if err != nil {
		return st
	}
	return withDetails
}

// statusError answers err on a call: its status, and its HTTP headers that
// mean something to a gRPC caller (WWW-Authenticate, Retry-After,
// RateLimit…) as response header metadata (HTTP/2 forbids several of them
// in trailers).
func statusError(ctx context.Context, e *a2a.Error, t a2a.ErrorTable) error {
	if md := headerMetadata(e.Header); len(md) > 0 {
		_ = grpc.SetHeader(ctx, md)
	}
	return StatusIn(e, t).Err()
}

// headerMetadata is h as gRPC metadata (lower-case keys).
func headerMetadata(h http.Header) metadata.MD {
	if len(h) == 0 {
		return nil
	}
	md := metadata.MD{}
	for k, vs := range h {
		md[strings.ToLower(k)] = append([]string(nil), vs...)
	}
	return md
}

// errorOf rebuilds the A2A error a gRPC status stands for: its ErrorInfo
// reason picks the kind; without one the code does. A status that is no
// A2A answer (the connection failed, the deadline passed) yields false:
// so does one without ErrorInfo of the codes grpc-go gives the client's
// own failures (UNAVAILABLE for a dial, RESOURCE_EXHAUSTED for a message
// over the size limit, INTERNAL and UNKNOWN for a broken stream), whose
// messages name addresses and dial errors the caller must not see.
func errorOf(err error) (*a2a.Error, bool) {
	st, ok := status.FromError(err)
	if !ok {
		return nil, false
	}
	if len(st.Details()) == 0 {
		switch st.Code() {
		case codes.Unavailable, codes.ResourceExhausted, codes.Internal, codes.Unknown:
			return nil, false
		}
	}
	var reason string
	var meta map[string]string
	var violations []a2a.FieldViolation
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.ErrorInfo:
			if d.GetDomain() == a2a.ErrorDomain || reason == "" {
				reason, meta = d.GetReason(), d.GetMetadata()
			}
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				violations = append(violations, a2a.FieldViolation{Field: v.GetField(), Description: v.GetDescription()})
			}
		}
	}
	var kind *a2a.Error
	switch st.Code() {
	case codes.InvalidArgument:
		kind = a2a.ErrInvalidParams
	case codes.Unimplemented:
		kind = a2a.ErrMethodNotFound
	case codes.NotFound:
		kind = a2a.ErrTaskNotFound
	case codes.FailedPrecondition:
		kind = a2a.ErrUnsupportedOperation
	case codes.Unauthenticated:
		kind = a2a.ErrUnauthenticated
	case codes.PermissionDenied:
		kind = a2a.ErrPermissionDenied
	case codes.ResourceExhausted:
		kind = a2a.ErrRateLimited
	case codes.Unavailable:
		kind = a2a.ErrUnavailable
	case codes.Internal, codes.Unknown, codes.DataLoss:
		kind = a2a.ErrInternal
	default:
		// Canceled, DeadlineExceeded, Aborted…: no answer of the agent's.
		return nil, false
	}
	e := a2a.WireError(reason, st.Message(), meta, kind)
	e.Violations = violations
	return e, true
}

// IsStatus reports whether err carries a gRPC status.
func IsStatus(err error) bool {
	var s interface{ GRPCStatus() *status.Status }
	return errors.As(err, &s)
}
