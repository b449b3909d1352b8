-- The music library.

-- name: ListMusic :many
-- Optional filters are NULL when absent; total is the count of every match.
SELECT id, name, caption, keywords, url, genre, mood, duration_sec, bpm, is_premium,
       waveform_data, count(*) OVER ()::integer AS total
FROM music_tracks
WHERE (sqlc.narg(q)::text IS NULL OR search @@ websearch_to_tsquery('english', sqlc.narg(q)::text))
  AND (sqlc.narg(genre)::text IS NULL OR genre = sqlc.narg(genre)::text)
  AND (sqlc.narg(mood)::text IS NULL OR mood = sqlc.narg(mood)::text)
  AND (sqlc.narg(min_duration)::double precision IS NULL OR duration_sec >= sqlc.narg(min_duration)::double precision)
  AND (sqlc.narg(max_duration)::double precision IS NULL OR duration_sec <= sqlc.narg(max_duration)::double precision)
ORDER BY name, id
LIMIT @max_rows OFFSET @skip_rows;

-- name: InsertMusicTrack :exec
INSERT INTO music_tracks (id, name, caption, keywords, url, genre, mood, duration_sec, bpm,
                          is_premium, waveform_data, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12);

-- name: MusicTrackExists :one
SELECT EXISTS (SELECT 1 FROM music_tracks WHERE id = $1);
