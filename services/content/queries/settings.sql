-- Website settings.

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
