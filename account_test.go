package topupd

import (
	"net/netip"
	"testing"
	"time"
)

// TestAdmitOrder sets every flag that refuses a call, then lifts them one by
// one in the contract's order; each time the next flag must be the answer.
func TestAdmitOrder(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	later := now.Add(time.Hour)
	a := Account{Banned: true, AdminDisabled: true, APIEnabled: false, RestrictedUntil: &later, IPAllowlistRequired: true}
	in := Admission{Now: now, ClientIP: netip.MustParseAddr("198.51.100.7"), Eligible: false}
	steps := []struct {
		want ErrorCode
		lift func()
	}{
		{EBanned, func() { a.Banned = false }},
		{EAPIDisabledByAdmin, func() { a.AdminDisabled = false }},
		{EAPIDisabled, func() { a.APIEnabled = true }},
		{ERestricted, func() { a.RestrictedUntil = &now }}, // restricted until now: no longer in the future
		{ENotEligible, func() { in.Eligible = true }},
		{EAllowlistRequired, func() { a.IPAllowlist = []string{"203.0.113.0/24"} }},
		{EIPNotAllowed, func() { a.IPAllowlist = append(a.IPAllowlist, "198.51.100.7") }},
	}
	for _, s := range steps {
		if got := CodeOf(a.Admit(in)); got != s.want {
			t.Fatalf("Admit = %v, want %v", got, s.want)
		}
		s.lift()
	}
	if err := a.Admit(in); err != nil {
		t.Fatalf("all flags lifted: %v", err)
	}
}

func TestAdmitAllowlist(t *testing.T) {
	a := Account{APIEnabled: true, IPAllowlist: []string{"10.1.0.0/16", "192.0.2.5"}}
	for _, tt := range []struct {
		ip   string
		want error
	}{
		{"10.1.200.3", nil},
		{"192.0.2.5", nil},
		{"::ffff:192.0.2.5", nil},
		{"192.0.2.6", Fail(EIPNotAllowed)},
		{"2001:db8::1", Fail(EIPNotAllowed)},
	} {
		err := a.Admit(Admission{Now: time.Now(), ClientIP: netip.MustParseAddr(tt.ip), Eligible: true})
		if CodeOf(err) != CodeOf(tt.want) && !(err == nil && tt.want == nil) {
			t.Errorf("%s: %v, want %v", tt.ip, err, tt.want)
		}
	}
	if _, err := ParseAllowlist([]string{"2001:db8::/32"}); CodeOf(err) != EInvalidBody {
		t.Errorf("an IPv6 entry was accepted: %v", err)
	}
}

func TestPrepare(t *testing.T) {
	ff := Line{Slug: "ffmena", Game: "freefire", Kind: KindTopup, Status: StatusActive,
		Required: []RequiredField{{Field: FieldUserID, Pattern: `[0-9]{5,20}`}}}
	oh := Line{Slug: "oncehuman", Game: "oncehuman", Kind: KindTopup, Status: StatusActive,
		Required:      []RequiredField{{Field: FieldUserID}, {Field: FieldRegion}, {Field: FieldMoreID}},
		RegionOptions: []Option{{Value: "eu", Label: "Europe"}, {Value: "na", Label: "NA"}}}
	keys := Line{Slug: "gamekeypubg", Game: "gamekey", Kind: KindGamekey, Status: StatusActive}
	cards := Line{Slug: "giftcard", Game: "giftcard", Kind: KindGiftcard, Status: StatusActive,
		Required: []RequiredField{{Field: FieldQuantity, Label: "Quantity", Pattern: `[1-9][0-9]*`}}}
	if err := cards.Validate(); err == nil {
		t.Errorf("a line without names validated")
	}
	cards.ProductName, cards.GameName = "Cards", "Cards"
	if err := cards.Validate(); err != nil {
		t.Errorf("a line requiring quantity: %v", err)
	}
	pack := Pack{PID: "p", Price: 19900, Status: StatusActive, Provider: ProviderSim}
	tests := []struct {
		name string
		line Line
		req  OrderRequest
		want ErrorCode
		amt  Money
	}{
		{"ok", ff, OrderRequest{Fields: AccountFields{UserID: "123456"}}, "", 19900},
		{"pattern", ff, OrderRequest{Fields: AccountFields{UserID: "12ab56"}}, EInvalidRequest, 0},
		{"missing", ff, OrderRequest{}, EInvalidRequest, 0},
		{"quantity on top-up", ff, OrderRequest{Quantity: 2, Fields: AccountFields{UserID: "123456"}}, EQuantityOnlyStock, 0},
		{"keys ×3", keys, OrderRequest{Quantity: 3}, "", 59700},
		{"keys ×501", keys, OrderRequest{Quantity: 501}, EQuantityExceedsMax, 0},
		{"keys without quantity", keys, OrderRequest{}, "", 19900},
		{"cards ×2, quantity required", cards, OrderRequest{Quantity: 2}, "", 39800},
		{"cards without the required quantity", cards, OrderRequest{}, EInvalidRequest, 0},
		{"region via serverId", oh, OrderRequest{Fields: AccountFields{UserID: "u", ServerID: "EU", MoreID: "s1"}}, "", 19900},
		{"region not an option", oh, OrderRequest{Fields: AccountFields{UserID: "u", Region: "mars", MoreID: "s1"}}, EInvalidRequest, 0},
	}
	for _, tt := range tests {
		d, err := Prepare(&tt.req, &tt.line, &pack)
		if got := codeOrEmpty(err); got != tt.want || d.Amount != tt.amt {
			t.Errorf("%s: %v %v, want %q %v", tt.name, d.Amount, err, tt.want, tt.amt)
		}
	}
	d, _ := Prepare(&OrderRequest{Fields: AccountFields{UserID: "u", ServerID: "EU", MoreID: "s1"}}, &oh, &pack)
	if d.Fields.Region != "eu" || d.Fields.ServerID != "eu" {
		t.Errorf("Once Human region: %+v", d.Fields)
	}
	disabled := ff
	disabled.Status = StatusDisabled
	if _, err := Prepare(&OrderRequest{Fields: AccountFields{UserID: "123456"}}, &disabled, &pack); CodeOf(err) != EGameDisabled {
		t.Errorf("disabled line: %v", err)
	}
}

func codeOrEmpty(err error) ErrorCode {
	if err == nil {
		return ""
	}
	return CodeOf(err)
}

// TestFingerprint: every field of the purchase changes the fingerprint; the
// names of the request (trxid, idempotency key) do not; a missing quantity
// equals quantity 1.
func TestFingerprint(t *testing.T) {
	base := OrderRequest{PID: "p", TrxID: "t", Fields: AccountFields{UserID: "u"}}
	seen := map[string]string{base.Fingerprint(): "base"}
	for name, r := range map[string]OrderRequest{
		"pid": {PID: "q", TrxID: "t", Fields: AccountFields{UserID: "u"}},
		"qty": {PID: "p", TrxID: "t", Quantity: 2, Fields: AccountFields{UserID: "u"}},
		"uid": {PID: "p", TrxID: "t", Fields: AccountFields{UserID: "v"}},
		"zid": {PID: "p", TrxID: "t", Fields: AccountFields{UserID: "u", ZoneID: "1"}},
		"sid": {PID: "p", TrxID: "t", Fields: AccountFields{UserID: "u", ServerID: "1"}},
		"reg": {PID: "p", TrxID: "t", Fields: AccountFields{UserID: "u", Region: "1"}},
		"mid": {PID: "p", TrxID: "t", Fields: AccountFields{UserID: "u", MoreID: "1"}},
		"cat": {PID: "p", TrxID: "t", Fields: AccountFields{UserID: "", ZoneID: "u"}},
	} {
		fp := r.Fingerprint()
		if other, dup := seen[fp]; dup {
			t.Errorf("%s and %s share a fingerprint", name, other)
		}
		seen[fp] = name
	}
	one := base
	one.Quantity = 1
	if one.Fingerprint() != base.Fingerprint() {
		t.Error("quantity 1 and no quantity differ")
	}
	named := base
	named.TrxID, named.IdempotencyKey = "T", "k"
	if named.Fingerprint() != base.Fingerprint() {
		t.Error("another trxid or key changed the fingerprint")
	}
	// An order fingerprinted before v2 (trxid and key included) is still
	// recognised by its own request, and only by it.
	legacy := Order{Fingerprint: base.legacyFingerprint()}
	if !base.Repeats(&legacy) || named.Repeats(&legacy) {
		t.Errorf("legacy fingerprint: repeats by itself %v, by another trxid %v; want true, false", base.Repeats(&legacy), named.Repeats(&legacy))
	}
}

func TestVault(t *testing.T) {
	v, err := NewVault(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	sealed := v.Seal("pack-a", "CODE-1")
	if got, err := v.Open("pack-a", sealed); err != nil || got != "CODE-1" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if _, err := v.Open("pack-b", sealed); err != ErrSealBroken {
		t.Errorf("a code moved to another pack opened: %v", err)
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := v.Open("pack-a", sealed); err != ErrSealBroken {
		t.Errorf("a tampered code opened: %v", err)
	}
	if string(v.Fingerprint("a", "x")) == string(v.Fingerprint("b", "x")) {
		t.Error("fingerprints ignore the context")
	}
}
