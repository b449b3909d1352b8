-- Containers (templates), their category and tag links, taxonomy.
-- The catalog search itself (GET /templates) is composed in internal/store/templates.go: its
-- filters and sorts vary per request and each combination is its own prepared statement.

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

-- name: ListPublicationLog :many
SELECT id, container_id, published, reason, actor, at
FROM container_publication_log WHERE container_id = $1 ORDER BY at, id;

-- name: ReplaceContainerCategories :exec
WITH gone AS (DELETE FROM container_categories WHERE container_id = @container_id)
INSERT INTO container_categories (container_id, category_id)
SELECT @container_id, unnest(@category_ids::uuid[]);

-- name: ReplaceContainerTags :exec
WITH gone AS (DELETE FROM container_tags WHERE container_id = @container_id)
INSERT INTO container_tags (container_id, tag_id)
SELECT @container_id, unnest(@tag_ids::uuid[]);

-- name: SetContainerLinkArrays :exec
UPDATE containers SET category_ids = @category_ids::uuid[], tag_ids = @tag_ids::uuid[] WHERE id = @id;

-- name: ListContainerCategories :many
SELECT c.id, c.slug, c.name, c.description, c.image_url, c.icon, c.parent_id, c.sort
FROM container_categories cc JOIN categories c ON c.id = cc.category_id
WHERE cc.container_id = $1
ORDER BY c.sort, c.id;

-- name: ListContainerTags :many
SELECT t.id, t.slug, t.name, t.latin_name, t.applies_to_mode
FROM container_tags ct JOIN tags t ON t.id = ct.tag_id
WHERE ct.container_id = $1
ORDER BY t.name, t.id;

-- name: ListContainerProjects :many
SELECT id, name, aspect, resolution, choose_mode, image, original_width, original_height,
       project_duration_sec
FROM projects
WHERE container_id = @container_id AND (is_published OR @include_unpublished::boolean)
ORDER BY name, id;

-- name: ListRelatedTemplates :many
-- Templates sharing categories or tags with the given one, ranked by how many they share.
WITH shared AS (
    SELECT cc.container_id, count(*) AS n
    FROM container_categories cc
    WHERE cc.category_id IN (SELECT src.category_id FROM container_categories src WHERE src.container_id = @id)
      AND cc.container_id <> @id
    GROUP BY cc.container_id
    UNION ALL
    SELECT ct.container_id, count(*) AS n
    FROM container_tags ct
    WHERE ct.tag_id IN (SELECT src.tag_id FROM container_tags src WHERE src.container_id = @id)
      AND ct.container_id <> @id
    GROUP BY ct.container_id
), ranked AS (
    SELECT shared.container_id, sum(shared.n)::bigint AS n FROM shared GROUP BY shared.container_id
)
SELECT c.id, c.slug, c.name, c.image, c.demo, c.mini_demo, c.is_premium, c.is_mockup,
       c.primary_mode, c.rate_avg, c.rate_count, c.use_count,
       ARRAY(SELECT DISTINCT p.aspect FROM projects p
             WHERE p.container_id = c.id AND p.aspect <> ''
               AND (p.is_published OR @include_unpublished::boolean)
             ORDER BY p.aspect)::text[] AS available_aspects
FROM ranked r JOIN containers c ON c.id = r.container_id
WHERE c.deleted_at IS NULL AND (c.is_published OR @include_unpublished::boolean)
ORDER BY r.n DESC, c.use_count DESC, c.id
LIMIT @max_rows;

-- name: ExistingCategoryIDs :many
SELECT id FROM categories WHERE id = ANY(@ids::uuid[]);

-- name: ExistingTagIDs :many
SELECT id FROM tags WHERE id = ANY(@ids::uuid[]);

-- name: ListCategories :many
SELECT id, slug, name, description, image_url, icon, parent_id, sort
FROM categories ORDER BY sort, id;

-- name: InsertCategory :exec
INSERT INTO categories (id, slug, name, description, image_url, icon, parent_id, sort)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8);

-- name: ListTags :many
SELECT id, slug, name, latin_name, applies_to_mode FROM tags ORDER BY name, id;
