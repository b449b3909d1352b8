// Package seal encrypts secrets at rest with AES-256-GCM under a keyring of rotating keys, each value bound to its record.
package seal

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
)

// KeySize is the size of an AES-256 key in bytes.
const KeySize = 32

// format is the first byte of a sealed value: version 1 is
// 0x01 | len(kid) | kid | 12-byte nonce | ciphertext and tag.
const format byte = 1

// ErrOpen is returned when a sealed value cannot be opened: unknown key id, tampered or bound
// to another record. It never carries key material.
var ErrOpen = errors.New("seal: the value cannot be opened with the configured keys")

var kidPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// Keyring holds the sealing keys, the primary first. The primary key seals; every key opens, so
// keys rotate: put a new key in front, re-seal at leisure, then drop the old one. Each sealed
// value carries the id of its key and is bound to the record it belongs to (additional data such
// as "webhook:<id>"), so a value copied into another record does not open.
type Keyring struct {
	primary string
	aeads   map[string]cipher.AEAD
}

// ParseKeyring reads "kid1:base64key,kid2:base64key" (standard or URL-safe base64, padded or
// not; each key 32 bytes). The first key seals. An empty spec is an error.
func ParseKeyring(spec string) (*Keyring, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, errors.New("seal: no key given (want kid:base64key[,kid:base64key...])")
	}
	k := &Keyring{aeads: map[string]cipher.AEAD{}}
	for i, part := range strings.Split(spec, ",") {
		kid, b64, ok := strings.Cut(strings.TrimSpace(part), ":")
		if !ok || !kidPattern.MatchString(kid) {
			return nil, fmt.Errorf("seal: key %d: want kid:base64key with kid of [A-Za-z0-9_.-]{1,64}", i+1)
		}
		if _, dup := k.aeads[kid]; dup {
			return nil, fmt.Errorf("seal: key id %q appears twice", kid)
		}
		raw, err := decodeKey(b64)
		if err != nil {
			return nil, fmt.Errorf("seal: key %q: %w", kid, err)
		}
		if err := k.add(kid, raw); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// NewKeyring builds a keyring from raw keys; ids[0] seals.
func NewKeyring(ids []string, keys [][]byte) (*Keyring, error) {
	if len(ids) == 0 || len(ids) != len(keys) {
		return nil, errors.New("seal: want as many ids as keys, at least one")
	}
	k := &Keyring{aeads: map[string]cipher.AEAD{}}
	for i, kid := range ids {
		if !kidPattern.MatchString(kid) {
			return nil, fmt.Errorf("seal: bad key id %q", kid)
		}
		if _, dup := k.aeads[kid]; dup {
			return nil, fmt.Errorf("seal: key id %q appears twice", kid)
		}
		if err := k.add(kid, keys[i]); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// ErrNoKeys refuses to run in production without SEAL_KEYS: secrets sealed with a throwaway key
// would not open after a restart.
var ErrNoKeys = errors.New("seal: SEAL_KEYS is not set; production needs a keyring (kid:base64key[,...]) to seal secrets")

// Load returns the keyring of spec (SEAL_KEYS). Without keys, production is refused with
// ErrNoKeys, and development gets an ephemeral key with a loud warning on log: what it seals does
// not open after a restart. Nothing is ever stored unsealed.
func Load(spec string, development bool, log *slog.Logger) (*Keyring, error) {
	if strings.TrimSpace(spec) != "" {
		return ParseKeyring(spec)
	}
	if !development {
		return nil, ErrNoKeys
	}
	log.LogAttrs(context.Background(), slog.LevelWarn,
		"SEAL_KEYS is not set: sealing with an ephemeral key (development only); sealed secrets will not open after a restart")
	return Ephemeral(), nil
}

// Ephemeral returns a keyring with one random key: what is sealed with it cannot be opened after
// the process ends. For development runs without configured keys, and tests.
func Ephemeral() *Keyring {
	key := make([]byte, KeySize)
	_, _ = rand.Read(key) // crypto/rand.Read never fails (it panics inside the runtime instead)
	k, _ := NewKeyring([]string{"ephemeral"}, [][]byte{key})
	return k
}

func (k *Keyring) add(kid string, raw []byte) error {
	if len(raw) != KeySize {
		return fmt.Errorf("seal: key %q has %d bytes, want %d (AES-256)", kid, len(raw), KeySize)
	}
	block, err := aes.NewCipher(raw)
	if err != nil {
		return fmt.Errorf("seal: key %q: %w", kid, err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return fmt.Errorf("seal: key %q: %w", kid, err)
	}
	if k.primary == "" {
		k.primary = kid
	}
	k.aeads[kid] = aead
	return nil
}

func decodeKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if raw, err := enc.DecodeString(s); err == nil {
			return raw, nil
		}
	}
	return nil, errors.New("not valid base64")
}

// PrimaryID is the id of the key that seals.
func (k *Keyring) PrimaryID() string { return k.primary }

// Seal encrypts plaintext under the primary key, bound to binding (e.g. "api_config:<id>").
func (k *Keyring) Seal(plaintext []byte, binding string) ([]byte, error) {
	aead := k.aeads[k.primary]
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("seal: nonce: %w", err)
	}
	out := make([]byte, 0, 2+len(k.primary)+len(nonce)+len(plaintext)+aead.Overhead())
	out = append(out, format, byte(len(k.primary)))
	out = append(out, k.primary...)
	out = append(out, nonce...)
	return aead.Seal(out, nonce, plaintext, additional(out[:2+len(k.primary)], binding)), nil
}

// Open decrypts a value made by Seal with any key of the ring and the same binding.
func (k *Keyring) Open(sealed []byte, binding string) ([]byte, error) {
	kid, err := KeyID(sealed)
	if err != nil {
		return nil, err
	}
	aead, ok := k.aeads[kid]
	if !ok {
		return nil, ErrOpen
	}
	header := sealed[:2+len(kid)]
	rest := sealed[len(header):]
	if len(rest) < aead.NonceSize()+aead.Overhead() {
		return nil, ErrOpen
	}
	nonce, ct := rest[:aead.NonceSize()], rest[aead.NonceSize():]
	pt, err := aead.Open(nil, nonce, ct, additional(header, binding))
	if err != nil {
		return nil, ErrOpen
	}
	return pt, nil
}

// OpenUnbound opens nonce || ciphertext written by a plain AES-256-GCM box without key id or
// binding, trying every key of the ring. It exists to move such values into Seal's format; new
// values are always sealed bound to their record.
func (k *Keyring) OpenUnbound(nonceAndCiphertext []byte) ([]byte, error) {
	for _, aead := range k.aeads {
		if len(nonceAndCiphertext) < aead.NonceSize()+aead.Overhead() {
			return nil, ErrOpen
		}
		nonce, ct := nonceAndCiphertext[:aead.NonceSize()], nonceAndCiphertext[aead.NonceSize():]
		if pt, err := aead.Open(nil, nonce, ct, nil); err == nil {
			return pt, nil
		}
	}
	return nil, ErrOpen
}

// NeedsRotation reports whether sealed was made with a key other than the primary one.
func (k *Keyring) NeedsRotation(sealed []byte) bool {
	kid, err := KeyID(sealed)
	return err != nil || kid != k.primary
}

// Reseal opens sealed and seals it again under the primary key (key rotation).
func (k *Keyring) Reseal(sealed []byte, binding string) ([]byte, error) {
	pt, err := k.Open(sealed, binding)
	if err != nil {
		return nil, err
	}
	defer clear(pt)
	return k.Seal(pt, binding)
}

// KeyID reads the key id a sealed value names.
func KeyID(sealed []byte) (string, error) {
	if len(sealed) < 2 || sealed[0] != format || len(sealed) < 2+int(sealed[1]) || sealed[1] == 0 {
		return "", ErrOpen
	}
	return string(sealed[2 : 2+int(sealed[1])]), nil
}

// additional binds the header (format and key id) and the record to the ciphertext.
func additional(header []byte, binding string) []byte {
	ad := make([]byte, 0, len(header)+1+len(binding))
	ad = append(ad, header...)
	ad = append(ad, 0)
	return append(ad, binding...)
}
