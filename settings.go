package topupd

import "time"

// Settings are the operator's switches, shared by every node.
type Settings struct {
	Maintenance         bool
	OrdersDisabled      bool
	EligibilityMinTopup Money
	SimDelayMs          int
	SimCallMs           int
	// UpstreamBalancePollMinutes is how often each upstream's balance is
	// read, 0 to 1440 (0: never by the clock); default 5.
	UpstreamBalancePollMinutes int
	// ReconcileAt is when each upstream's previous UTC day is reconciled
	// by pull, "HH:MM" UTC; "" never (the API's null). Default "03:00".
	ReconcileAt string
	// DepositBank is where resellers transfer deposits to; nil refuses
	// new tickets (DEPOSITS_DISABLED).
	DepositBank *DepositBank
	// DepositTicketHours is how long a ticket stays pending, 1 to 720.
	DepositTicketHours int
	// DepositSecondApprovalAbove is the credit above which a deposit
	// needs a second operator's confirmation.
	DepositSecondApprovalAbove Money
	// HoldAbove is the rise of a pack's price, as a percentage of the old
	// price, above which a pricing rule's new price waits for an operator
	// (back-office.md 4 (c)); default 10.
	HoldAbove Percent
	// DisputeWindowDays is how many days after its completion an order
	// may be disputed; DisputeAnswerHours how long the operator has to
	// answer a dispute (back-office.md 5).
	DisputeWindowDays  int
	DisputeAnswerHours int
}

// SettingsPatch changes the named settings; nil fields stay as they are.
type SettingsPatch struct {
	Maintenance         *bool
	OrdersDisabled      *bool
	EligibilityMinTopup *Money
	SimDelayMs          *int
	SimCallMs           *int
	// UpstreamBalancePollMinutes: 0 to 1440.
	UpstreamBalancePollMinutes *int
	// ReconcileAt: "HH:MM" UTC, or "" for never.
	ReconcileAt *string
	// DepositBank: a bank (each field 1 to 200 characters), or nil to
	// stop new tickets.
	DepositBank **DepositBank
	// DepositTicketHours: 1 to 720.
	DepositTicketHours *int
	// DepositSecondApprovalAbove: 0 or more, in whole cents.
	DepositSecondApprovalAbove *Money
	// HoldAbove: 0 or more, a percentage.
	HoldAbove *Percent
	// DisputeWindowDays: 1 to 365; DisputeAnswerHours: 1 to 720.
	DisputeWindowDays  *int
	DisputeAnswerHours *int
}

// maxSimMs bounds the sim provider's delays to one day.
const maxSimMs = 86_400_000

// Apply returns s with the patch applied, after checking the patch.
func (p SettingsPatch) Apply(s Settings) (Settings, error) {
	if p.Maintenance != nil {
		s.Maintenance = *p.Maintenance
	}
	if p.OrdersDisabled != nil {
		s.OrdersDisabled = *p.OrdersDisabled
	}
	if p.EligibilityMinTopup != nil {
		if *p.EligibilityMinTopup < 0 {
			return s, Errorf(EInvalidBody, "eligibilityMinTopupUsd must not be negative")
		}
		s.EligibilityMinTopup = *p.EligibilityMinTopup
	}
	for _, f := range []struct {
		in   *int
		out  *int
		name string
	}{{p.SimDelayMs, &s.SimDelayMs, "simDelayMs"}, {p.SimCallMs, &s.SimCallMs, "simCallMs"}} {
		if f.in == nil {
			continue
		}
		if *f.in < 0 || *f.in > maxSimMs {
			return s, Errorf(EInvalidBody, "%s: 0 to %d", f.name, maxSimMs)
		}
		*f.out = *f.in
	}
	if p.ReconcileAt != nil {
		if _, ok := ReconcileClock(*p.ReconcileAt); !ok && *p.ReconcileAt != "" {
			return s, Errorf(EInvalidBody, "reconcileAt: \"HH:MM\" in UTC, or null")
		}
		s.ReconcileAt = *p.ReconcileAt
	}
	if p.DepositBank != nil {
		if b := *p.DepositBank; b != nil {
			if err := b.Check(); err != nil {
				return s, err
			}
			copied := *b
			s.DepositBank = &copied
		} else {
			s.DepositBank = nil
		}
	}
	if p.DepositTicketHours != nil {
		if h := *p.DepositTicketHours; h < 1 || h > MaxDepositTicketHours {
			return s, Errorf(EInvalidBody, "depositTicketHours: 1 to %d", MaxDepositTicketHours)
		}
		s.DepositTicketHours = *p.DepositTicketHours
	}
	if p.DepositSecondApprovalAbove != nil {
		if m := *p.DepositSecondApprovalAbove; m < 0 || m%cent != 0 {
			return s, Errorf(EInvalidBody, "depositSecondApprovalAboveUsd: 0 or more, at most 2 decimals")
		}
		s.DepositSecondApprovalAbove = *p.DepositSecondApprovalAbove
	}
	if p.DisputeWindowDays != nil {
		if d := *p.DisputeWindowDays; d < 1 || d > MaxDisputeWindowDays {
			return s, Errorf(EInvalidBody, "disputeWindowDays: 1 to %d", MaxDisputeWindowDays)
		}
		s.DisputeWindowDays = *p.DisputeWindowDays
	}
	if p.DisputeAnswerHours != nil {
		if h := *p.DisputeAnswerHours; h < 1 || h > MaxDisputeAnswerHours {
			return s, Errorf(EInvalidBody, "disputeAnswerHours: 1 to %d", MaxDisputeAnswerHours)
		}
		s.DisputeAnswerHours = *p.DisputeAnswerHours
	}
	if p.HoldAbove != nil {
		if *p.HoldAbove < 0 {
			return s, Errorf(EInvalidBody, "holdAbovePercent: 0 or more")
		}
		s.HoldAbove = *p.HoldAbove
	}
	if p.UpstreamBalancePollMinutes != nil {
		if m := *p.UpstreamBalancePollMinutes; m < 0 || m > 1440 {
			return s, Errorf(EInvalidBody, "upstreamBalancePollMinutes: 0 to 1440")
		}
		s.UpstreamBalancePollMinutes = *p.UpstreamBalancePollMinutes
	}
	return s, nil
}

// ReconcileClock reads a reconcileAt setting, "HH:MM" from 00:00 to 23:59,
// as the time of day it names.
func ReconcileClock(s string) (time.Duration, bool) {
	t, err := time.Parse("15:04", s)
	if err != nil || len(s) != 5 {
		return 0, false
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute, true
}
