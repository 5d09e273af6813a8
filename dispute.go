package topupd

import (
	"context"
	"slices"
	"time"
	"unicode/utf8"
)

// Disputes (back-office.md, section 5): a reseller says a completed
// order's goods do not work; the operator resolves it by a replacement,
// a refund, a partial refund or a rejection.

// A dispute's statuses.
const (
	DisputeOpen     = "open"
	DisputeResolved = "resolved"
)

// DisputeReasons are the reasons a reseller may give.
var DisputeReasons = []string{"code_invalid", "code_used", "wrong_region", "not_credited", "duplicate_charge", "other"}

// The outcomes of a resolution.
const (
	OutcomeReplace       = "replace"
	OutcomeRefund        = "refund"
	OutcomePartialRefund = "partial_refund"
	OutcomeReject        = "reject"
)

// Dispute settings' bounds and defaults.
const (
	// DefaultDisputeWindowDays is how many days after its completion an
	// order may be disputed, by default; 1 to MaxDisputeWindowDays.
	DefaultDisputeWindowDays = 7
	MaxDisputeWindowDays     = 365
	// DefaultDisputeAnswerHours is how long the operator has to answer,
	// by default (dueAt − createdAt); 1 to MaxDisputeAnswerHours.
	DefaultDisputeAnswerHours = 48
	MaxDisputeAnswerHours     = 720
	// MaxDisputeDetail and MaxDisputeNote bound the reseller's detail and
	// the operator's note, in characters.
	MaxDisputeDetail = 1000
	MaxDisputeNote   = 1000
	// MaxClaimReference bounds a supplier claim's reference.
	MaxClaimReference = 200
)

// SupplierClaim is the operator's claim against the supplier of a
// disputed order.
type SupplierClaim struct {
	Reference string `json:"reference"`
	State     string `json:"state"`
}

// The states of a supplier claim.
var claimStates = []string{"open", "won", "lost"}

// Check refuses a claim with a bad reference or state (INVALID_BODY).
func (c *SupplierClaim) Check() error {
	if n := utf8.RuneCountInString(c.Reference); n == 0 || n > MaxClaimReference || !CleanText(c.Reference) {
		return Errorf(EInvalidBody, "supplierClaim.reference: 1 to %d characters", MaxClaimReference)
	}
	if !slices.Contains(claimStates, c.State) {
		return Errorf(EInvalidBody, "supplierClaim.state: open, won or lost")
	}
	return nil
}

// Dispute is a reseller's dispute of a completed order.
type Dispute struct {
	Seq       int64
	ID        string
	AccountID string // the books: a sandbox's id for a sandbox order
	OrderID   string
	OrderSeq  int64
	Status    string
	Reason    string
	// Codes are the disputed codes: some of the order's, or all of them
	// (none for a top-up).
	Codes     []string
	Detail    string
	CreatedAt time.Time
	DueAt     time.Time
	Sandbox   bool
	// Outcome, Amount (what it refunded), Note, ReplacementOrderID,
	// ResolvedAt and ResolvedBy are set once it is resolved.
	Outcome            string
	Amount             *Money
	Note               string
	ReplacementOrderID string
	ResolvedAt         *time.Time
	ResolvedBy         string
	SupplierClaim      *SupplierClaim
}

// Overdue reports whether the dispute is open past its dueAt at now.
func (d *Dispute) Overdue(now time.Time) bool {
	return d.Status == DisputeOpen && now.After(d.DueAt)
}

// ClaimWindow is the claim ratio's span: the last 30 days.
const ClaimWindow = 30 * 24 * time.Hour

// Ratio is a ratio in ten-thousandths (0.1234 is 1234), written exactly
// in JSON like Money.
type Ratio int64

// MarshalJSON writes the ratio as an exact JSON number.
func (r Ratio) MarshalJSON() ([]byte, error) { return Money(r).MarshalJSON() }

// ClaimRatio is disputes ÷ completed to 4 decimals, rounded half up; nil
// when none completed.
func ClaimRatio(disputes, completed int) *Ratio {
	if completed <= 0 {
		return nil
	}
	r := Ratio((int64(disputes)*MoneyScale*2 + int64(completed)) / (int64(completed) * 2))
	return &r
}

// DisputeRequest is what a reseller sends to dispute an order.
type DisputeRequest struct {
	Reason string
	// Codes, when set, name some of the order's codes; nil disputes the
	// whole order.
	Codes  []string
	Detail string
}

// CheckDispute refuses a dispute of o at now, with a window of
// windowDays after its completion: INVALID_BODY (a bad reason or detail;
// a code not the order's, named twice, or for an order without codes),
// ORDER_NOT_COMPLETED, DISPUTE_WINDOW_CLOSED. It returns the codes
// disputed: those named, or all the order's.
func CheckDispute(o *Order, r *DisputeRequest, now time.Time, windowDays int) ([]string, error) {
	if !slices.Contains(DisputeReasons, r.Reason) {
		return nil, Errorf(EInvalidBody, "reason: one of code_invalid, code_used, wrong_region, not_credited, duplicate_charge, other")
	}
	if utf8.RuneCountInString(r.Detail) > MaxDisputeDetail || !CleanText(r.Detail) {
		return nil, Errorf(EInvalidBody, "detail: at most %d characters", MaxDisputeDetail)
	}
	if r.Codes != nil {
		if len(o.Codes) == 0 {
			return nil, Errorf(EInvalidBody, "codes: the order delivered no codes")
		}
		if len(r.Codes) == 0 {
			return nil, Errorf(EInvalidBody, "codes: name at least one, or leave it out to dispute the whole order")
		}
		seen := map[string]bool{}
		for _, c := range r.Codes {
			if seen[c] {
				return nil, Errorf(EInvalidBody, "codes: %q is named twice", c)
			}
			seen[c] = true
			if !slices.Contains(o.Codes, c) {
				return nil, Errorf(EInvalidBody, "codes: a code the order did not deliver")
			}
		}
	}
	if o.Status != StatusCompleted {
		return nil, Errorf(EOrderNotCompleted, "the order is %s", o.Status)
	}
	if now.Sub(o.FinishedAt) > time.Duration(windowDays)*24*time.Hour {
		return nil, Errorf(EDisputeWindowClosed, "the order completed more than %d days ago", windowDays)
	}
	if r.Codes != nil {
		return slices.Clone(r.Codes), nil
	}
	return slices.Clone(o.Codes), nil
}

// DisputeView is a dispute as the reseller sees it, and the payload of
// its dispute.* events.
type DisputeView struct {
	DisputeID          string     `json:"disputeId"`
	OrderID            string     `json:"orderId"`
	Status             string     `json:"status"`
	Reason             string     `json:"reason"`
	Codes              []string   `json:"codes"`
	Detail             string     `json:"detail,omitempty"`
	CreatedAt          time.Time  `json:"createdAt"`
	DueAt              time.Time  `json:"dueAt"`
	Outcome            string     `json:"outcome,omitempty"`
	AmountUSD          *Money     `json:"amountUsd,omitempty"`
	Note               string     `json:"note,omitempty"`
	ReplacementOrderID string     `json:"replacementOrderId,omitempty"`
	ResolvedAt         *time.Time `json:"resolvedAt,omitempty"`
	Sandbox            bool       `json:"sandbox,omitempty"`
}

// View is the dispute as the reseller sees it.
func (d *Dispute) View() DisputeView {
	codes := d.Codes
	if codes == nil {
		codes = []string{}
	}
	v := DisputeView{DisputeID: d.ID, OrderID: d.OrderID, Status: d.Status, Reason: d.Reason, Codes: codes, Detail: d.Detail,
		CreatedAt: d.CreatedAt.UTC(), DueAt: d.DueAt.UTC(), Outcome: d.Outcome, AmountUSD: d.Amount, Note: d.Note,
		ReplacementOrderID: d.ReplacementOrderID, Sandbox: d.Sandbox}
	if d.ResolvedAt != nil {
		at := d.ResolvedAt.UTC()
		v.ResolvedAt = &at
	}
	return v
}

// DisputeData is a dispute.* event's payload: the dispute as the
// reseller sees it.
type DisputeData struct {
	// Type is the event's type (EventDisputeOpened or
	// EventDisputeResolved).
	Type EventType `json:"-"`
	DisputeView
}

// EventType is the dispute event's type.
func (d *DisputeData) EventType() EventType { return d.Type }

// DisputesQuery selects a page of disputes, newest first.
type DisputesQuery struct {
	// AccountID, when set, keeps that books' disputes (a sandbox's id:
	// its sandbox's); Status, when set, that status's.
	AccountID, Status string
	// Sandbox keeps sandboxes' disputes instead of live ones (the admin
	// list); ignored with AccountID.
	Sandbox bool
	// Overdue keeps the open ones past their dueAt at Now.
	Overdue bool
	Now     time.Time
	// Before, when set, starts after the dispute of this seq; Offset
	// skips that many (a reseller's paged mode).
	Before int64
	Offset int
	Limit  int
}

// DisputeStore keeps disputes.
type DisputeStore interface {
	// OpenDispute opens a dispute of an order of the books accountID
	// (ORDER_NOT_FOUND for another's), checked by CheckDispute under the
	// order's lock with the settings' window; at most one open an order
	// (DISPUTE_OPEN); with its dispute.opened event.
	// ch, when set, is the action log's entry of the opening (a chat's).
	OpenDispute(ctx context.Context, ch *Change, accountID, orderID string, r DisputeRequest, now time.Time) (Dispute, error)
	// Dispute returns a dispute; with accountID set, only that books'
	// (NOT_FOUND otherwise).
	Dispute(ctx context.Context, accountID, id string) (Dispute, error)
	// Disputes returns a page of disputes, newest first, and, with
	// AccountID set, how many that books have.
	Disputes(ctx context.Context, q DisputesQuery) ([]Dispute, int, error)
	// SetSupplierClaim sets or (nil) clears a dispute's supplier claim.
	SetSupplierClaim(ctx context.Context, ch *Change, id string, claim *SupplierClaim) (Dispute, error)
	// OpenDisputes counts the live open disputes, overdue at now or not.
	OpenDisputes(ctx context.Context, now time.Time) (overdue, onTime int, err error)
	// ClaimCounts counts a live account's disputes opened since, and its
	// orders completed since (the claim ratio's parts).
	ClaimCounts(ctx context.Context, accountID string, since time.Time) (disputes, completed int, err error)
	// RecordCodeSearch writes a search of orders by code in the action
	// log (ch's target the order found, or empty), never the code.
	RecordCodeSearch(ctx context.Context, ch *Change, found bool) error
}
