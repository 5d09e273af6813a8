// Package statuswriter remembers the status of an answer as it goes out:
// the request log and metrics read it, and so does the test check of the
// answers against the OpenAPI documents.
package statuswriter

import "net/http"

// Writer passes an answer through to the ResponseWriter it wraps and
// remembers the status it was given (0 while none was).
type Writer struct {
	http.ResponseWriter
	Status int
}

// WriteHeader remembers the status and sends it.
func (s *Writer) WriteHeader(code int) {
	if s.Status == 0 {
		s.Status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

// Write sends b, with status 200 unless one was set.
func (s *Writer) Write(b []byte) (int, error) {
	if s.Status == 0 {
		s.Status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the writer underneath (to
// flush, for one).
func (s *Writer) Unwrap() http.ResponseWriter { return s.ResponseWriter }
