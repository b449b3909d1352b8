package httpx

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
)

// TestTheUUIDFormatIsKinOpenAPIs: isUUID accepts exactly what kin-openapi's RFC 9562 pattern
// accepts, on UUIDs of every version and variant, in either case, the nil and max UUIDs, and
// every single-character change of them.
func TestTheUUIDFormatIsKinOpenAPIs(t *testing.T) {
	re := regexp.MustCompile(openapi3.FormatOfStringForUUIDOfRFC9562)
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := []string{"", "0", "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff",
		"FFFFFFFF-ffff-FFFF-ffff-FFFFFFFFFFFF", "00000000-0000-0000-0000-00000000000f",
		"01a20c2b312477a7ab0b1e19a0f91eaf", "{01a20c2b-3124-77a7-ab0b-1e19a0f91eaf}",
		"01a20c2b-3124-77a7-ab0b-1e19a0f91eaf ", "01A20C2B-3124-77A7-AB0B-1E19A0F91EAF"}
	for range 16 {
		var u uuid.UUID
		for i := range u {
			u[i] = byte(rng.UintN(256))
		}
		inputs = append(inputs, u.String()) // any version and variant
		u[6] = u[6]&0x0f | byte(rng.UintN(9))<<4
		u[8] = u[8]&0x3f | 0x80
		inputs = append(inputs, u.String())
	}
	alphabet := "0123456789abcdefABCDEFgG-{ \x00é"
	for _, s := range inputs[:len(inputs):len(inputs)] {
		for i := range len(s) {
			for _, c := range []byte(alphabet) {
				inputs = append(inputs, s[:i]+string(c)+s[i+1:])
			}
		}
	}
	var accepted int
	for _, s := range inputs {
		want := re.MatchString(s)
		if got := isUUID(s); got != want {
			t.Fatalf("isUUID(%q) = %v, kin-openapi's pattern says %v", s, got, want)
		}
		if want {
			accepted++
		}
	}
	if accepted < len(inputs)/10 {
		t.Fatalf("only %d of %d inputs are UUIDs: the comparison hardly tries the accepting side", accepted, len(inputs))
	}
}
