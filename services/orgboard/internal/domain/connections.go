package domain

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// ApiConfig is a model connection. KeySealed is the sealed key (nil when none); it never
// leaves the service.
type ApiConfig struct {
	ID             uuid.UUID
	OrganizationID uuid.UUID
	Name           string
	Provider       string
	Endpoint       *string
	Model          string
	KeySealed      []byte
	KeyHint        *string
	CreatedBy      uuid.UUID
	CreatedAt      time.Time
}

// The providers of a model connection.
const (
	ProviderStub        = "stub"
	ProviderCustom      = "custom"
	ProviderOpenAI      = "openai"
	ProviderAnthropic   = "anthropic"
	ProviderAzureOpenAI = "azure_openai"
	ProviderGemini      = "gemini"
	ProviderMistral     = "mistral"
	ProviderGroq        = "groq"
	ProviderOpenRouter  = "openrouter"
	ProviderOllama      = "ollama"
	ProviderLMStudio    = "lmstudio"
	ProviderLlamaCpp    = "llamacpp"
	ProviderVLLM        = "vllm"
)

// defaultEndpoints are the public base URLs of hosted vendors; {base}/v1/chat/completions is
// their OpenAI-compatible chat-completions URL.
var defaultEndpoints = map[string]string{
	ProviderOpenAI:     "https://api.openai.com",
	ProviderAnthropic:  "https://api.anthropic.com",
	ProviderMistral:    "https://api.mistral.ai",
	ProviderGroq:       "https://api.groq.com/openai",
	ProviderOpenRouter: "https://openrouter.ai/api",
	// Gemini's OpenAI-compatible API has no /v1 segment; the gateway knows.
	ProviderGemini: "https://generativelanguage.googleapis.com/v1beta/openai",
}

// endpointRequired are the providers whose base URL only the organization knows.
var endpointRequired = map[string]bool{ProviderCustom: true, ProviderAzureOpenAI: true, ProviderOllama: true,
	ProviderLMStudio: true, ProviderLlamaCpp: true, ProviderVLLM: true}

// KnownProvider reports whether p is a provider.
func KnownProvider(p string) bool {
	_, hosted := defaultEndpoints[p]
	return p == ProviderStub || hosted || endpointRequired[p]
}

// ProviderNeedsEndpoint reports whether a connection of provider p must name its endpoint.
func ProviderNeedsEndpoint(p string) bool { return endpointRequired[p] }

// DefaultEndpoint is the vendor's public base URL of a hosted provider ("" for the others).
func DefaultEndpoint(p string) string { return defaultEndpoints[p] }

// ModelConnection is a model connection with its key opened, ready to call.
type ModelConnection struct {
	Provider string
	Endpoint string // base URL; empty for stub
	Model    string
	APIKey   string // empty when none is stored
}

// ChatMessage is one message of a chat-completions conversation.
type ChatMessage struct {
	Role    string
	Content string
}

// ModelAnswer is a model's answer.
type ModelAnswer struct {
	Text  string
	Model string // the model the server says answered (the requested one when it does not say)
}

// ModelGateway calls model connections. Its errors name no key.
type ModelGateway interface {
	Complete(ctx context.Context, conn ModelConnection, messages []ChatMessage) (ModelAnswer, error)
}

// ConnectionStore keeps model connections.
type ConnectionStore interface {
	InsertApiConfig(ctx context.Context, c ApiConfig) error
	GetApiConfig(ctx context.Context, id uuid.UUID) (ApiConfig, error)
	ListApiConfigs(ctx context.Context, org uuid.UUID) ([]ApiConfig, error)
	// DeleteApiConfig is a Conflict while an agent uses the connection.
	DeleteApiConfig(ctx context.Context, id uuid.UUID) error
}

// KeyHint shows the last 4 characters of a key; a key of fewer than 8 characters shows none
// of them ("****"), so that a hint never gives away most of a short key.
func KeyHint(key string) string {
	if utf8.RuneCountInString(key) < 8 {
		return "****"
	}
	r := []rune(key)
	return string(r[len(r)-4:])
}
