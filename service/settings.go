package service

import (
	"context"

	"github.com/topupd/topupd"
)

// Settings reads the settings.
func (s *Service) Settings(ctx context.Context, a Actor) (topupd.Settings, error) {
	if err := Allowed(a, OpRead); err != nil {
		return topupd.Settings{}, err
	}
	return s.d.Store.Settings(ctx)
}

// UpdateSettings applies a patch (the store checks it, topupd.SettingsPatch.Apply)
// and answers the new settings. The settings decide who is admitted
// (maintenance, orders off, eligibility) and how the sim supplier
// answers: every node forgets what it cached, and the engine is told.
func (s *Service) UpdateSettings(ctx context.Context, a Actor, p topupd.SettingsPatch) (topupd.Settings, error) {
	if err := Allowed(a, OpUpdateSettings); err != nil {
		return topupd.Settings{}, err
	}
	st, err := s.d.Store.UpdateSettings(ctx, update(a, OpUpdateSettings, ""), p)
	if err != nil {
		return st, err
	}
	s.changed(ctx)
	s.d.Wake()
	return st, nil
}
