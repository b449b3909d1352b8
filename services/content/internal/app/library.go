package app

import (
	"context"

	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListMusic searches the music library.
func (a *App) ListMusic(ctx context.Context, _ domain.Actor, q domain.MusicQuery) ([]domain.MusicTrack, domain.PageMeta, error) {
	tracks, total, err := a.store.ListMusic(ctx, q)
	if err != nil {
		return nil, domain.PageMeta{}, err
	}
	return tracks, q.Page.Meta(total), nil
}

// CreateMusicTrack adds a track to the library (admin).
func (a *App) CreateMusicTrack(ctx context.Context, actor domain.Actor, m domain.MusicTrack) (domain.MusicTrack, error) {
	if err := actor.RequireAdmin(); err != nil {
		return domain.MusicTrack{}, err
	}
	if err := m.Validate(); err != nil {
		return domain.MusicTrack{}, err
	}
	id, err := newID()
	if err != nil {
		return domain.MusicTrack{}, err
	}
	m.ID, m.CreatedAt = id, a.now()
	if m.WaveformData == nil {
		m.WaveformData = map[string]any{}
	}
	if err := a.store.InsertMusicTrack(ctx, m); err != nil {
		return domain.MusicTrack{}, err
	}
	return m, nil
}
