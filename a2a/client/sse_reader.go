package client

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// ErrResponseTooLarge matches (errors.Is) a response body, or one event of a
// stream, longer than the client's cap (see [WithMaxResponseBytes]).
var ErrResponseTooLarge = errors.New("client: response too large")

// sseReadBufferSize is the read buffer of one stream. Streams are long-lived
// and mostly idle, so it stays small; longer lines are gathered in sseReader.line.
const sseReadBufferSize = 4096

// sseLineSlack is how much longer than the event cap a single line may be:
// room for the field name ("data: ") of a line whose value just fits.
const sseLineSlack = 64

// sseReader parses a text/event-stream incrementally, as the WHATWG
// EventSource algorithm does, and returns the data of each event. Lines end
// in CRLF, LF or CR, and a line break may be split across reads (a CR at the
// end of one read and an LF at the start of the next are one break). Several
// data lines of one event are joined with "\n". Comments (":" lines) and the
// id, event and retry fields are read and ignored: A2A defines only data.
type sseReader struct {
	r          io.Reader
	buf        []byte
	start, end int
	rerr       error // error of the last read, returned once buf is consumed
	skipLF     bool  // the last line ended in CR: drop one LF that follows
	line       []byte
	data       []byte
	hasData    bool
	max        int
	noRead     bool // tryNext: the buffer only, no read
}

// errWouldBlock is readLine's answer under noRead when it would read.
var errWouldBlock = errors.New("client: no complete event buffered")

// tryNext is next on what is already buffered: ok is false, and the
// reader is as it was, when the buffer holds no complete event (next would
// read). With ok, it returns what next returns.
func (s *sseReader) tryNext() (data []byte, ok bool, err error) {
	if s.start >= s.end && s.rerr == nil {
		return nil, false, nil
	}
	start, skipLF := s.start, s.skipLF
	s.noRead = true
	data, err = s.next()
	s.noRead = false
	if err == errWouldBlock {
		// Nothing was read, so the buffer still holds what was parsed.
		s.start, s.skipLF = start, skipLF
		return nil, false, nil
	}
	return data, true, err
}

// mark and reset let a caller parse a buffered event again from where it
// started (after tryNext, before any read).
func (s *sseReader) mark() (int, bool)          { return s.start, s.skipLF }
func (s *sseReader) reset(start int, skip bool) { s.start, s.skipLF = start, skip }

// newSSEReader reads events from r; an event whose data exceeds maxEvent
// bytes ends the stream with an error matching [ErrResponseTooLarge].
func newSSEReader(r io.Reader, maxEvent int) *sseReader {
	return &sseReader{r: r, max: maxEvent}
}

// next returns the data of the next event. The slice is valid until the next
// call. At a clean end of stream it returns io.EOF; a stream that ends in the
// middle of an event returns io.ErrUnexpectedEOF (the spec drops such an
// event; the caller should know the stream was cut).
func (s *sseReader) next() ([]byte, error) {
	s.data = s.data[:0]
	s.hasData = false
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && s.hasData {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if len(line) == 0 {
			if s.hasData {
				return s.data, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, line[len(line):]
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		if string(field) != "data" {
			continue // id, event, retry and unknown fields
		}
		n := len(s.data) + len(value)
		if s.hasData {
			n++
		}
		if n > s.max {
			return nil, sseTooLarge(s.max)
		}
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		s.data = append(s.data, value...)
		s.hasData = true
	}
}

func sseTooLarge(max int) error {
	return fmt.Errorf("%w: an event exceeds %d bytes", ErrResponseTooLarge, max)
}

// readLine returns the next line without its terminator. The slice is valid
// until the next call.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	empty := 0
	for {
		if s.start < s.end {
			if s.skipLF {
				s.skipLF = false
				if s.buf[s.start] == '\n' {
					s.start++
					continue
				}
			}
			chunk := s.buf[s.start:s.end]
			i := bytes.IndexByte(chunk, '\n')
			look := chunk
			if i >= 0 {
				look = chunk[:i]
			}
			if j := bytes.IndexByte(look, '\r'); j >= 0 {
				i = j
				s.skipLF = true
			}
			if i >= 0 {
				// Any line longer than the cap allows fails, wherever the
				// reads happened to split it.
				if len(s.line)+i > s.max+sseLineSlack {
					return nil, sseTooLarge(s.max)
				}
				s.start += i + 1
				if len(s.line) == 0 {
					return chunk[:i], nil
				}
				s.line = append(s.line, chunk[:i]...)
				return s.line, nil
			}
			if len(s.line)+len(chunk) > s.max+sseLineSlack {
				return nil, sseTooLarge(s.max)
			}
			s.line = append(s.line, chunk...)
			s.start = s.end
		}
		if s.rerr != nil {
			if s.rerr == io.EOF && len(s.line) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, s.rerr
		}
		if s.noRead {
			return nil, errWouldBlock
		}
		if s.buf == nil {
			s.buf = make([]byte, sseReadBufferSize)
		}
		n, err := s.r.Read(s.buf)
		if n < 0 || n > len(s.buf) {
			n, err = 0, errors.New("client: event stream reader returned an invalid count")
		}
		s.start, s.end, s.rerr = 0, n, err
		if n == 0 && err == nil {
			if empty++; empty > 100 {
				s.rerr = io.ErrNoProgress
			}
		}
	}
}
