package console_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/internal/testing/topupdtest"
)

// guesses is how many wrong sign-ins each race sends at once.
const guesses = 60

// signInRace sends a wrong sign-in for each name at once, from one
// address, each with a valid form token, and returns how many answers said
// the name, password or code was wrong (a guess was checked) and how many
// were refused unchecked (429: the name locked, or the address).
func signInRace(t *testing.T, h *topupdtest.T, names []string) (checked, refused int) {
	t.Helper()
	token := formToken(t, h)
	start := make(chan struct{})
	var mu sync.Mutex
	var wg sync.WaitGroup
	var problems []string
	for i, name := range names {
		wg.Go(func() {
			form := url.Values{"csrf": {token}, "name": {name}, "password": {fmt.Sprintf("guess number %d", i)}, "code": {"123456"}}
			req, _ := http.NewRequest("POST", h.Admin.URL+"/console/login", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.AddCookie(&http.Cookie{Name: "topupd_login", Value: token})
			<-start
			resp, err := h.HTTP.Do(req)
			if err != nil {
				mu.Lock()
				problems = append(problems, err.Error())
				mu.Unlock()
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			mu.Lock()
			defer mu.Unlock()
			switch {
			case resp.StatusCode == http.StatusUnauthorized:
				checked++
			case resp.StatusCode == http.StatusTooManyRequests:
				refused++
			default:
				problems = append(problems, fmt.Sprintf("%d %.200s", resp.StatusCode, body))
			}
		})
	}
	close(start)
	wg.Wait()
	for _, p := range problems {
		t.Errorf("a sign-in: %s", p)
	}
	return checked, refused
}

// checkedInLog counts the attempts of the login log that got as far as a
// check of the password (or code): every one but those refused unchecked.
func checkedInLog(t *testing.T, h *topupdtest.T) (checked, total int) {
	t.Helper()
	log, err := h.Store.Logins(t.Context(), 10*guesses)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range log {
		if a.Reason != "locked" && a.Reason != "address blocked" {
			checked++
		}
	}
	return checked, len(log)
}

// TestSignInRaceOneName: 60 wrong sign-ins of one name sent at once check
// at most 5 guesses (the fifth failure locks the name); every other one is
// refused unchecked, and the login log agrees.
func TestSignInRaceOneName(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		h.NewOperator("kim", "owner")
		names := make([]string, guesses)
		for i := range names {
			names[i] = "kim"
		}
		checked, refused := signInRace(t, h, names)
		if checked > topupd.MaxLoginFailures || checked+refused != guesses {
			t.Errorf("%d guesses checked, %d refused unchecked; want at most %d checked of %d", checked, refused, topupd.MaxLoginFailures, guesses)
		}
		logged, total := checkedInLog(t, h)
		if logged != checked || total != guesses {
			t.Errorf("the login log holds %d attempts, %d of them checked; the answers said %d of %d", total, logged, checked, guesses)
		}
		if checked, _ := signInRace(t, h, []string{"kim"}); checked != 0 {
			t.Errorf("a guess after the race was checked: the name is not locked")
		}
	})
}

// TestSignInRaceOneAddress: 60 wrong sign-ins of 60 names sent at once from
// one address check at most 20 guesses (what one address may fail in 15
// minutes); every other one is refused unchecked.
func TestSignInRaceOneAddress(t *testing.T) {
	t.Parallel()
	topupdtest.EachStore(t, func(t *testing.T, h *topupdtest.T) {
		names := make([]string, guesses)
		for i := range names {
			names[i] = fmt.Sprintf("name-%d", i)
		}
		const perAddress = 20
		checked, refused := signInRace(t, h, names)
		if checked > perAddress || checked+refused != guesses {
			t.Errorf("%d guesses checked, %d refused unchecked; want at most %d checked of %d", checked, refused, perAddress, guesses)
		}
		if logged, total := checkedInLog(t, h); logged != checked || total != guesses {
			t.Errorf("the login log holds %d attempts, %d of them checked; the answers said %d of %d", total, logged, checked, guesses)
		}
	})
}

// formToken loads the sign-in page and returns the form token its cookie
// carries (the form's csrf field must repeat it).
func formToken(t *testing.T, h *topupdtest.T) string {
	t.Helper()
	resp, err := h.HTTP.Get(h.Admin.URL + "/console/login")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, ck := range resp.Cookies() {
		if ck.Name == "topupd_login" && ck.Value != "" {
			return ck.Value
		}
	}
	t.Fatal("the sign-in form set no form token")
	return ""
}
