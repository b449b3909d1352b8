package main

import "testing"

// TestSharedService runs, one after the other, the component tests that need no special
// configuration on one service: each works with tenants, jobs and endpoints of its own, so
// they do not see each other's records. Tests that need other settings, or stop the
// service, start their own.
func TestSharedService(t *testing.T) {
	h := start(t, shortRetries)
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, h *harness)
	}{
		{"TheReadAPIShowsEachCallerItsTenantOnly", testTheReadAPIShowsEachCallerItsTenantOnly},
		{"EveryEventOfSeed001IsConsumedFromTheBrokerAndShownByTheAPI", testEveryEventOfSeed001IsConsumedFromTheBrokerAndShownByTheAPI},
		{"DuplicatedAndReorderedDeliveriesGiveTheSameStateAsAnInOrderStream", testDuplicatedAndReorderedDeliveriesGiveTheSameStateAsAnInOrderStream},
		{"APoisonMessageGoesToTheDeadLetterQueueWhileTheFollowingOnesAreProcessed", testAPoisonMessageGoesToTheDeadLetterQueueWhileTheFollowingOnesAreProcessed},
		{"AnSSEClientReceivesProgressTicksLiveAndTheTerminalEventEndsItsStream", testAnSSEClientReceivesProgressTicksLiveAndTheTerminalEventEndsItsStream},
		{"AStreamOfAJobOfAnotherTenantIsNotFound", testAStreamOfAJobOfAnotherTenantIsNotFound},
		{"AnInvalidProgressTickIsDroppedWithoutDeadLetterAndTheNextValidOneIsRelayed", testAnInvalidProgressTickIsDroppedWithoutDeadLetterAndTheNextValidOneIsRelayed},
		{"AWebhookIsSignedRetriedAfterTwo500sDeliveredOnTheThirdTryAndReplayable", testAWebhookIsSignedRetriedAfterTwo500sDeliveredOnTheThirdTryAndReplayable},
		{"DuringASecretRotationDeliveriesCarryBothSignatures", testDuringASecretRotationDeliveriesCarryBothSignatures},
		{"ASuspendedTenantGetsNoDeliveries", testASuspendedTenantGetsNoDeliveries},
		{"WebhookURLsAndAccessAreChecked", testWebhookURLsAndAccessAreChecked},
		{"ConcurrentChangesOfOneEndpointGetNoServerErrorAndLeaveOneOfTheSentFilters", testConcurrentChangesOfOneEndpointGetNoServerErrorAndLeaveOneOfTheSentFilters},
		{"SimulateForATenantPrintsTheIdsTheServiceThenShows", testSimulateForATenantPrintsTheIdsTheServiceThenShows},
		// Last: it reads what the tests above made the service count.
		{"MetricsCountStreamsAndDeliveriesAndAreThoseTheREADMELists", testMetricsCountStreamsAndDeliveriesAndAreThoseTheREADMELists},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, h.on(t)) })
	}
}
