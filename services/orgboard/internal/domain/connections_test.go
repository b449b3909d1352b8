package domain

import "testing"

func TestKeyHintShowsTheLastFourCharactersOfLongKeysOnly(t *testing.T) {
	for key, want := range map[string]string{"sk-1234567890abcd": "abcd", "short": "****", "12345678": "5678", "ключ-секрет-ёжик": "ёжик"} {
		if got := KeyHint(key); got != want {
			t.Errorf("KeyHint(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestEveryProviderHasADefaultOrARequiredEndpoint(t *testing.T) {
	for _, p := range []string{ProviderStub, ProviderCustom, ProviderOpenAI, ProviderAnthropic, ProviderAzureOpenAI, ProviderGemini,
		ProviderMistral, ProviderGroq, ProviderOpenRouter, ProviderOllama, ProviderLMStudio, ProviderLlamaCpp, ProviderVLLM} {
		if !KnownProvider(p) {
			t.Errorf("%s unknown", p)
		}
		if !ProviderNeedsEndpoint(p) && p != ProviderStub && DefaultEndpoint(p) == "" {
			t.Errorf("%s has neither a default nor a required endpoint", p)
		}
	}
	if KnownProvider("skynet") {
		t.Error("unknown provider accepted")
	}
}
