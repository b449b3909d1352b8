// Package busapi is the orgboard's messaging transport: it decodes the commands the service
// sends itself through the bus and hands them to the application, as httpapi does for HTTP
// requests.
package busapi
