package store

import "testing"

// A board's items array released twice is handed back once: two later boards never share it.
func TestABoardsItemsAreHandedBackOnce(t *testing.T) {
	_, release := boardItems(16)
	release()
	release()
	a, _ := boardItems(16)
	b, _ := boardItems(16)
	if a == b {
		t.Fatal("two boards got the same items array")
	}
	if len(*a) != 0 || cap(*a) < 16 || len(*b) != 0 || cap(*b) < 16 {
		t.Fatalf("arrays of %d/%d and %d/%d items; want empty of 16 or more", len(*a), cap(*a), len(*b), cap(*b))
	}
}
