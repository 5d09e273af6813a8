package httpapi

import (
	"net/http"
	"net/url"

	"github.com/topupd/topupd"
)

// requestText checks a request's path, decoded, and every query parameter's
// name and value, decoded: whether each is clean text (topupd.CleanText).
func requestText(r *http.Request) (pathOK, queryOK bool) {
	pathOK = topupd.CleanText(r.URL.Path)
	if r.URL.RawQuery == "" {
		return pathOK, true
	}
	q, _ := url.ParseQuery(r.URL.RawQuery) // a malformed pair is left out, as r.URL.Query() does
	for k, vs := range q {
		if !topupd.CleanText(k) {
			return pathOK, false
		}
		for _, v := range vs {
			if !topupd.CleanText(v) {
				return pathOK, false
			}
		}
	}
	return pathOK, true
}

// resellerText refuses, after authentication, a reseller call whose path or
// query holds a NUL byte or invalid UTF-8: an order id that cannot be text
// names no order (404 ORDER NOT FOUND); anything else is 400 INVALID
// REQUEST.
func resellerText(r *http.Request) error {
	pathOK, queryOK := requestText(r)
	switch {
	case !pathOK && r.PathValue("orderId") != "" && !topupd.CleanText(r.PathValue("orderId")):
		return topupd.Fail(topupd.EOrderNotFound)
	case !pathOK || !queryOK:
		return topupd.Errorf(topupd.EInvalidRequest, "a NUL byte or invalid UTF-8 in the path or the query")
	}
	return nil
}

// adminText refuses, after authentication, an admin call whose path or
// query holds a NUL byte or invalid UTF-8 as 400 INVALID_REQUEST.
func adminText(r *http.Request) error {
	if pathOK, queryOK := requestText(r); !pathOK || !queryOK {
		return topupd.Errorf(topupd.EInvalidRequest, "a NUL byte or invalid UTF-8 in the path or the query")
	}
	return nil
}
