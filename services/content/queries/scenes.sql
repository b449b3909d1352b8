-- Scenes, their elements, and the reorder.

-- name: GetScene :one
-- The scene with what decides its visibility (its project's and container's state).
SELECT sqlc.embed(s), p.is_published AS project_published, c.is_published AS container_published,
       (c.deleted_at IS NOT NULL)::boolean AS container_deleted
FROM scenes s
JOIN projects p ON p.id = s.project_id
JOIN containers c ON c.id = p.container_id
WHERE s.id = $1;

-- name: GetSceneForUpdate :one
SELECT * FROM scenes WHERE id = $1 FOR UPDATE;

-- name: NextSceneSort :one
SELECT (coalesce(max(sort), 0) + 1)::integer AS next FROM scenes WHERE project_id = $1;

-- name: InsertScene :exec
INSERT INTO scenes (id, project_id, key, title, scene_type, image, demo, snapshot_url,
                    localized_title, default_duration_sec, min_duration_sec, max_duration_sec,
                    overlap_at_end_sec, manual_color_selection, sort, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16);

-- name: UpdateScene :exec
UPDATE scenes
SET title = $2, default_duration_sec = $3, sort = $4, manual_color_selection = $5
WHERE id = $1;

-- name: DeleteScene :execrows
DELETE FROM scenes WHERE id = $1;

-- name: LockProjectSceneIDs :many
SELECT id FROM scenes WHERE project_id = $1 ORDER BY id FOR UPDATE;

-- name: SetSceneOrder :exec
-- Scene n of ordered_ids gets sort n, in one statement.
UPDATE scenes s SET sort = o.ord::integer
FROM unnest(@ordered_ids::uuid[]) WITH ORDINALITY AS o(id, ord)
WHERE s.id = o.id AND s.project_id = @project_id;

-- name: ExistingSceneIDsOfProject :many
SELECT id FROM scenes WHERE project_id = @project_id AND id = ANY(@ids::uuid[]);

-- name: ListContentsByScene :many
SELECT * FROM scene_contents WHERE scene_id = $1 ORDER BY sort, id;

-- name: ListColorsByScene :many
SELECT * FROM scene_colors WHERE scene_id = $1 ORDER BY sort, id;

-- name: ListColorPresetsByScene :many
SELECT * FROM scene_color_presets WHERE scene_id = $1 ORDER BY sort, id;

-- name: ListCharactersByScene :many
SELECT * FROM scene_characters WHERE scene_id = $1 ORDER BY sort, id;

-- name: ListSceneCharacterControllersByScene :many
SELECT cc.* FROM scene_character_controllers cc
JOIN scene_characters ch ON ch.id = cc.character_id
WHERE ch.scene_id = $1
ORDER BY cc.sort, cc.id;

-- name: ListRepeatersByScene :many
SELECT * FROM repeater_items WHERE scene_id = $1 ORDER BY sort, id;

-- name: InsertContent :exec
INSERT INTO scene_contents (id, scene_id, project_id, repeater_item_id, key, title, hint, type,
                            default_value, font_face, justify, direction_layer_key, ai_input_type,
                            opacity_controller_key, localized_title, font_id, font_size,
                            position_in_container, is_text_box, max_size, direction_layer_value,
                            video_support, mapped_list, is_hidden, virtual_count, sort)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
        $21, $22, $23, $24, $25, $26);

-- name: GetContentForUpdate :one
SELECT * FROM scene_contents WHERE id = $1 FOR UPDATE;

-- name: UpdateContent :exec
UPDATE scene_contents
SET repeater_item_id = $2, key = $3, title = $4, hint = $5, type = $6, default_value = $7,
    font_face = $8, justify = $9, direction_layer_key = $10, ai_input_type = $11,
    opacity_controller_key = $12, localized_title = $13, font_id = $14, font_size = $15,
    position_in_container = $16, is_text_box = $17, max_size = $18, direction_layer_value = $19,
    video_support = $20, mapped_list = $21, is_hidden = $22, virtual_count = $23, sort = $24
WHERE id = $1;

-- name: DeleteContent :execrows
DELETE FROM scene_contents WHERE id = $1;

-- name: InsertColor :exec
INSERT INTO scene_colors (id, scene_id, project_id, element_key, title, icon, default_color,
                          attr_value, sort)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9);

-- name: GetColorForUpdate :one
SELECT * FROM scene_colors WHERE id = $1 FOR UPDATE;

-- name: UpdateColor :exec
UPDATE scene_colors
SET element_key = $2, title = $3, icon = $4, default_color = $5, attr_value = $6, sort = $7
WHERE id = $1;

-- name: DeleteColor :execrows
DELETE FROM scene_colors WHERE id = $1;
