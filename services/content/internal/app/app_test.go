package app

import "testing"

func TestSafeNameKeepsAHarmlessBaseName(t *testing.T) {
	cases := map[string]string{
		"Intro Template.aep":   "Intro_Template.aep",
		"../../etc/passwd":     "passwd",
		`C:\Users\me\proj.aep`: "proj.aep",
		"ünïcødé.aep":          "ncd.aep",
		"...":                  "fallback",
		"":                     "fallback",
	}
	for in, want := range cases {
		if got := safeName(in, "fallback"); got != want {
			t.Errorf("safeName(%q) = %q, want %q", in, got, want)
		}
	}
}
