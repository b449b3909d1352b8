-- +goose Up

-- Signing secrets are stored sealed by the keyring (pkg/seal: a value starts with its format
-- byte 0x01), never in the clear. NOT VALID: rows in another format are re-sealed by the
-- service when it starts (it holds the keys; the migration does not), and the rule holds for
-- every row written.
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_secrets_sealed CHECK (
    substring(secret FROM 1 FOR 1) = '\x01'::bytea
    AND (previous_secret IS NULL OR substring(previous_secret FROM 1 FOR 1) = '\x01'::bytea)
) NOT VALID;

-- +goose Down
ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_secrets_sealed;
