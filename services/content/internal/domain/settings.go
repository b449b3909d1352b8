package domain

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
)

// Settings are website settings by key (values are any JSON).
type Settings map[string]json.RawMessage

// SettingsStore keeps the website settings.
type SettingsStore interface {
	// PublicSettings resolves the public settings of tenant over the platform's defaults.
	PublicSettings(ctx context.Context, tenant uuid.UUID) (Settings, error)
}
