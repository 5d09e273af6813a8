package console

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// Stock uploads: a file of up to MaxUploadBytes is added to the stock
// whole, in one transaction and one batch, one stock.add in the action
// log; the script sends the same codes in one request.
const (
	// MaxUploadBytes bounds an uploaded file of codes.
	MaxUploadBytes = 64 << 20
	// LowStock is the count of codes below which a pack without a
	// lowStockAt is low on stock.
	LowStock = topupd.LowStock
)

// stockData is the stock page: each stock pack's count, and an upload's
// result.
type stockData struct {
	Packs  []stockPack
	Result *uploadResult
}

// stockPack is a pack that draws stock, and whether it is low on it.
type stockPack struct {
	service.PackView
	Low bool
}

// uploadResult sums an upload's chunks.
type uploadResult struct {
	PID                                 string
	Codes, Added, Duplicates, Available int
	BatchID                             int64
}

// stock shows the count of codes per stock pack and the upload form.
func (c *Console) stock(w http.ResponseWriter, r *http.Request, s *session) error {
	d, err := c.stockPage(r, s)
	if err != nil {
		return err
	}
	c.render(w, r, s, http.StatusOK, "stock", "Stock", d)
	return nil
}

// stockPage reads the packs that draw from stock.
func (c *Console) stockPage(r *http.Request, s *session) (stockData, error) {
	packs, err := c.stockPacks(r, s)
	return stockData{Packs: packs}, err
}

// stockPacks reads the packs that draw from stock, each marked low or not
// (topupd.LowOnStock: by its lowStockAt's alert, as the database keeps it,
// when it has one).
func (c *Console) stockPacks(r *http.Request, s *session) ([]stockPack, error) {
	packs, err := c.Service.StockPacks(r.Context(), s.actor)
	if err != nil {
		return nil, err
	}
	levels, err := c.Store.LowStock(r.Context())
	if err != nil {
		return nil, err
	}
	out := make([]stockPack, len(packs))
	for i, p := range packs {
		out[i] = stockPack{PackView: p, Low: topupd.LowOnStock(p.PID, p.Status, p.Available, levels)}
	}
	return out, nil
}

// lowStock reads the packs low on stock, for the dashboard.
func (c *Console) lowStock(r *http.Request, s *session) ([]service.PackView, error) {
	packs, err := c.stockPacks(r, s)
	var low []service.PackView
	for _, p := range packs {
		if p.Low {
			low = append(low, p.PackView)
		}
	}
	return low, err
}

// uploadOf reads an upload form's batch fields: a cost (optional) and a note.
func uploadOf(r *http.Request) (topupd.StockUpload, error) {
	u := topupd.StockUpload{Note: strings.TrimSpace(r.FormValue("note"))}
	if strings.TrimSpace(r.FormValue("costUsd")) != "" {
		cost, err := money(r, "costUsd", "Cost of one code")
		if err != nil {
			return u, err
		}
		u.Cost = &cost
	}
	return u, nil
}

// limitUpload bounds an upload's body before anything reads it (the
// CSRF check reads a multipart form whole): a declared size over
// MaxUploadBytes is refused at once, and any body is cut off there.
func (c *Console) limitUpload(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxUploadBytes {
			c.fail(w, r, nil, http.StatusRequestEntityTooLarge, "File: at most 64 MiB.")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxUploadBytes)
		h.ServeHTTP(w, r)
	})
}

// uploadStock adds the codes of an uploaded .csv or .txt file to a pack's
// stock (the form without script: the script sends chunks itself).
func (c *Console) uploadStock(w http.ResponseWriter, r *http.Request, s *session) error {
	file, _, err := r.FormFile("file")
	if err != nil {
		return pageError{http.StatusBadRequest, "File: choose a .csv or .txt file of codes, at most 64 MiB."}
	}
	defer file.Close()
	if r.MultipartForm != nil && !cleanValues(r.MultipartForm.Value) {
		return pageError{http.StatusBadRequest, badTextMsg}
	}
	codes, err := readCodeFile(file)
	if err != nil {
		return pageError{http.StatusBadRequest, "File: " + err.Error()}
	}
	u, err := uploadOf(r)
	if err != nil {
		return err
	}
	d, err := c.stockPage(r, s)
	if err != nil {
		return err
	}
	res := uploadResult{PID: r.FormValue("pid"), Codes: len(codes)}
	if len(codes) == 0 { // nothing to add: say so, beside the pack's real count
		for _, p := range d.Packs {
			if p.PID == res.PID {
				res.Available = p.Available
			}
		}
		d.Result = &res
		c.render(w, r, s, http.StatusBadRequest, "stock", "Stock", d)
		return nil
	}
	if res, err = c.addCodes(r, s, res.PID, codes, u); err != nil {
		return err // the upload is one transaction: nothing was added
	}
	if d, err = c.stockPage(r, s); err != nil {
		return err
	}
	d.Result = &res
	c.render(w, r, s, http.StatusOK, "stock", "Stock", d)
	return nil
}

// addCodes adds codes to a pack's stock in one service.UploadStock: one
// transaction, one batch (started with u's cost and note) and one entry in
// the action log. An error leaves nothing added.
func (c *Console) addCodes(r *http.Request, s *session, pid string, codes []string, u topupd.StockUpload) (uploadResult, error) {
	part, err := c.Service.UploadStock(r.Context(), s.actor, pid, codes, u)
	if err != nil {
		return uploadResult{PID: pid}, err
	}
	return uploadResult{PID: pid, Codes: len(codes), Added: part.Added, Duplicates: part.Duplicates, Available: part.Available, BatchID: part.BatchID}, nil
}

// readCodeFile reads codes from a file: one a line, the first column of a
// CSV; blank lines and a "code" header are skipped (a file of nothing else
// holds no codes).
func readCodeFile(f io.Reader) ([]string, error) {
	var codes []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<10)
	for line := 1; sc.Scan(); line++ {
		if !topupd.CleanText(sc.Text()) {
			return nil, fmt.Errorf("line %d holds a NUL byte or text that is not UTF-8", line)
		}
		if code := codeOf(sc.Text()); code != "" {
			codes = append(codes, code)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return codes, nil
}

// codeOf reads the code on one line of an upload, as both upload paths
// do: the first column of a CSV, without spaces, quotes or a UTF-8 byte
// order mark around it; "" for a blank line or a "code" header.
func codeOf(line string) string {
	code, _, _ := strings.Cut(strings.TrimPrefix(line, "\ufeff"), ",")
	code = strings.Trim(strings.TrimSpace(code), `"`)
	if strings.EqualFold(code, "code") {
		return ""
	}
	return code
}

// stockChunk adds the codes of a file the script sends, all in one
// request, answering JSON: the batch's cost and note (or a batchId to add
// to), and every line of the file.
func (c *Console) stockChunk(w http.ResponseWriter, r *http.Request, s *session) error {
	var in struct {
		PID     string   `json:"pid"`
		Codes   []string `json:"codes"`
		BatchID int64    `json:"batchId"`
		CostUSD string   `json:"costUsd"` // the form's text
		Note    string   `json:"note"`
	}
	answer := func(status int, v any) error {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		return json.NewEncoder(w).Encode(v)
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 2*MaxUploadBytes)).Decode(&in); err != nil {
		return answer(http.StatusBadRequest, map[string]string{"error": "the chunk is not JSON: " + err.Error()})
	}
	u := topupd.StockUpload{BatchID: in.BatchID, Note: strings.TrimSpace(in.Note)}
	if v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(in.CostUSD), "$")); v != "" {
		cost, err := topupd.ParseMoney(v)
		if err != nil {
			return answer(http.StatusBadRequest, map[string]string{"error": "Cost of one code: " + strconv.Quote(v) + " is not an amount in dollars and cents, such as 0.50."})
		}
		u.Cost = &cost
	}
	codes := in.Codes[:0] // the script sends lines: read them as the plain form does
	for _, line := range in.Codes {
		if code := codeOf(line); code != "" {
			codes = append(codes, code)
		}
	}
	err := chunkText(in.PID, u.Note, codes)
	var res topupd.StockResult
	if err == nil {
		res, err = c.Service.UploadStock(r.Context(), s.actor, in.PID, codes, u)
	}
	if err != nil {
		status, msg, ok := c.refusalOf(err)
		if !ok {
			c.Logger.ErrorContext(r.Context(), "console", "path", r.URL.Path, "err", err)
			status, msg = http.StatusInternalServerError, string(topupd.EInternal)+": "+topupd.EInternal.Message()
		}
		return answer(status, map[string]string{"error": msg})
	}
	return answer(http.StatusOK, chunkResult{Added: res.Added, Duplicates: res.Duplicates, Available: res.Available, BatchID: res.BatchID})
}

// chunkResult is what a chunk did, as the script reads it.
type chunkResult struct {
	Added      int   `json:"added"`
	Duplicates int   `json:"duplicates"`
	Available  int   `json:"available"`
	BatchID    int64 `json:"batchId"`
}

// chunkText refuses a chunk whose pack, note or codes hold a NUL byte,
// as the admin API refused them when chunks went through it (the JSON
// decoder has turned invalid UTF-8 into U+FFFD already).
func chunkText(pid, note string, codes []string) error {
	if !topupd.CleanText(pid) {
		return topupd.Errorf(topupd.EInvalidRequest, "a NUL byte or invalid UTF-8 in the path or the query")
	}
	clean := topupd.CleanText(note)
	for _, code := range codes {
		clean = clean && topupd.CleanText(code)
	}
	if !clean {
		return topupd.Errorf(topupd.EInvalidBody, "a \\u0000 escape (a NUL byte) is not text")
	}
	return nil
}

// refusalOf is the status and words of a refusal the service answered:
// a domain error's code and detail (or its code's message); ok is false
// for any other error.
func (c *Console) refusalOf(err error) (status int, msg string, ok bool) {
	var de *topupd.Error
	if !errors.As(err, &de) || de.Code == topupd.EInternal {
		return 0, "", false
	}
	msg = de.Detail
	if msg == "" {
		msg = de.Code.Message()
	}
	return c.StatusOf(err), string(de.Code) + ": " + msg, true
}
