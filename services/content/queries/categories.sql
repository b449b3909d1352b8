-- Categories and tags.

-- name: ListCategories :many
SELECT id, slug, name, description, image_url, icon, parent_id, sort
FROM categories ORDER BY sort, id;

-- name: InsertCategory :exec
INSERT INTO categories (id, slug, name, description, image_url, icon, parent_id, sort)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8);

-- name: ListTags :many
SELECT id, slug, name, latin_name, applies_to_mode FROM tags ORDER BY name, id;

-- name: ExistingCategoryIDs :many
SELECT id FROM categories WHERE id = ANY(@ids::uuid[]);

-- name: ExistingTagIDs :many
SELECT id FROM tags WHERE id = ANY(@ids::uuid[]);
