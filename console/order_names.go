package console

import (
	"context"

	"github.com/topupd/topupd/service"
)

// nameAccounts fills the page's account names, which the order table and
// the CSV show beside each account id.
func (c *Console) nameAccounts(ctx context.Context, s *session, page *service.OrderPage) error {
	names, err := c.Service.AccountNames(ctx, s.actor, service.OrderAccounts(page.Orders))
	page.Names = names
	return err
}
