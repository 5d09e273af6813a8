package topupd_test

import (
	"strings"
	"testing"

	"github.com/topupd/topupd"
)

// TestDepositAmount: a ticket's amount is its request plus 1 to 99 cents,
// never one taken; with all 99 taken, DEPOSIT_AMOUNT_TAKEN.
func TestDepositAmount(t *testing.T) {
	req := topupd.USD(50)
	taken := map[topupd.Money]bool{}
	for range 99 {
		a, err := topupd.DepositAmount(req, taken)
		if err != nil || a <= req || a >= req+topupd.USD(1) || (a-req)%(topupd.MoneyScale/100) != 0 || taken[a] {
			t.Fatalf("amount %s (%v) with %d taken", a, err, len(taken))
		}
		taken[a] = true
	}
	if _, err := topupd.DepositAmount(req, taken); topupd.CodeOf(err) != topupd.EDepositAmountTaken {
		t.Errorf("with every cent taken: %v", err)
	}
}

// TestDepositChecks: amounts, memos and banks as the spec bounds them.
func TestDepositChecks(t *testing.T) {
	for s, ok := range map[string]bool{"1": true, "100000": true, "50.25": true, "0.99": false, "100000.01": false, "10.125": false} {
		m, _ := topupd.ParseMoney(s)
		if err := topupd.CheckDepositAmount(m); (err == nil) != ok {
			t.Errorf("amount %s: %v, want ok %v", s, err, ok)
		}
	}
	for range 100 {
		m := topupd.NewDepositMemo()
		if len(m) != 10 || !strings.HasPrefix(m, "TPD-") || strings.ContainsAny(m[4:], "01IO") {
			t.Fatalf("memo %q", m)
		}
	}
	long := strings.Repeat("b", topupd.MaxBankField+1)
	for _, c := range []struct {
		b  topupd.DepositBank
		ok bool
	}{
		{topupd.DepositBank{BankName: "BCA", AccountNumber: "1", AccountHolder: "PT"}, true},
		{topupd.DepositBank{BankName: "", AccountNumber: "1", AccountHolder: "PT"}, false},
		{topupd.DepositBank{BankName: "BCA", AccountNumber: long, AccountHolder: "PT"}, false},
	} {
		if err := c.b.Check(); (err == nil) != c.ok {
			t.Errorf("bank %+v: %v, want ok %v", c.b, err, c.ok)
		}
	}
}

// TestConfirmDeposit: the state machine of confirmations and rejections.
func TestConfirmDeposit(t *testing.T) {
	above := topupd.USD(1000)
	small, big := topupd.USD(50)+100, topupd.USD(1500)+100
	less := topupd.USD(49)
	first := topupd.DepositConfirmation{Operator: "ann", BankRef: "BR-1"}
	fewer := topupd.USD(1200)
	firstFewer := topupd.DepositConfirmation{Operator: "ann", BankRef: "BR-1", Received: &fewer}
	for _, c := range []struct {
		name   string
		status string
		amount topupd.Money
		first  *topupd.DepositConfirmation
		c      topupd.DepositConfirmation
		want   topupd.DepositStep
		code   topupd.ErrorCode
	}{
		{"a small ticket", topupd.DepositPending, small, nil, first, topupd.DepositStep{Status: topupd.DepositConfirmed, Credit: small}, ""},
		{"less received", topupd.DepositPending, small, nil, topupd.DepositConfirmation{Operator: "ann", BankRef: "x", Received: &less},
			topupd.DepositStep{Status: topupd.DepositConfirmed, Credit: less}, ""},
		{"a big ticket", topupd.DepositPending, big, nil, first, topupd.DepositStep{Status: topupd.DepositAwaitingSecond}, ""},
		{"big, but less received", topupd.DepositPending, big, nil, topupd.DepositConfirmation{Operator: "ann", BankRef: "x", Received: &less},
			topupd.DepositStep{Status: topupd.DepositConfirmed, Credit: less}, ""},
		{"the second", topupd.DepositAwaitingSecond, big, &first, topupd.DepositConfirmation{Operator: "bob", BankRef: "BR-1"},
			topupd.DepositStep{Status: topupd.DepositConfirmed, Credit: big}, ""},
		{"the second of what the first received", topupd.DepositAwaitingSecond, big, &firstFewer,
			topupd.DepositConfirmation{Operator: "bob", BankRef: "BR-1", Received: &fewer}, topupd.DepositStep{Status: topupd.DepositConfirmed, Credit: fewer}, ""},
		{"the first again", topupd.DepositAwaitingSecond, big, &first, first, topupd.DepositStep{}, topupd.ESecondApprovalRequired},
		{"another bank ref", topupd.DepositAwaitingSecond, big, &first, topupd.DepositConfirmation{Operator: "bob", BankRef: "BR-2"},
			topupd.DepositStep{}, topupd.EConfirmationMismatch},
		{"another amount", topupd.DepositAwaitingSecond, big, &firstFewer, topupd.DepositConfirmation{Operator: "bob", BankRef: "BR-1", Received: &big},
			topupd.DepositStep{}, topupd.EConfirmationMismatch},
		{"confirmed", topupd.DepositConfirmed, small, nil, first, topupd.DepositStep{}, topupd.EDepositFinal},
		{"expired", topupd.DepositExpired, small, nil, first, topupd.DepositStep{}, topupd.EDepositFinal},
	} {
		got, err := topupd.ConfirmDeposit(c.status, c.amount, c.first, c.c, above)
		if c.code != "" {
			if topupd.CodeOf(err) != c.code {
				t.Errorf("%s: %v, want %s", c.name, err, c.code)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.name, got, err, c.want)
		}
	}
	for _, c := range []struct {
		status, reason string
		code           topupd.ErrorCode
	}{
		{topupd.DepositPending, "no transfer came", ""},
		{topupd.DepositAwaitingSecond, "wrong account", ""},
		{topupd.DepositPending, "", topupd.EInvalidBody},
		{topupd.DepositPending, strings.Repeat("r", 501), topupd.EInvalidBody},
		{topupd.DepositConfirmed, "too late", topupd.EDepositFinal},
		{topupd.DepositRejected, "again", topupd.EDepositFinal},
	} {
		if err := topupd.RejectDeposit(c.status, c.reason); (c.code == "" && err != nil) || (c.code != "" && topupd.CodeOf(err) != c.code) {
			t.Errorf("reject %s (%d characters): %v, want %q", c.status, len(c.reason), err, c.code)
		}
	}
	bad := topupd.DepositConfirmation{Operator: "ann", BankRef: ""}
	if err := bad.Check(); topupd.CodeOf(err) != topupd.EInvalidBody {
		t.Errorf("an empty bank ref: %v", err)
	}
	zero := topupd.Money(0)
	if err := (&topupd.DepositConfirmation{BankRef: "x", Received: &zero}).Check(); topupd.CodeOf(err) != topupd.EInvalidBody {
		t.Errorf("nothing received: %v", err)
	}
}
