package publish

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestWorkers_NextCallReusesAWaitingGoroutine(t *testing.T) {
	w := newWorkers()
	hold := make(chan struct{})
	w.run(func() { <-hold }) // keeps a call in flight
	done := make(chan struct{})
	w.run(func() { close(done) })
	<-done
	// The second call's goroutine waits for the next one while the first
	// call runs: a hand-off succeeds without a new goroutine.
	deadline := time.Now().Add(5 * time.Second)
	ran := make(chan struct{})
	w.mu.Lock()
	w.busy++ // as run does before handing over
	w.mu.Unlock()
	for handed := false; !handed; {
		select {
		case w.idle <- func() { close(ran) }:
			handed = true
		default:
			if time.Now().After(deadline) {
				t.Fatal("no goroutine waited for the next call")
			}
			time.Sleep(time.Millisecond)
		}
	}
	<-ran
	close(hold)
}

func TestWorkers_NoGoroutineLeftWhenNoCallRuns(t *testing.T) {
	// A bubble fails when goroutines outlive its function: the waiting
	// goroutines must end with the last call.
	synctest.Test(t, func(t *testing.T) {
		w := newWorkers()
		release := make(chan struct{})
		for range 8 {
			w.run(func() { <-release })
		}
		close(release)
		synctest.Wait()
		w.run(func() {})
		synctest.Wait()
	})
}

func TestWorkers_ConcurrentCallsEachRun(t *testing.T) {
	w := newWorkers()
	const n = 64
	release := make(chan struct{})
	var ran atomic.Int64
	doneAll := make(chan struct{}, n)
	for range n {
		w.run(func() {
			<-release // every call blocks: none may wait behind another
			ran.Add(1)
			doneAll <- struct{}{}
		})
	}
	close(release)
	for range n {
		select {
		case <-doneAll:
		case <-time.After(5 * time.Second):
			t.Fatalf("%d of %d calls ran", ran.Load(), n)
		}
	}
	for range n { // and again on the goroutines that waited
		w.run(func() { doneAll <- struct{}{} })
	}
	for range n {
		<-doneAll
	}
}
