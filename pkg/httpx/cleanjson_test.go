package httpx

import (
	"testing"
)

// TestACleanBodyIsOneTheWalkFindsNothingIn: guardJSON skips the token walk for documents cleanJSON
// accepts; for every document and every single insertion into it of a character that can
// matter (NUL raw or escaped, invalid or multi-byte UTF-8, escapes, quotes, brackets, trailing
// data), a clean document is one in which the walk names no string and finds nothing trailing,
// which is what the skip relies on.
func TestACleanBodyIsOneTheWalkFindsNothingIn(t *testing.T) {
	docs := []string{
		`{"status":"in_review"}`,
		`{"name":"Intro","tags":["a","b"],"n":1.5e3,"ok":true,"none":null,"nested":{"k":[{"v":"é"}]}}`,
		`["x",{"y":"z"}]`, `"text"`, `12`, ` {"a" : "b"} `, `{}`,
	}
	inserts := []string{"\x00", `\u0000`, `\u0000`[:5], `\\u0000`, `\ud800`, `\\`, `\"`, "\xff", "\xc3", "é",
		`"`, `{`, `}`, `[`, `]`, `,`, `:`, ` `, `0`, `{"a":1}`, `"\u0000"`, "\"\x00\"", "\"\xfe\""}
	var clean, dirty int
	check := func(doc string) {
		fields, err := walkJSON([]byte(doc))
		found := len(fields) > 0 || err != nil
		if isClean := cleanJSON([]byte(doc)); isClean {
			clean++
			if found {
				t.Fatalf("%q is taken as clean, but the walk finds %v, %v", doc, fields, err)
			}
		} else if found {
			dirty++
		}
	}
	for _, d := range docs {
		check(d)
		for i := 0; i <= len(d); i++ {
			for _, in := range inserts {
				check(d[:i] + in + d[i:])
			}
		}
	}
	if clean < 100 || dirty < 100 {
		t.Fatalf("%d clean documents and %d with findings: too few of one kind to compare", clean, dirty)
	}
}
