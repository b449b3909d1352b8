package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sync"
	"time"
)

// minRefetch bounds how often an unknown key id may trigger a fetch, so forged kids cannot turn
// the service into a load generator against the identity provider.
const minRefetch = 5 * time.Second

// jwks caches the public keys of a JWKS URL.
type jwks struct {
	url     string
	client  *http.Client
	refresh time.Duration

	mu      sync.Mutex
	keys    map[string]jwk
	fetched time.Time // last successful fetch
	tried   time.Time // last attempt
}

type jwk struct {
	alg string // may be empty
	key any    // *rsa.PublicKey or *ecdsa.PublicKey
}

func newJWKS(url string, client *http.Client, refresh time.Duration) *jwks {
	return &jwks{url: url, client: client, refresh: refresh}
}

// key returns the key for kid usable with alg. An empty kid is accepted when the set holds
// exactly one key.
func (s *jwks) key(ctx context.Context, kid, alg string) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	_, known := s.keys[kid]
	needFetch := s.keys == nil || now.Sub(s.fetched) > s.refresh || (kid != "" && !known)
	if needFetch && (s.tried.IsZero() || now.Sub(s.tried) >= minRefetch) {
		s.tried = now
		keys, err := s.fetch(ctx)
		switch {
		case err == nil:
			s.keys, s.fetched = keys, now
		case s.keys == nil:
			return nil, fmt.Errorf("fetch jwks: %w", err)
		} // on a failed refresh the previous keys stay in use
	}
	var k jwk
	var ok bool
	if kid == "" && len(s.keys) == 1 {
		for _, only := range s.keys {
			k, ok = only, true
		}
	} else {
		k, ok = s.keys[kid]
	}
	if !ok {
		return nil, fmt.Errorf("unknown key id %q", kid)
	}
	if k.alg != "" && k.alg != alg {
		return nil, fmt.Errorf("key %q is for %s, token uses %s", kid, k.alg, alg)
	}
	switch alg[:2] {
	case "RS":
		if _, isRSA := k.key.(*rsa.PublicKey); isRSA {
			return k.key, nil
		}
	case "ES":
		if _, isEC := k.key.(*ecdsa.PublicKey); isEC {
			return k.key, nil
		}
	}
	return nil, fmt.Errorf("key %q does not fit %s", kid, alg)
}

func (s *jwks) fetch(ctx context.Context) (map[string]jwk, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var doc struct {
		Keys []struct {
			Kty string `json:"kty"`
			Kid string `json:"kid"`
			Use string `json:"use"`
			Alg string `json:"alg"`
			N   string `json:"n"`
			E   string `json:"e"`
			Crv string `json:"crv"`
			X   string `json:"x"`
			Y   string `json:"y"`
		} `json:"keys"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&doc); err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	keys := make(map[string]jwk, len(doc.Keys))
	for _, k := range doc.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		var pub any
		var err error
		switch k.Kty {
		case "RSA":
			pub, err = rsaKey(k.N, k.E)
		case "EC":
			pub, err = ecKey(k.Crv, k.X, k.Y)
		default:
			continue // a key type we do not verify with
		}
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", k.Kid, err)
		}
		keys[k.Kid] = jwk{alg: k.Alg, key: pub}
	}
	return keys, nil
}

func rsaKey(n, e string) (*rsa.PublicKey, error) {
	nb, err := base64.RawURLEncoding.DecodeString(n)
	if err != nil {
		return nil, fmt.Errorf("modulus: %w", err)
	}
	eb, err := base64.RawURLEncoding.DecodeString(e)
	if err != nil || len(eb) == 0 || len(eb) > 4 {
		return nil, errors.New("bad exponent")
	}
	exp := int(new(big.Int).SetBytes(eb).Int64())
	mod := new(big.Int).SetBytes(nb)
	if mod.BitLen() < 2048 {
		return nil, errors.New("RSA modulus shorter than 2048 bits")
	}
	return &rsa.PublicKey{N: mod, E: exp}, nil
}

func ecKey(crv, x, y string) (*ecdsa.PublicKey, error) {
	var curve elliptic.Curve
	switch crv {
	case "P-256":
		curve = elliptic.P256()
	case "P-384":
		curve = elliptic.P384()
	case "P-521":
		curve = elliptic.P521()
	default:
		return nil, fmt.Errorf("unsupported curve %q", crv)
	}
	xb, err1 := base64.RawURLEncoding.DecodeString(x)
	yb, err2 := base64.RawURLEncoding.DecodeString(y)
	size := (curve.Params().BitSize + 7) / 8
	if err1 != nil || err2 != nil || len(xb) != size || len(yb) != size {
		return nil, errors.New("bad coordinates")
	}
	point := append(append([]byte{4}, xb...), yb...)
	return ecdsa.ParseUncompressedPublicKey(curve, point) // rejects points off the curve
}
