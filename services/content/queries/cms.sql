-- CMS: blogs, comments, slides and home events.

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

-- name: BlogExists :one
SELECT EXISTS (SELECT 1 FROM blogs WHERE id = $1);

-- name: GetCommentTarget :one
SELECT blog_id, container_id FROM comments WHERE id = $1;

-- name: InsertComment :exec
INSERT INTO comments (id, user_id, tenant_id, content, rate, blog_id, container_id,
                      parent_comment_id, status, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10);

-- name: ListSlides :many
SELECT * FROM slides ORDER BY sort, id;

-- name: ListHomeEvents :many
SELECT * FROM home_events ORDER BY sort, id;
