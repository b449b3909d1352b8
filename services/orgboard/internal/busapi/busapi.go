// Package busapi is the orgboard service's consumed messages: the handlers that decode each
// event or command of its queue and hand it to the application (as httpapi does for HTTP
// requests). bus.Start runs them with the forwarder that moves the outbox (the events of every
// audited change) to the broker.
package busapi
