package seal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func key(t *testing.T) ([]byte, string) {
	t.Helper()
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k, base64.StdEncoding.EncodeToString(k)
}

func TestSealedValueOpensAndHidesThePlaintext(t *testing.T) {
	_, b64 := key(t)
	ring, err := ParseKeyring("k1:" + b64)
	if err != nil {
		t.Fatal(err)
	}
	secret := []byte("sk-live-very-secret-1234")
	sealed, err := ring.Seal(secret, "api_config:1")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, secret) {
		t.Fatal("the sealed value contains the plaintext")
	}
	if kid, _ := KeyID(sealed); kid != "k1" {
		t.Fatalf("kid = %q", kid)
	}
	got, err := ring.Open(sealed, "api_config:1")
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("Open = %q, %v", got, err)
	}
	again, _ := ring.Seal(secret, "api_config:1")
	if bytes.Equal(again, sealed) {
		t.Fatal("two seals of the same value must differ (random nonce)")
	}
}

func TestAValueBoundToOneRecordDoesNotOpenForAnother(t *testing.T) {
	ring := Ephemeral()
	sealed, _ := ring.Seal([]byte("x"), "tool_server:a")
	if _, err := ring.Open(sealed, "tool_server:b"); !errors.Is(err, ErrOpen) {
		t.Fatalf("err = %v, want ErrOpen", err)
	}
}

func TestATamperedValueDoesNotOpen(t *testing.T) {
	ring := Ephemeral()
	sealed, _ := ring.Seal([]byte("secret"), "b")
	for i := range sealed {
		bad := bytes.Clone(sealed)
		bad[i] ^= 0x01
		if _, err := ring.Open(bad, "b"); err == nil {
			t.Fatalf("flipping byte %d still opens", i)
		}
	}
	if _, err := ring.Open(sealed[:len(sealed)-1], "b"); err == nil {
		t.Fatal("a truncated value opens")
	}
	if _, err := ring.Open(nil, "b"); err == nil {
		t.Fatal("an empty value opens")
	}
}

func TestRotationOpensOldValuesAndSealsWithTheNewKey(t *testing.T) {
	_, oldKey := key(t)
	_, newKey := key(t)
	before, _ := ParseKeyring("old:" + oldKey)
	sealed, _ := before.Seal([]byte("secret"), "r")

	after, err := ParseKeyring("new:" + newKey + ", old:" + oldKey)
	if err != nil {
		t.Fatal(err)
	}
	if after.PrimaryID() != "new" || !after.NeedsRotation(sealed) {
		t.Fatal("the new key must be primary and the old value due for rotation")
	}
	if got, err := after.Open(sealed, "r"); err != nil || string(got) != "secret" {
		t.Fatalf("old value with rotated ring: %q, %v", got, err)
	}
	resealed, err := after.Reseal(sealed, "r")
	if err != nil || after.NeedsRotation(resealed) {
		t.Fatalf("Reseal: %v", err)
	}
	onlyNew, _ := ParseKeyring("new:" + newKey)
	if got, err := onlyNew.Open(resealed, "r"); err != nil || string(got) != "secret" {
		t.Fatalf("after dropping the old key: %q, %v", got, err)
	}
	if _, err := onlyNew.Open(sealed, "r"); !errors.Is(err, ErrOpen) {
		t.Fatal("a value of a dropped key must not open")
	}
}

func TestParseKeyringRefusesBadSpecsWithoutEchoingKeys(t *testing.T) {
	_, good := key(t)
	short := base64.StdEncoding.EncodeToString([]byte("too-short-key-material"))
	cases := map[string]string{
		"empty":          "",
		"no kid":         good,
		"bad kid":        "a b:" + good,
		"short key":      "k:" + short,
		"not base64":     "k:!!!notbase64!!!",
		"duplicate kids": "k:" + good + ",k:" + good,
	}
	for name, spec := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseKeyring(spec)
			if err == nil {
				t.Fatal("accepted")
			}
			if strings.Contains(err.Error(), good) || strings.Contains(err.Error(), short) {
				t.Fatalf("error echoes key material: %v", err)
			}
		})
	}
}

func TestParseKeyringAcceptsURLSafeUnpaddedKeys(t *testing.T) {
	raw, _ := key(t)
	if _, err := ParseKeyring("k:" + base64.RawURLEncoding.EncodeToString(raw)); err != nil {
		t.Fatal(err)
	}
}

func TestLoadRefusesProductionWithoutKeysAndNeverSealsInTheClearInDevelopment(t *testing.T) {
	var logs strings.Builder
	log := slog.New(slog.NewTextHandler(&logs, nil))
	if _, err := Load("", false, log); !errors.Is(err, ErrNoKeys) {
		t.Fatalf("production without keys: err = %v, want ErrNoKeys", err)
	}
	if _, err := Load("  ", false, log); !errors.Is(err, ErrNoKeys) {
		t.Fatalf("production with blank keys: err = %v, want ErrNoKeys", err)
	}

	dev, err := Load("", true, log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "ephemeral") {
		t.Fatalf("development without keys must warn: %q", logs.String())
	}
	sealed, _ := dev.Seal([]byte("whsec_plain"), "webhook:1")
	if bytes.Contains(sealed, []byte("whsec_plain")) {
		t.Fatal("development stored the plaintext")
	}

	_, b64 := key(t)
	for _, development := range []bool{false, true} {
		ring, err := Load("k1:"+b64, development, log)
		if err != nil || ring.PrimaryID() != "k1" {
			t.Fatalf("development=%v with keys: %v", development, err)
		}
	}
	if _, err := Load("k1:short", true, log); err == nil {
		t.Fatal("a bad keyring is refused in development too")
	}
}

func TestOpenUnboundReadsValuesOfAPlainBoxUnderAnyKeyOfTheRing(t *testing.T) {
	raw, b64 := key(t)
	_, other := key(t)
	block, _ := aes.NewCipher(raw)
	aead, _ := cipher.NewGCM(block)
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	plain := aead.Seal(bytes.Clone(nonce), nonce, []byte("whsec_legacy"), nil)

	ring, err := ParseKeyring("new:" + other + ",old:" + b64)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ring.OpenUnbound(plain); err != nil || string(got) != "whsec_legacy" {
		t.Fatalf("OpenUnbound = %q, %v", got, err)
	}
	without, _ := ParseKeyring("new:" + other)
	if _, err := without.OpenUnbound(plain); !errors.Is(err, ErrOpen) {
		t.Fatalf("a ring without the key opened it: %v", err)
	}
	if _, err := ring.OpenUnbound(plain[:10]); !errors.Is(err, ErrOpen) {
		t.Fatalf("a truncated value opened: %v", err)
	}
}
