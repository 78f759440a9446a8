package activity_test

import (
	"testing"
	"time"

	"github.com/memlab/memlab/activity"
)

// watch records what the watchers are told.
func watch(t *testing.T) <-chan string {
	t.Helper()
	seen := make(chan string, 16)
	t.Cleanup(activity.Watch(func(s string) { seen <- s }))
	return seen
}

func next(t *testing.T, seen <-chan string) string {
	t.Helper()
	select {
	case s := <-seen:
		return s
	case <-time.After(5 * time.Second):
		t.Fatal("no activity shown within 5 s")
		return ""
	}
}

func TestQuickActivityIsNeverShown(t *testing.T) {
	seen := watch(t)
	activity.Begin("quick")()
	time.Sleep(2 * activity.Delay)
	select {
	case s := <-seen:
		t.Fatalf("an activity ended before Delay was shown: %q", s)
	default:
	}
}

func TestNestedActivitiesShowTheInnermost(t *testing.T) {
	seen := watch(t)
	endOuter := activity.Begin("loading %s", "dataset1")
	if got := next(t, seen); got != "loading dataset1" {
		t.Fatalf("shown %q, want the outer activity", got)
	}
	endInner := activity.Begin("bootstrapping")
	if got := next(t, seen); got != "bootstrapping" {
		t.Fatalf("shown %q, want the inner activity", got)
	}
	if got := activity.Current(); got != "bootstrapping" {
		t.Fatalf("Current = %q", got)
	}
	endInner()
	if got := next(t, seen); got != "loading dataset1" {
		t.Fatalf("after the inner ended, shown %q, want the outer again", got)
	}
	endInner() // a second call does nothing
	endOuter()
	if got := next(t, seen); got != "" {
		t.Fatalf("after both ended, shown %q, want none", got)
	}
	select {
	case s := <-seen:
		t.Fatalf("told %q after everything ended", s)
	case <-time.After(2 * activity.Delay):
	}
}

func TestWatchTellsTheActivityInProgress(t *testing.T) {
	end := activity.Begin("building")
	defer end()
	for activity.Current() == "" {
		time.Sleep(10 * time.Millisecond)
	}
	if got := next(t, watch(t)); got != "building" {
		t.Fatalf("a new watcher was told %q, want the activity in progress", got)
	}
}
