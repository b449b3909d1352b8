-- name: InsertDivision :exec
INSERT INTO divisions (id, organization_id, name, description, created_at)
VALUES ($1, $2, $3, $4, $5);

-- name: ListDivisions :many
SELECT id, organization_id, name, description, created_at
FROM divisions WHERE organization_id = $1 ORDER BY name, id;

-- name: DivisionExists :one
SELECT EXISTS (SELECT 1 FROM divisions WHERE organization_id = $1 AND id = $2);

-- name: InsertProduct :exec
INSERT INTO products (id, organization_id, division_id, name, kind, description, identity_version, created_at)
VALUES ($1, $2, $3, $4, $5, $6, 0, $7);

-- name: GetProduct :one
SELECT id, organization_id, division_id, name, kind, description, identity_version, created_at
FROM products WHERE id = $1;

-- name: GetProductForUpdate :one
SELECT id, organization_id, division_id, name, kind, description, identity_version, created_at
FROM products WHERE id = $1 FOR UPDATE;

-- name: ListProducts :many
SELECT id, organization_id, division_id, name, kind, description, identity_version, created_at
FROM products
WHERE organization_id = sqlc.arg(organization_id)
  AND (sqlc.narg(division_id)::uuid IS NULL OR division_id = sqlc.narg(division_id))
  AND (sqlc.narg(kind)::text IS NULL OR kind = sqlc.narg(kind))
ORDER BY name, id;

-- name: ProductExists :one
SELECT EXISTS (SELECT 1 FROM products WHERE organization_id = $1 AND id = $2);

-- name: SetProductIdentityVersion :exec
UPDATE products SET identity_version = $2 WHERE id = $1;

-- name: InsertProductIdentity :exec
INSERT INTO product_identities (product_id, version, content, updated_by, updated_at)
VALUES ($1, $2, $3, $4, $5);

-- name: GetProductIdentity :one
SELECT product_id, version, content, updated_by, updated_at
FROM product_identities WHERE product_id = $1 AND version = $2;

-- name: ListProductIdentities :many
SELECT product_id, version, content, updated_by, updated_at
FROM product_identities WHERE product_id = $1 ORDER BY version DESC;
