package auth

import (
	"sync"
	"time"
)

// verifiedCacheSize bounds the cache of verified tokens; when full it starts over, which
// costs one signature check per live token and keeps memory flat under a token flood.
const verifiedCacheSize = 8192

// verifiedCache remembers tokens whose signature and claims were checked. A token cannot
// change, so only time can change the answer: exp and nbf are checked again on every hit.
// A key removed from the JWKS does not revoke the tokens it signed before their exp; bearer
// JWTs are valid until they expire in any case.
type verifiedCache struct {
	mu      sync.RWMutex
	entries map[string]verifiedToken
}

type verifiedToken struct {
	principal Principal
	notBefore time.Time
	expires   time.Time
}

func (c *verifiedCache) get(token string, now time.Time, leeway time.Duration) (Principal, bool) {
	c.mu.RLock()
	e, ok := c.entries[token]
	c.mu.RUnlock()
	if !ok || !now.Before(e.expires.Add(leeway)) || now.Add(leeway).Before(e.notBefore) {
		return Principal{}, false
	}
	return e.principal, true
}

func (c *verifiedCache) put(token string, e verifiedToken) {
	c.mu.Lock()
	if c.entries == nil || len(c.entries) >= verifiedCacheSize {
		c.entries = make(map[string]verifiedToken, 256)
	}
	c.entries[token] = e
	c.mu.Unlock()
}
