package console

import (
	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// orderPage is what the order page shows of o: its history as an
// operator reads it (the first supplier call's outcome, which the store
// records as a "retry", is the "submit"), and, once completed, its cost
// and margin when its cost is known ("no cost" and no margin otherwise).
func orderPage(o service.OrderDetail) orderData {
	d := orderData{O: o}
	d.O.History = append([]topupd.OrderEvent(nil), o.History...)
	for i, e := range d.O.History {
		if e.Kind == topupd.EventRetry {
			d.O.History[i].Kind = "submit"
			break
		}
	}
	if m, ok := o.Margin(); ok {
		d.Margin = &m
	}
	return d
}
