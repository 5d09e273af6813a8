package service_test

import (
	"context"
	"strings"
	"testing"

	"github.com/topupd/topupd"
	"github.com/topupd/topupd/service"
)

// TestWebhookOps: the webhook operations are refused to a role without
// the accounts permission and change nothing; a reseller's chat manages
// its own account's endpoints, and another's are NOT_FOUND or
// ROLE_FORBIDDEN to it; bad input is INVALID_BODY or
// WEBHOOK_URL_FORBIDDEN; each change is in the action log with the
// endpoint as its target, and the secret shown only when it is made.
func TestWebhookOps(t *testing.T) {
	t.Parallel()
	f := newAccountsFixture(t)
	ctx := context.Background()
	owner := as("ana", topupd.RoleOwner)
	theirs, err := f.svc.CreateWebhook(ctx, owner, f.other, service.WebhookInput{URL: "https://203.0.113.9/h"})
	if err != nil || theirs.Secret == "" {
		t.Fatalf("made: %+v, %v", theirs, err)
	}
	before := len(f.actions())
	viewer := as("val", topupd.RoleViewer)
	for what, call := range map[string]func() error{
		"create": func() error {
			_, err := f.svc.CreateWebhook(ctx, viewer, f.acct, service.WebhookInput{URL: "https://203.0.113.9/h"})
			return err
		},
		"update": func() error { _, err := f.svc.UpdateWebhook(ctx, viewer, theirs.ID, topupd.WebhookPatch{}); return err },
		"delete": func() error { return f.svc.DeleteWebhook(ctx, viewer, theirs.ID) },
		"rotate": func() error { _, err := f.svc.RotateWebhookSecret(ctx, viewer, theirs.ID); return err },
		"test":   func() error { _, err := f.svc.TestWebhook(ctx, viewer, theirs.ID); return err },
		"replay": func() error {
			_, err := f.svc.ReplayWebhook(ctx, viewer, theirs.ID, topupd.WebhookReplay{EventIDs: []string{"evt_x"}})
			return err
		},
	} {
		if err := call(); topupd.CodeOf(err) != topupd.ERoleForbidden {
			t.Errorf("a viewer's %s: %v", what, err)
		}
	}
	if got := len(f.actions()); got != before {
		t.Errorf("refused calls wrote %d actions", got-before)
	}
	if list, err := f.svc.Webhooks(ctx, viewer, f.other); err != nil || len(list) != 1 || list[0].Secret != "" {
		t.Errorf("a viewer's list: %+v, %v", list, err)
	}

	upd := int64(500)
	chat := func() service.Actor { upd++; return service.ChatActor(77, f.acct, upd) }
	mine, err := f.svc.CreateWebhook(ctx, chat(), f.acct, service.WebhookInput{URL: "https://203.0.113.9/mine", Events: []string{"order.completed"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.TestWebhook(ctx, chat(), mine.ID); err != nil {
		t.Errorf("a test of its own: %v", err)
	}
	if _, err := f.svc.CreateWebhook(ctx, chat(), f.other, service.WebhookInput{URL: "https://203.0.113.9/h"}); topupd.CodeOf(err) != topupd.ERoleForbidden {
		t.Errorf("an endpoint for another account: %v", err)
	}
	for what, call := range map[string]func() error{
		"read":   func() error { _, err := f.svc.Webhook(ctx, chat(), theirs.ID); return err },
		"delete": func() error { return f.svc.DeleteWebhook(ctx, chat(), theirs.ID) },
		"test":   func() error { _, err := f.svc.TestWebhook(ctx, chat(), theirs.ID); return err },
	} {
		if err := call(); topupd.CodeOf(err) != topupd.ENotFound {
			t.Errorf("a chat's %s of another account's endpoint: %v", what, err)
		}
	}
	if _, err := f.svc.DisabledWebhooks(ctx, chat()); topupd.CodeOf(err) != topupd.ERoleForbidden {
		t.Errorf("a chat reading every account's disabled endpoints: %v", err)
	}
	if list, err := f.svc.DisabledWebhooks(ctx, viewer); err != nil || len(list) != 0 {
		t.Errorf("no endpoint disabled: %+v, %v", list, err)
	}
	for url, code := range map[string]topupd.ErrorCode{"http://203.0.113.9/": topupd.EWebhookURLForbidden, "https://127.0.0.1/": topupd.EWebhookURLForbidden,
		"https://[::1]:8443/": topupd.EWebhookURLForbidden, "https://a:b@203.0.113.9/": topupd.EInvalidBody, "gopher://x/": topupd.EInvalidBody} {
		if _, err := f.svc.CreateWebhook(ctx, owner, f.acct, service.WebhookInput{URL: url}); topupd.CodeOf(err) != code {
			t.Errorf("%s: %v, want %s", url, err, code)
		}
	}
	bad := []string{"order.lost"}
	if _, err := f.svc.UpdateWebhook(ctx, owner, mine.ID, topupd.WebhookPatch{Events: &bad}); topupd.CodeOf(err) != topupd.EInvalidBody {
		t.Errorf("an unknown event type: %v", err)
	}
	if _, err := f.svc.ReplayWebhook(ctx, owner, mine.ID, topupd.WebhookReplay{}); topupd.CodeOf(err) != topupd.EInvalidBody {
		t.Errorf("a replay of nothing: %v", err)
	}
	if _, err := f.svc.RotateWebhookSecret(ctx, chat(), mine.ID); err != nil {
		t.Error(err)
	}
	if err := f.svc.DeleteWebhook(ctx, chat(), mine.ID); err != nil {
		t.Error(err)
	}
	var got []string
	for _, a := range f.actions() {
		if a.Target == mine.ID {
			got = append(got, a.Action+" by "+a.Actor.Operator)
			for k, v := range a.After {
				if s, ok := v.(string); ok && strings.HasPrefix(s, "whsec_") {
					t.Errorf("%s logs a secret in %s", a.Action, k)
				}
			}
		}
	}
	want := []string{"webhook.delete by chat:77", "webhook.rotate-secret by chat:77", "webhook.create by chat:77"} // newest first
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("the endpoint's actions: %v, want %v", got, want)
	}
}
