-- CMS: blogs, slides, home events and website settings.

-- name: ListBlogs :many
SELECT id, slug, kind, title, short_description, content, image, cover, author_display_name,
       publish_date, view_count, count(*) OVER ()::integer AS total
FROM blogs
WHERE (sqlc.narg(q)::text IS NULL OR search @@ websearch_to_tsquery('english', sqlc.narg(q)::text))
  AND (publish_date <= @now OR @include_unpublished::boolean)
ORDER BY publish_date DESC, id
LIMIT @max_rows OFFSET @skip_rows;

-- name: GetBlogBySlug :one
SELECT id, slug, kind, title, short_description, content, image, cover, author_display_name,
       publish_date, view_count
FROM blogs WHERE slug = $1;

-- name: ListSlides :many
SELECT * FROM slides ORDER BY sort, id;

-- name: ListHomeEvents :many
SELECT * FROM home_events ORDER BY sort, id;

-- name: ListPublicSettings :many
-- Per key, the tenant's own row wins over the platform default (the nil tenant); only rows
-- flagged public are served, so a tenant can also hide a public default.
SELECT r.key, r.value
FROM (
    SELECT DISTINCT ON (key) key, value, is_public
    FROM website_settings
    WHERE tenant_id = @tenant_id OR tenant_id = '00000000-0000-0000-0000-000000000000'
    ORDER BY key, (tenant_id = '00000000-0000-0000-0000-000000000000')
) r
WHERE r.is_public
ORDER BY r.key;
