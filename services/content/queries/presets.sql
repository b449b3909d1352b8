-- Preset stories: ordered scene selections of a project.

-- name: ListPresetStories :many
SELECT ps.id, ps.project_id, ps.name, ps.description, ps.demo, ps.music_id, ps.sort,
       ps.is_published,
       (SELECT count(*) FROM preset_story_scenes pss WHERE pss.preset_story_id = ps.id)::integer AS scene_count
FROM preset_stories ps
WHERE ps.project_id = @project_id AND (ps.is_published OR @include_unpublished::boolean)
ORDER BY ps.sort, ps.id;

-- name: GetPresetStory :one
SELECT ps.id, ps.project_id, ps.name, ps.description, ps.demo, ps.music_id, ps.sort,
       ps.is_published,
       (SELECT count(*) FROM preset_story_scenes pss WHERE pss.preset_story_id = ps.id)::integer AS scene_count
FROM preset_stories ps
WHERE ps.id = $1;

-- name: ListPresetStoryScenes :many
-- sort_in_story counts from 1 even when a deleted scene left a gap in the positions.
SELECT sqlc.embed(s),
       (row_number() OVER (ORDER BY pss.position))::integer AS sort_in_story,
       coalesce(pss.duration_sec, s.default_duration_sec)::double precision AS story_duration_sec
FROM preset_story_scenes pss
JOIN scenes s ON s.id = pss.scene_id
WHERE pss.preset_story_id = $1
ORDER BY pss.position;

-- name: NextPresetStorySort :one
SELECT (coalesce(max(sort), 0) + 1)::integer AS next FROM preset_stories WHERE project_id = $1;

-- name: InsertPresetStory :exec
INSERT INTO preset_stories (id, project_id, name, description, demo, music_id, sort, is_published,
                            created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9);

-- name: InsertPresetStoryScenes :exec
INSERT INTO preset_story_scenes (preset_story_id, position, project_id, scene_id)
SELECT @preset_story_id, o.ord::integer, @project_id, o.scene_id
FROM unnest(@scene_ids::uuid[]) WITH ORDINALITY AS o(scene_id, ord);
