package service

import (
	"context"
	"slices"
	"time"

	"github.com/topupd/topupd"
)

// NewKey is an API key just made: Secret is the key itself, shown this
// once and kept nowhere.
type NewKey struct {
	topupd.APIKey
	Secret string
}

// Rotation is a key made in place of another, which keeps working until
// OldRevokedAt (topupd.KeyRotationOverlap).
type Rotation struct {
	NewKey
	OldKeyID     string
	OldRevokedAt time.Time
}

// MaxKeyLabel is the longest label of a key.
const MaxKeyLabel = 100

// Keys lists an account's keys, newest first, revoked ones too; never a
// key itself.
func (s *Service) Keys(ctx context.Context, a Actor, accountID string) ([]topupd.APIKey, error) {
	if err := s.accountReadable(a, accountID); err != nil {
		return nil, err
	}
	if err := s.accountExists(ctx, accountID); err != nil {
		return nil, err
	}
	return s.d.Store.Keys(ctx, accountID)
}

// CreateKey makes an API key of the account, with a label of at most
// MaxKeyLabel characters.
func (s *Service) CreateKey(ctx context.Context, a Actor, accountID, label string) (NewKey, error) {
	return s.createKey(ctx, a, accountID, label, false)
}

// CreateSandboxKey makes a sandbox key of the account (integration.md),
// opening the account's sandbox if it was not: its plaintext starts with
// topupd.SandboxKeyPrefix.
func (s *Service) CreateSandboxKey(ctx context.Context, a Actor, accountID, label string) (NewKey, error) {
	return s.createKey(ctx, a, accountID, label, true)
}

// createKey makes a live key, or a sandbox key.
func (s *Service) createKey(ctx context.Context, a Actor, accountID, label string, sandbox bool) (NewKey, error) {
	if err := Allowed(a, OpCreateKey); err != nil {
		return NewKey{}, err
	}
	if err := a.Own(accountID); err != nil {
		return NewKey{}, err
	}
	if err := checkKeyLabel(label); err != nil {
		return NewKey{}, err
	}
	k, hash := s.newAPIKey(accountID, label, s.d.Now(), sandbox)
	if err := s.d.Store.AddKey(ctx, change(a, OpCreateKey, accountID), k.APIKey, hash); err != nil {
		return NewKey{}, err
	}
	s.changed(ctx)
	return k, nil
}

// RotateKey makes a new key of the account in place of one of its keys,
// with the old key's label unless label is set, and revokes the old key
// topupd.KeyRotationOverlap later: clients move over in that time.
func (s *Service) RotateKey(ctx context.Context, a Actor, accountID, oldKeyID string, label *string) (Rotation, error) {
	if err := Allowed(a, OpRotateKey); err != nil {
		return Rotation{}, err
	}
	if err := s.ownKey(ctx, a, accountID, oldKeyID); err != nil {
		return Rotation{}, err
	}
	var name string
	if label != nil {
		name = *label
	}
	if err := checkKeyLabel(name); err != nil {
		return Rotation{}, err
	}
	keys, err := s.d.Store.Keys(ctx, accountID)
	if err != nil {
		return Rotation{}, err
	}
	sandbox := false // a sandbox key's successor is a sandbox key
	for _, k := range keys {
		if k.ID == oldKeyID {
			sandbox = k.Sandbox
			if label == nil {
				name = k.Label
			}
		}
	}
	now := s.d.Now()
	k, hash := s.newAPIKey(accountID, name, now, sandbox)
	out := Rotation{NewKey: k, OldKeyID: oldKeyID, OldRevokedAt: now.Add(topupd.KeyRotationOverlap)}
	if err := s.d.Store.RotateKey(ctx, change(a, OpRotateKey, oldKeyID), oldKeyID, k.APIKey, hash, out.OldRevokedAt); err != nil {
		return Rotation{}, err
	}
	s.changed(ctx)
	return out, nil
}

// RevokeKey refuses a key from now on.
func (s *Service) RevokeKey(ctx context.Context, a Actor, keyID string) error {
	if err := Allowed(a, OpRevokeKey); err != nil {
		return err
	}
	if err := s.ownKey(ctx, a, "", keyID); err != nil {
		return err
	}
	if err := s.d.Store.RevokeKey(ctx, change(a, OpRevokeKey, keyID), keyID, s.d.Now()); err != nil {
		return err
	}
	s.changed(ctx)
	return nil
}

// newAPIKey makes a key of the account, live or sandbox, and the hash that
// is all the store keeps of it.
func (s *Service) newAPIKey(accountID, label string, now time.Time, sandbox bool) (NewKey, topupd.KeyHash) {
	secret, hash := topupd.NewAPIKey()
	if sandbox {
		secret, hash = topupd.NewSandboxAPIKey()
	}
	return NewKey{Secret: secret, APIKey: topupd.APIKey{ID: topupd.NewID("key_"), AccountID: accountID, Label: label,
		Prefix: secret[:topupd.KeyPrefixLen], CreatedAt: now, Sandbox: sandbox}}, hash
}

// checkKeyLabel refuses a key's label longer than MaxKeyLabel.
func checkKeyLabel(label string) error {
	if len(label) > MaxKeyLabel {
		return topupd.Errorf(topupd.EInvalidBody, "label: at most %d characters", MaxKeyLabel)
	}
	return nil
}

// ownKey holds a reseller's chat to its own account's keys: the key is
// one of its account's, or the call names its own account (the store then
// finds the key among that account's). Any other actor may act on every
// key. A key of another account is NOT_FOUND, as if there were none.
func (s *Service) ownKey(ctx context.Context, a Actor, accountID, keyID string) error {
	if a.Role != topupd.RoleResellerChat || (accountID != "" && a.Own(accountID) == nil) {
		return nil
	}
	keys, err := s.d.Store.Keys(ctx, a.Account)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(keys, func(k topupd.APIKey) bool { return k.ID == keyID }) {
		return topupd.Errorf(topupd.ENotFound, "key %s is not this account's", keyID)
	}
	return nil
}
