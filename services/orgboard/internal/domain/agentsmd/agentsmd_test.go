package agentsmd

import (
	"slices"
	"strings"
	"testing"

	"github.com/videotpl/platform/pkg/errs"
)

const valid = `---
key: qa-engineer
version: 1.2.0
name: QA engineer
description: Tests what the team builds.
skills: [testing, exploratory]
tools:
  - browser
autonomy: draft
---
# QA engineer

You test every change before it ships.
`

func TestParseReadsEveryFrontmatterKeyAndTheBody(t *testing.T) {
	p, err := Parse([]byte(valid))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if p.Key != "qa-engineer" || p.Version != "1.2.0" || p.Name != "QA engineer" || p.Description != "Tests what the team builds." {
		t.Fatalf("scalars = %+v", p)
	}
	if !slices.Equal(p.Skills, []string{"testing", "exploratory"}) || !slices.Equal(p.Tools, []string{"browser"}) {
		t.Fatalf("lists = %v %v", p.Skills, p.Tools)
	}
	if p.Autonomy != AutonomyDraft {
		t.Fatalf("autonomy = %q", p.Autonomy)
	}
	if p.Body != "# QA engineer\n\nYou test every change before it ships.\n" {
		t.Fatalf("body = %q", p.Body)
	}
	if p.Content != valid {
		t.Fatal("content must be the whole file")
	}
}

func TestParseDefaultsAutonomyToSuggestAndListsToEmpty(t *testing.T) {
	p, err := Parse([]byte("---\nkey: a\nversion: 0.1.0-beta.1+build.7\nname: A\n---\nGuide.\r\n"))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if p.Autonomy != AutonomySuggest || p.Skills == nil || len(p.Skills) != 0 || len(p.Tools) != 0 {
		t.Fatalf("defaults = %+v", p)
	}
}

func TestParseAcceptsCRLFAndAByteOrderMark(t *testing.T) {
	doc := "\uFEFF---\r\nkey: crlf\r\nversion: 2.0.0\r\nname: CRLF\r\n---\r\nBody\r\n"
	p, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if p.Key != "crlf" || p.Body != "Body\r\n" {
		t.Fatalf("got %+v", p)
	}
}

func TestParseRefusesDefectsWithTheirReason(t *testing.T) {
	cases := []struct {
		name, doc, field, message string
	}{
		{"no frontmatter", "# Just markdown\n", "body.frontmatter", "is missing"},
		{"unclosed frontmatter", "---\nkey: a\nversion: 1.0.0\n", "body.frontmatter", "not closed"},
		{"missing key", "---\nversion: 1.0.0\nname: A\n---\nB\n", "body.frontmatter.key", "is required"},
		{"missing version", "---\nkey: a\nname: A\n---\nB\n", "body.frontmatter.version", "is required"},
		{"empty frontmatter", "---\n---\nB\n", "body.frontmatter.key", "is required"},
		{"missing name", "---\nkey: a\nversion: 1.0.0\n---\nB\n", "body.frontmatter.name", "is required"},
		{"version without patch", "---\nkey: a\nversion: \"1.0\"\nname: A\n---\nB\n", "body.frontmatter.version", "not a semantic version"},
		{"version as a number", "---\nkey: a\nversion: 1.0\nname: A\n---\nB\n", "body.frontmatter.version", "not a semantic version"},
		{"version with a v", "---\nkey: a\nversion: v1.0.0\nname: A\n---\nB\n", "body.frontmatter.version", "not a semantic version"},
		{"version with leading zero", "---\nkey: a\nversion: 01.0.0\nname: A\n---\nB\n", "body.frontmatter.version", "not a semantic version"},
		{"unknown key", "---\nkey: a\nversion: 1.0.0\nname: A\nmodel: gpt\n---\nB\n", "body.frontmatter.model", "not a known key"},
		{"duplicate key", "---\nkey: a\nkey: b\nversion: 1.0.0\nname: A\n---\nB\n", "body.frontmatter", "already defined"},
		{"upper-case key", "---\nkey: QA\nversion: 1.0.0\nname: A\n---\nB\n", "body.frontmatter.key", "must match"},
		{"key too long", "---\nkey: " + strings.Repeat("a", 65) + "\nversion: 1.0.0\nname: A\n---\nB\n", "body.frontmatter.key", "at most 64"},
		{"skills not a list", "---\nkey: a\nversion: 1.0.0\nname: A\nskills: testing\n---\nB\n", "body.frontmatter.skills", "list of strings"},
		{"tools of maps", "---\nkey: a\nversion: 1.0.0\nname: A\ntools: [{x: 1}]\n---\nB\n", "body.frontmatter.tools", "list of strings"},
		{"name as a list", "---\nkey: a\nversion: 1.0.0\nname: [A]\n---\nB\n", "body.frontmatter.name", "must be a string"},
		{"unknown autonomy", "---\nkey: a\nversion: 1.0.0\nname: A\nautonomy: yolo\n---\nB\n", "body.frontmatter.autonomy", "must be one of"},
		{"empty body", "---\nkey: a\nversion: 1.0.0\nname: A\n---\n  \n", "body", "must not be empty"},
		{"not a mapping", "---\n- a\n- b\n---\nB\n", "body.frontmatter", "mapping"},
		{"bad yaml", "---\nkey: [a\n---\nB\n", "body.frontmatter", "not valid YAML"},
		{"anchors", "---\nkey: &k a\nversion: 1.0.0\nname: *k\n---\nB\n", "body.frontmatter", "anchors"},
		{"invalid utf-8", "---\nkey: a\nversion: 1.0.0\nname: \xff\n---\nB\n", "body", "UTF-8"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc))
			e, ok := errs.As(err)
			if !ok || e.Kind != errs.Invalid {
				t.Fatalf("err = %v, want an Invalid error", err)
			}
			for _, f := range e.Fields {
				if f.Field == c.field && strings.Contains(f.Message, c.message) {
					return
				}
			}
			t.Fatalf("fields = %+v, want %s containing %q", e.Fields, c.field, c.message)
		})
	}
}

func TestParseRefusesAFileAboveTheLimitAsTooLarge(t *testing.T) {
	doc := "---\nkey: a\nversion: 1.0.0\nname: A\n---\n" + strings.Repeat("x", MaxSize)
	if _, err := Parse([]byte(doc)); errs.KindOf(err) != errs.TooLarge {
		t.Fatalf("err = %v, want TooLarge", err)
	}
}

func TestCompareVersionsPutsPreReleasesBelowTheirRelease(t *testing.T) {
	ordered := []string{"0.9.9", "1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-beta", "1.0.0", "1.0.1", "1.10.0", "2.0.0"}
	for i := 1; i < len(ordered); i++ {
		if CompareVersions(ordered[i-1], ordered[i]) >= 0 {
			t.Fatalf("%s should sort below %s", ordered[i-1], ordered[i])
		}
	}
	if CompareVersions("1.0.0+a", "1.0.0+b") != 0 {
		t.Fatal("build metadata must not order versions")
	}
}

// FuzzParse checks that the parser never panics, classifies every failure as Invalid or
// TooLarge, and that what it accepts satisfies the frontmatter rules and round-trips: the body
// is a suffix of the content.
func FuzzParse(f *testing.F) {
	f.Add([]byte(valid))
	f.Add([]byte("---\nkey: a\nversion: 1.0.0\nname: A\n---\nB\n"))
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("---\nkey: &a [*a]\n---\nx"))
	f.Add([]byte("---\r\nkey: a\r\nversion: 1.0.0-rc.1\r\nname: A\r\nskills: [a, a, b]\r\n---\r\nB"))
	f.Add([]byte("no frontmatter"))
	f.Add([]byte("---\nkey: a\nversion: 1.0.0\nname: A\nunknown: 1\n---\nB\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(data)
		if err != nil {
			if k := errs.KindOf(err); k != errs.Invalid && k != errs.TooLarge {
				t.Fatalf("kind = %v for %v", k, err)
			}
			if e, ok := errs.As(err); ok && e.Kind == errs.Invalid && len(e.Fields) == 0 {
				t.Fatalf("an invalid file must name a field: %v", err)
			}
			return
		}
		if !ValidKey(p.Key) || CheckVersion(p.Version) != "" || p.Name == "" || !ValidAutonomy(p.Autonomy) {
			t.Fatalf("accepted an invalid profile: %+v", p)
		}
		if strings.TrimSpace(p.Body) == "" || !strings.HasSuffix(p.Content, p.Body) {
			t.Fatalf("body %q is not a non-empty suffix of the content", p.Body)
		}
		if p.Skills == nil || p.Tools == nil {
			t.Fatal("lists must not be nil")
		}
	})
}

func TestParseErrorsNameTheLinesOfTheFile(t *testing.T) {
	cases := map[string]struct{ doc, want string }{
		"a duplicate key":                 {"---\nkey: a\nkey: b\nversion: 1.0.0\nname: A\n---\nB\n", `line 3: mapping key "key" already defined at line 2`},
		"an unclosed flow sequence":       {"---\nkey: a\nversion: 1.0.0\nname: [a\n---\nB\n", "line 4: did not find expected ',' or ']'"},
		"a bad block mapping":             {"---\nkey: a\n  version: 1.0.0\nname: A\n---\nB\n", "line 3: mapping values are not allowed in this context"},
		"a parser error on the first key": {"---\n[a: b\n---\nB\n", "line 2: did not find expected ',' or ']'"},
		"a byte order mark and CRLF":      {"\uFEFF---\r\nkey: a\r\nversion: 1.0.0\r\nkey: b\r\n---\r\nB\r\n", `line 4: mapping key "key" already defined at line 2`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Parse([]byte(c.doc))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to name %q", err, c.want)
			}
		})
	}
}
