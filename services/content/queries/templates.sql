-- The catalog reads around a template: its links, its projects, related templates.
-- The catalog search itself (GET /templates) is composed in internal/store/templates.go: its
-- filters and sorts vary per request and each combination is its own prepared statement.

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
