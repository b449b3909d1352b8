-- Projects, their shared layers and colours, and the reads that assemble ProjectFull: one
-- query per child table, filtered by project id, whatever the number of scenes and elements.
-- Scene-level elements come grouped by scene (scene_id, then sort and id), so each scene's list
-- is a run of the result.

-- name: GetProject :one
SELECT sqlc.embed(p), c.is_published AS container_published,
       (c.deleted_at IS NOT NULL)::boolean AS container_deleted
FROM projects p JOIN containers c ON c.id = p.container_id
WHERE p.id = $1;

-- name: GetProjectForUpdate :one
SELECT sqlc.embed(p), c.is_published AS container_published,
       (c.deleted_at IS NOT NULL)::boolean AS container_deleted
FROM projects p JOIN containers c ON c.id = p.container_id
WHERE p.id = $1
FOR UPDATE OF p;

-- name: InsertProject :exec
INSERT INTO projects (id, container_id, project_server_id, name, aspect, resolution, choose_mode,
                      image, original_width, original_height, project_duration_sec, description,
                      full_demo, download_link, min_duration_sec, max_duration_sec, free_fps,
                      vip_factor, render_aep_comp, is_published, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19,
        $20, $21, $22);

-- name: UpdateProject :exec
UPDATE projects
SET container_id = $2, project_server_id = $3, name = $4, aspect = $5, resolution = $6,
    choose_mode = $7, original_width = $8, original_height = $9, project_duration_sec = $10,
    min_duration_sec = $11, max_duration_sec = $12, free_fps = $13, vip_factor = $14,
    render_aep_comp = $15, updated_at = $16
WHERE id = $1;

-- name: DeleteProject :execrows
DELETE FROM projects WHERE id = $1;

-- name: ListScenesByProject :many
SELECT * FROM scenes WHERE project_id = $1 ORDER BY sort, id;

-- name: ListContentsByProject :many
SELECT * FROM scene_contents WHERE project_id = $1 ORDER BY scene_id, sort, id;

-- name: ListColorsByProject :many
SELECT * FROM scene_colors WHERE project_id = $1 ORDER BY scene_id, sort, id;

-- name: ListColorPresetsByProject :many
SELECT * FROM scene_color_presets WHERE project_id = $1 ORDER BY scene_id, sort, id;

-- name: ListCharactersByProject :many
SELECT * FROM scene_characters WHERE project_id = $1 ORDER BY sort, id;

-- name: ListSceneCharacterControllersByProject :many
SELECT * FROM scene_character_controllers WHERE project_id = $1 ORDER BY sort, id;

-- name: ListRepeatersByProject :many
SELECT * FROM repeater_items WHERE project_id = $1 ORDER BY scene_id, sort, id;

-- name: ListSharedColors :many
SELECT * FROM shared_colors WHERE project_id = $1 ORDER BY sort, id;

-- name: ListSharedLayers :many
SELECT * FROM shared_layers WHERE project_id = $1 ORDER BY sort, id;

-- name: ListCharacterControllers :many
SELECT * FROM character_controllers WHERE project_id = $1 ORDER BY sort, id;

-- name: ListCharacterPresets :many
SELECT * FROM character_presets WHERE project_id = $1 ORDER BY sort, id;

-- name: InsertSharedLayer :exec
INSERT INTO shared_layers (id, project_id, key, title, type, default_value, font_face, justify,
                           font_size, position_in_container, is_text_box, sort)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12);
