package domain

import "testing"

func TestAutonomyDecidesWhichToolsAnAgentMayCall(t *testing.T) {
	cases := []struct {
		level            Autonomy
		readOnly, writes bool
	}{
		{AutonomySuggest, false, false},
		{AutonomyDraft, true, false},
		{AutonomyActWithApproval, true, true},
		{AutonomyAutonomous, true, true},
		{Autonomy("unknown"), false, false},
	}
	for _, c := range cases {
		if got := c.level.AllowsToolCall(true); got != c.readOnly {
			t.Errorf("%s read-only tool: %v", c.level, got)
		}
		if got := c.level.AllowsToolCall(false); got != c.writes {
			t.Errorf("%s other tool: %v", c.level, got)
		}
	}
}

func TestMonogramIsTheInitialsOfUpToThreeWords(t *testing.T) {
	for name, want := range map[string]string{"Quinn Assurance": "QA", "ada": "A", "a b c d": "ABC", "élan vital": "ÉV", "  7 of nine": "7ON", "- x": "X", "--": "-"} {
		if got := Monogram(name); got != want {
			t.Errorf("Monogram(%q) = %q, want %q", name, got, want)
		}
	}
}
