-- The elements of a scene: contents, colours, colour presets, characters and repeaters.

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
