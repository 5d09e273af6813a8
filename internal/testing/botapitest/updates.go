package botapitest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// longPoll is a getUpdates request waiting for updates.
type longPoll struct {
	terminated chan struct{} // closed when a newer long poll takes over
}

// conflict is the answer to a long poll another one terminated.
var conflict = &apiError{http.StatusConflict, "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"}

// getUpdates serves long polling as Telegram's Bot API server does: the
// offset confirms (drops) every update below it; updates queued are
// returned at once; otherwise the request waits up to timeout seconds,
// and a newer waiting request terminates it with 409 Conflict. It is
// called with s.mu held, and unlocks it.
func (s *Server) getUpdates(w http.ResponseWriter, r *http.Request, a args) {
	offset := intArg(a, "offset", 0, -1<<31, 1<<31-1)
	limit := intArg(a, "limit", 100, 1, 100)
	timeout := time.Duration(intArg(a, "timeout", 0, 0, 50)) * time.Second

	// A poll stops counting before it answers, so that Pollers does not
	// count one bot twice while it polls again.
	s.pollers++
	var p *longPoll
	finish := func() {
		s.pollers--
		if p != nil && s.waiting == p {
			s.waiting = nil
		}
		s.mu.Unlock()
	}
	if v, ok := a["allowed_updates"]; ok {
		var allowed []string
		if err := json.Unmarshal([]byte(v), &allowed); err == nil {
			s.allowed = allowed
			if len(allowed) == 0 {
				s.allowed = nil
			}
		}
	}
	ups := s.answer(offset, limit)
	if len(ups) > 0 || timeout == 0 {
		finish()
		writeResult(w, ups)
		return
	}
	if s.waiting != nil {
		close(s.waiting.terminated)
	}
	p = &longPoll{terminated: make(chan struct{})}
	s.waiting = p
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		changed := s.changed
		s.mu.Unlock()
		timedOut := false
		select {
		case <-changed:
		case <-p.terminated:
		case <-deadline.C:
			timedOut = true
		case <-r.Context().Done():
		case <-s.quit:
		}
		s.mu.Lock()
		select {
		case <-p.terminated:
			s.conflicts++
			finish()
			writeError(w, conflict)
			return
		case <-r.Context().Done():
			finish()
			return
		case <-s.quit:
			finish()
			writeDown(w)
			return
		default:
		}
		if s.down {
			finish()
			writeDown(w)
			return
		}
		ups = s.answer(offset, limit)
		if len(ups) > 0 || timedOut {
			finish()
			writeResult(w, ups)
			return
		}
	}
}

// answer applies a getUpdates offset, as Telegram does again when a long
// poll wakes, and returns the updates to answer with; after RequeueFrom,
// the offset is ignored once. s.mu must be held.
func (s *Server) answer(offset, limit int64) []map[string]any {
	if s.redeliver {
		if ups := s.pending(limit); len(ups) > 0 {
			s.redeliver = false
			return ups
		}
	}
	s.confirm(offset)
	return s.pending(limit)
}

// confirm applies a getUpdates offset: a positive one confirms every
// update below it (but never one not queued yet), a negative one -n
// confirms all but the last n; s.mu must be held.
func (s *Server) confirm(offset int64) {
	next := s.nextUpdateID()
	switch {
	case offset > 0:
		s.head = max(s.head, min(offset, next))
	case offset < 0:
		s.head = max(s.head, next+offset)
	}
}

// pending returns up to limit updates not confirmed, oldest first, as
// Bot API Update objects; s.mu must be held.
func (s *Server) pending(limit int64) []map[string]any {
	ups := []map[string]any{}
	for _, u := range s.updates[s.head-firstUpdateID:] {
		if int64(len(ups)) == limit {
			break
		}
		ups = append(ups, map[string]any{"update_id": u.id, u.kind: u.body})
	}
	return ups
}

// intArg reads an integer parameter as Telegram does: absent or not a
// number gives def, and the value is held within [lo, hi].
func intArg(a args, name string, def, lo, hi int64) int64 {
	n, err := strconv.ParseInt(a[name], 10, 64)
	if err != nil {
		return def
	}
	return min(max(n, lo), hi)
}
