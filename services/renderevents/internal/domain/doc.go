// Package domain holds the rules of the render-events service: how render and identity
// events build the read models (a job only moves forward), how usage is counted, how
// webhooks are signed, retried and filtered, which outbound addresses are allowed, and the
// ports the application needs from the store.
package domain
