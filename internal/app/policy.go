package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/reinsdev/reins/settings"
	"github.com/reinsdev/reins/settings/policy"
)

// loadBundle fetches the policy bundle the managed settings name, if any, and loads the
// settings again with it as the last policy file. A required bundle that cannot be had stops
// here; one that is not required is a warning (s.PolicyWarning) and the settings without it.
func loadBundle(ctx context.Context, s *Settings) error {
	b, from := s.Loaded.PolicyBundle()
	if b == nil {
		return nil
	}
	required := b.Required != nil && b.Required.Value
	res, err := policy.Fetch(ctx, policy.Config{URL: b.URL.Value, PublicKey: b.PublicKey.Value,
		CacheDir: filepath.Join(s.Options.ConfigDir, "policy"), Required: required})
	if err != nil {
		if required {
			return fmt.Errorf("%s:%d:%d: the required %w: refusing to run without the organisation's policy", from, b.URL.Line, b.URL.Col, err)
		}
		s.PolicyWarning = err.Error() + " (the policy bundle is not required: running without it)"
		return nil
	}
	if res.Warning != "" {
		s.PolicyWarning = res.Warning
	}
	version := strconv.FormatInt(res.Version, 10)
	// Before a proposed policy (replay's), which is to win where they differ.
	s.Options.Bundles = append([]settings.Bundle{{Name: b.URL.Value, Data: res.Data, Version: version}}, s.Options.Bundles...)
	loaded, err := settings.Load(s.Options)
	if err != nil {
		return fmt.Errorf("policy bundle %s (version %d): %w", b.URL.Value, res.Version, err)
	}
	s.Loaded, s.PolicyVersion = loaded, version
	return nil
}
