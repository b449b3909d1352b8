package auth

import (
	"errors"

	"github.com/videotpl/platform/pkg/config"
)

// FromConfig builds the authenticator of a service from the shared environment settings:
// development HS256 JWTs, production JWTs from a JWKS, and hashed service tokens.
func FromConfig(c config.Common) (*Authenticator, error) {
	tokens, err := ParseServiceTokens(c.ServiceTokens)
	if err != nil {
		return nil, err
	}
	if c.JWTSecret == "" && c.JWKSURL == "" && len(tokens) == 0 {
		return nil, errors.New("set JWT_HS256_SECRET (development), JWT_JWKS_URL (production) or SERVICE_TOKENS: the API needs credentials")
	}
	return NewAuthenticator(Config{
		Issuer: c.JWTIssuer, Audience: c.JWTAudience, HS256Secret: []byte(c.JWTSecret),
		JWKSURL: c.JWKSURL, ServiceTokens: tokens,
	})
}
