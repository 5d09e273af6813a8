package console

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// supplierRow is one row of a pack's supplier form: N numbers its fields
// (provider.N, upstream.N, upstreamPid.N, cost.N, order.N).
type supplierRow struct {
	N                                            int
	Provider, Upstream, UpstreamPID, Cost, Order string
}

// spareSupplierRows is how many empty rows the form adds for new suppliers.
const spareSupplierRows = 2

// SupplierRows are the rows of the pack's supplier form: its suppliers in
// the order they are tried (its single provider when it lists none), then
// empty rows, topupd.MaxSuppliers in all at most.
func (d packData) SupplierRows() []supplierRow {
	var rows []supplierRow
	for i, s := range d.P.SupplierList() {
		rows = append(rows, supplierRow{N: i + 1, Provider: s.Provider, Upstream: s.Upstream, UpstreamPID: s.UpstreamPID,
			Cost: usdIfText(s.Cost), Order: strconv.Itoa(i + 1)})
	}
	for n, last := len(rows)+1, min(len(rows)+spareSupplierRows, topupd.MaxSuppliers); n <= last; n++ {
		rows = append(rows, supplierRow{N: n})
	}
	return rows
}

// Providers are the providers the supplier form offers.
func (d packData) Providers() []string { return supplierProviders }

// supplierProviders are the providers the form offers.
var supplierProviders = []string{topupd.ProviderStock, topupd.ProviderManual, topupd.ProviderUpstream, topupd.ProviderSim}

// savePackSuppliers replaces the suppliers a pack's orders go to, in the
// order the form numbers them (service.UpdatePack with the list, its first
// supplier as the pack's provider, as the admin API's PATCH does when a
// list comes alone). A refused row shows the form again with what was
// typed and the refusal in plain words.
func (c *Console) savePackSuppliers(w http.ResponseWriter, r *http.Request, s *session) error {
	pid := r.PathValue("pid")
	err := c.savePackSuppliersForm(w, r, s, pid)
	return c.formFailed(w, r, s, err, "pack", func() (string, any, error) {
		d, err := c.packPage(r, s, pid)
		return "Pack " + pid, d, err
	})
}

// savePackSuppliersForm is savePackSuppliers' work; refusals are fieldErrors.
func (c *Console) savePackSuppliersForm(w http.ResponseWriter, r *http.Request, s *session, pid string) error {
	was, err := c.findPack(r, s, pid)
	if err != nil {
		return err
	}
	list, err := suppliersOf(r)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return fieldError{"suppliers", "Choose at least one supplier: a pack's orders must go somewhere."}
	}
	var patch service.PackPatch
	single := len(list) == 1 && list[0].Cost == 0
	switch {
	case single && len(was.Suppliers) == 0 && list[0] == was.SupplierList()[0]:
		return c.done(w, r, "/console/catalog/packs/"+url.PathEscape(pid), "Pack "+pid+": nothing changed.")
	case single:
		var none []topupd.Supplier // one supplier without a cost of its own: the pack's provider alone
		patch.Suppliers = &none
	case slices.Equal(list, was.Suppliers):
		return c.done(w, r, "/console/catalog/packs/"+url.PathEscape(pid), "Pack "+pid+": nothing changed.")
	default:
		patch.Suppliers = &list
	}
	first := list[0]
	patch.Provider, patch.Upstream, patch.UpstreamPID = &first.Provider, &first.Upstream, &first.UpstreamPID
	patch.AllowBelowCost = r.PostFormValue("suppliersBelowCost") == "yes"
	_, err = c.Service.UpdatePack(r.Context(), s.actor, pid, patch)
	if err != nil {
		return supplierRefusal(err, list, was.Price)
	}
	names := make([]string, len(list))
	for i, s := range list {
		names[i] = supplierName(s)
	}
	return c.done(w, r, "/console/catalog/packs/"+url.PathEscape(pid), "Pack "+pid+" goes to "+strings.Join(names, ", then ")+".")
}

// suppliersOf reads the form's rows into a supplier list, ordered by each
// row's Order (rows without one keep their place); empty rows are left out.
func suppliersOf(r *http.Request) ([]topupd.Supplier, error) {
	type row struct {
		order int
		s     topupd.Supplier
	}
	var rows []row
	seen := map[topupd.Supplier]int{}
	for n := 1; n <= topupd.MaxSuppliers; n++ {
		f := func(name string) string { return strings.TrimSpace(r.PostFormValue(name + "." + strconv.Itoa(n))) }
		sup := topupd.Supplier{Provider: f("provider"), Upstream: f("upstream"), UpstreamPID: f("upstreamPid")}
		at := "Row " + strconv.Itoa(n) + ": "
		if sup.Provider == "" {
			if sup.Upstream != "" || sup.UpstreamPID != "" || f("cost") != "" {
				return nil, fieldError{"suppliers", at + "choose a provider, or empty the row to drop it."}
			}
			continue
		}
		if !slices.Contains(supplierProviders, sup.Provider) {
			return nil, fieldError{"suppliers", at + "the provider is stock, manual, upstream or sim."}
		}
		if sup.Provider == topupd.ProviderUpstream && (sup.Upstream == "" || sup.UpstreamPID == "") {
			return nil, fieldError{"suppliers", at + "an upstream supplier needs the upstream's name and its pack id there."}
		}
		if sup.Provider != topupd.ProviderUpstream && (sup.Upstream != "" || sup.UpstreamPID != "") {
			return nil, fieldError{"suppliers", at + "only an upstream supplier has an upstream and a pack id there: empty them, or choose upstream."}
		}
		if v := f("cost"); v != "" {
			cost, problem := parseAmount(v, pricePlaces)
			if problem == "" && cost < 0 {
				problem = "A cost cannot be negative."
			}
			if problem != "" {
				return nil, fieldError{"suppliers", at + problem + " Leave it empty for the pack's cost."}
			}
			sup.Cost = cost
		}
		key := topupd.Supplier{Provider: sup.Provider, Upstream: sup.Upstream, UpstreamPID: sup.UpstreamPID}
		if m, ok := seen[key]; ok {
			return nil, fieldError{"suppliers", at + "the same supplier as row " + strconv.Itoa(m) + ": list each once."}
		}
		seen[key] = n
		order := n
		if v := f("order"); v != "" {
			o, err := strconv.Atoi(v)
			if err != nil || o < 1 || o > topupd.MaxSuppliers {
				return nil, fieldError{"suppliers", at + "“" + v + "” is not a place in the order: type a whole number from 1 to " + strconv.Itoa(topupd.MaxSuppliers) + "."}
			}
			order = o
		}
		rows = append(rows, row{order, sup})
	}
	slices.SortStableFunc(rows, func(a, b row) int { return a.order - b.order })
	list := make([]topupd.Supplier, len(rows))
	for i, r := range rows {
		list[i] = r.s
	}
	return list, nil
}

// supplierName is a supplier in words: "manual", "upstream up (pack p)".
func supplierName(s topupd.Supplier) string {
	if s.Provider == topupd.ProviderUpstream {
		return "upstream " + s.Upstream + " (pack " + s.UpstreamPID + ")"
	}
	return s.Provider
}

// supplierRefusal says in plain words why the service refused a supplier
// list; an error that is no refusal is returned as it is.
func supplierRefusal(err error, list []topupd.Supplier, price topupd.Money) error {
	var de *topupd.Error
	if !errors.As(err, &de) || de.Code == topupd.EInternal {
		return err
	}
	switch de.Code {
	case topupd.EBelowCost:
		var dear topupd.Supplier
		for _, s := range list {
			if s.Cost > dear.Cost {
				dear = s
			}
		}
		return fieldError{"suppliers", "The supplier " + supplierName(dear) + " costs " + usdText(dear.Cost) + ", more than the pack's price " + usdText(price) +
			": every sale through it would lose money. Lower the cost, raise the price, or tick “Allow the price below a supplier's cost”."}
	case topupd.ESimDisabled:
		return fieldError{"suppliers", "The sim supplier is off on this server: choose another provider."}
	}
	for _, s := range list {
		if s.Provider == topupd.ProviderUpstream && strings.Contains(de.Detail, "upstream \""+s.Upstream+"\" is not configured") {
			return fieldError{"suppliers", "There is no upstream named " + s.Upstream + ": add it on the Suppliers page first."}
		}
	}
	if strings.HasPrefix(de.Detail, "provider stock:") {
		return fieldError{"suppliers", "The stock provider is for packs that draw from stock; this pack does not."}
	}
	if strings.HasPrefix(de.Detail, "provider manual:") {
		return fieldError{"suppliers", "This pack draws from stock: its orders are filled from its codes (stock) or by an upstream, not by hand (manual)."}
	}
	return fieldError{"suppliers", "The suppliers were refused: " + sentence(de.Detail)}
}
