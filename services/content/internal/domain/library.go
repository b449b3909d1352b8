package domain

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/videotpl/platform/pkg/errs"
)

// MusicTrack is a track of the music library.
type MusicTrack struct {
	ID           uuid.UUID
	Name         string
	Caption      string
	Keywords     string
	URL          string
	Genre        string
	Mood         string
	DurationSec  float64
	BPM          int
	IsPremium    bool
	WaveformData map[string]any
	CreatedAt    time.Time
}

// Validate checks a new track: name and url are needed.
func (m MusicTrack) Validate() error {
	var bad []errs.FieldError
	if strings.TrimSpace(m.Name) == "" {
		bad = append(bad, errs.Field("body.name", "is required"))
	}
	if strings.TrimSpace(m.URL) == "" {
		bad = append(bad, errs.Field("body.url", "is required"))
	}
	if m.DurationSec < 0 {
		bad = append(bad, errs.Field("body.duration_sec", "must not be negative"))
	}
	if m.BPM < 0 {
		bad = append(bad, errs.Field("body.bpm", "must not be negative"))
	}
	if len(bad) > 0 {
		return errs.InvalidFields(bad...)
	}
	return nil
}

// MusicQuery filters the music library; nil means no filter.
type MusicQuery struct {
	Text        *string
	Genre       *string
	Mood        *string
	MinDuration *float64
	MaxDuration *float64
	Page        PageRequest
}

// LibraryStore keeps the music library.
type LibraryStore interface {
	ListMusic(ctx context.Context, q MusicQuery) ([]MusicTrack, int, error)
	InsertMusicTrack(ctx context.Context, m MusicTrack) error
	MusicTrackExists(ctx context.Context, id uuid.UUID) (bool, error)
}
