package store

import (
	"context"

	"github.com/google/uuid"

	contentdb "github.com/videotpl/platform/gen/db/content"
	"github.com/videotpl/platform/services/content/internal/domain"
)

// ListMusic searches the music library.
func (s *Store) ListMusic(ctx context.Context, q domain.MusicQuery) ([]domain.MusicTrack, int, error) {
	rows, err := s.q.ListMusic(ctx, contentdb.ListMusicParams{
		Q: q.Text, Genre: q.Genre, Mood: q.Mood, MinDuration: q.MinDuration, MaxDuration: q.MaxDuration,
		SkipRows: i32(q.Page.Offset()), MaxRows: i32(q.Page.Size),
	})
	if err != nil {
		return nil, 0, err
	}
	out := make([]domain.MusicTrack, len(rows))
	total := 0
	for i, r := range rows {
		m := domain.MusicTrack{ID: r.ID, Name: r.Name, Caption: r.Caption, Keywords: r.Keywords, URL: r.Url,
			Genre: r.Genre, Mood: r.Mood, DurationSec: r.DurationSec, BPM: int(r.Bpm), IsPremium: r.IsPremium,
			WaveformData: map[string]any{}}
		if err := decode(r.WaveformData, &m.WaveformData); err != nil {
			return nil, 0, err
		}
		out[i] = m
		total = int(r.Total)
	}
	if len(rows) == 0 && q.Page.Offset() > 0 {
		count := q
		count.Page = domain.PageRequest{Number: 1, Size: 1}
		_, n, err := s.ListMusic(ctx, count)
		return out, n, err
	}
	return out, total, nil
}

// InsertMusicTrack writes a new track.
func (s *Store) InsertMusicTrack(ctx context.Context, m domain.MusicTrack) error {
	wave, err := encode(m.WaveformData)
	if err != nil {
		return err
	}
	return translate(s.q.InsertMusicTrack(ctx, contentdb.InsertMusicTrackParams{
		ID: m.ID, Name: m.Name, Caption: m.Caption, Keywords: m.Keywords, Url: m.URL, Genre: m.Genre,
		Mood: m.Mood, DurationSec: m.DurationSec, Bpm: i32(m.BPM), IsPremium: m.IsPremium,
		WaveformData: wave, CreatedAt: m.CreatedAt,
	}), nil)
}

// MusicTrackExists reports whether id is a music track.
func (s *Store) MusicTrackExists(ctx context.Context, id uuid.UUID) (bool, error) {
	return s.q.MusicTrackExists(ctx, id)
}
