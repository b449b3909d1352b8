-- Containers (templates): their writes, category and tag links, and publication log.

-- name: GetContainer :one
SELECT id, slug, name, description, keywords, news_text, image, demo, full_demo, mini_demo,
       is_published, is_premium, is_mockup, primary_mode, rate_avg, rate_count, use_count,
       created_at, updated_at, deleted_at
FROM containers WHERE id = $1;

-- name: GetContainerForUpdate :one
SELECT id, slug, name, description, keywords, news_text, image, demo, full_demo, mini_demo,
       is_published, is_premium, is_mockup, primary_mode, rate_avg, rate_count, use_count,
       created_at, updated_at, deleted_at
FROM containers WHERE id = $1 FOR UPDATE;

-- name: GetContainerBySlug :one
SELECT id, slug, name, description, keywords, news_text, image, demo, full_demo, mini_demo,
       is_published, is_premium, is_mockup, primary_mode, rate_avg, rate_count, use_count,
       created_at, updated_at, deleted_at
FROM containers WHERE slug = $1;

-- name: InsertContainer :exec
INSERT INTO containers (id, slug, name, description, keywords, news_text, image, demo, full_demo,
                        mini_demo, is_published, is_premium, is_mockup, primary_mode, rate_avg,
                        rate_count, use_count, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19);

-- name: UpdateContainer :exec
UPDATE containers
SET slug = $2, name = $3, description = $4, primary_mode = $5, is_premium = $6, is_mockup = $7,
    updated_at = $8
WHERE id = $1;

-- name: SetContainerPublished :exec
UPDATE containers SET is_published = $2, updated_at = $3 WHERE id = $1;

-- name: SoftDeleteContainer :exec
UPDATE containers SET deleted_at = $2, updated_at = $2 WHERE id = $1;

-- name: InsertPublicationLog :exec
INSERT INTO container_publication_log (id, container_id, published, reason, actor, at)
VALUES ($1, $2, $3, $4, $5, $6);

-- name: RemoveContainerCategoriesOutside :exec
-- The links of the container to categories outside the new set go; those in it stay.
DELETE FROM container_categories
WHERE container_id = @container_id AND NOT (category_id = ANY(@category_ids::uuid[]));

-- name: AddContainerCategories :exec
-- The links the container lacks are added; a link it has already is no conflict.
INSERT INTO container_categories (container_id, category_id)
SELECT @container_id, unnest(@category_ids::uuid[])
ON CONFLICT (container_id, category_id) DO NOTHING;

-- name: RemoveContainerTagsOutside :exec
DELETE FROM container_tags
WHERE container_id = @container_id AND NOT (tag_id = ANY(@tag_ids::uuid[]));

-- name: AddContainerTags :exec
INSERT INTO container_tags (container_id, tag_id)
SELECT @container_id, unnest(@tag_ids::uuid[])
ON CONFLICT (container_id, tag_id) DO NOTHING;

-- name: SetContainerLinkArrays :exec
UPDATE containers SET category_ids = @category_ids::uuid[], tag_ids = @tag_ids::uuid[] WHERE id = @id;
