// locklab-peer-go: goroutines measured the way locklab-bench measures the
// lightweight-thread runtime (docs/threads.md, "Peers"; bench/threads.sh runs
// it side by side with them).  Standard library only: built offline by CMake
// when a Go toolchain is found.
//
//	locklab-peer-go WORKLOAD [--threads P] [--duration S] [--runs R] [--round N]
//
//	null-thread    P chains of goroutines (GOMAXPROCS = P), each waiting for its
//	               predecessor to finish (the join: a channel it closes last),
//	               counting itself and starting the next (bench/wl_threads.c's
//	               chain with join=1).  A warm-up round of min(round, 20000),
//	               then rounds of `round` (default 100000) for the duration.
//	               ns_per_thread = wall time / goroutines.
//	thread-switch  2 goroutines per P calling runtime.Gosched in a loop:
//	               ns_per_switch = wall time x P / yields.
//
// Output: one JSON object per run, one line each, with locklab-bench's keys
// (workload, lock, alternative, threads, duration_s, ops, throughput_ops_s,
// exclusion_ok, the extras) and run, runs.  Bad input: one line, exit 2.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

func bad(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "locklab-peer-go: "+format+"\n", a...)
	os.Exit(2)
}

type chain struct {
	left, ran uint64
	done      *sync.WaitGroup
}

// One goroutine of a chain: join the predecessor, count, start the successor, finish.
func cycle(c *chain, prev chan struct{}) {
	if prev != nil {
		<-prev
	}
	c.ran++
	c.left--
	if c.left == 0 {
		c.done.Done()
		return
	}
	mine := make(chan struct{})
	go cycle(c, mine)
	close(mine) // finished: the successor's join returns
}

func roundOf(chains []chain, n uint64) {
	var wg sync.WaitGroup
	p := uint64(len(chains))
	for i := range chains {
		c := &chains[i]
		c.left = n / p
		if uint64(i) < n%p {
			c.left++
		}
		if c.left == 0 {
			continue
		}
		c.done = &wg
		wg.Add(1)
		go cycle(c, nil)
	}
	wg.Wait()
}

func nullThread(p int, duration time.Duration, round uint64, run, runs int) {
	chains := make([]chain, p)
	warm := round
	if warm > 20000 {
		warm = 20000
	}
	roundOf(chains, warm)
	for i := range chains {
		chains[i].ran = 0
	}
	var threads uint64
	t0 := time.Now()
	for {
		roundOf(chains, round)
		threads += round
		if time.Since(t0) >= duration {
			break
		}
	}
	wall := time.Since(t0)
	var ran uint64
	per := ""
	for i := range chains {
		ran += chains[i].ran
		if i > 0 {
			per += ","
		}
		per += strconv.FormatUint(chains[i].ran, 10)
	}
	ns := float64(wall.Nanoseconds())
	fmt.Printf("{\"workload\":\"null-thread\",\"lock\":\"none\",\"alternative\":\"goroutine\",\"threads\":%d,"+
		"\"duration_s\":%.6f,\"ops\":%d,\"throughput_ops_s\":%.1f,\"per_thread_ops\":[%s],\"exclusion_ok\":%t,"+
		"\"ns_per_thread\":%.3f,\"chains\":%d,\"run\":%d,\"runs\":%d}\n",
		p, ns/1e9, threads, float64(threads)/(ns/1e9), per, ran == threads, ns/float64(threads), p, run, runs)
}

func threadSwitch(p int, duration time.Duration, run, runs int) {
	var stop atomic.Bool
	yields := make([]uint64, 2*p)
	var wg sync.WaitGroup
	t0 := time.Now()
	deadline := t0.Add(duration)
	for i := range yields {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			n := uint64(0)
			for !stop.Load() {
				runtime.Gosched()
				n++
				if n&1023 == 0 && time.Now().After(deadline) {
					stop.Store(true)
				}
			}
			yields[i] = n
		}(i)
	}
	wg.Wait()
	wall := float64(time.Since(t0).Nanoseconds())
	var sum uint64
	for _, y := range yields {
		sum += y
	}
	fmt.Printf("{\"workload\":\"thread-switch\",\"lock\":\"none\",\"alternative\":\"goroutine\",\"threads\":%d,"+
		"\"duration_s\":%.6f,\"ops\":%d,\"throughput_ops_s\":%.1f,\"exclusion_ok\":true,"+
		"\"ns_per_switch\":%.3f,\"run\":%d,\"runs\":%d}\n",
		p, wall/1e9, sum, float64(sum)/(wall/1e9), wall*float64(p)/float64(max(sum, 1)), run, runs)
}

func number(opt string, args []string, i int, lo, hi float64, integer bool) float64 {
	if i+1 >= len(args) {
		bad("option %s needs a value", opt)
	}
	v := args[i+1]
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !(x >= lo && x <= hi) || (integer && x != float64(int64(x))) {
		kind := "a number"
		if integer {
			kind = "an integer"
		}
		bad("bad value '%s' for %s (valid: %s in %g..%g)", v, opt, kind, lo, hi)
	}
	return x
}

func main() {
	workload := ""
	p, runs := 1, 1
	duration := 1.0
	round := uint64(100000)
	args := os.Args
	for i := 1; i < len(args); i++ {
		switch a := args[i]; a {
		case "--threads":
			p = int(number(a, args, i, 1, 4096, true))
			i++
		case "--duration":
			duration = number(a, args, i, 0.001, 3600, false)
			i++
		case "--runs":
			runs = int(number(a, args, i, 1, 256, true))
			i++
		case "--round":
			round = uint64(number(a, args, i, 1, 1e9, true))
			i++
		default:
			if len(a) > 0 && a[0] == '-' {
				bad("unknown option '%s' (valid: --threads, --duration, --runs, --round)", a)
			}
			if workload != "" {
				bad("unexpected argument '%s'", a)
			}
			workload = a
		}
	}
	if workload != "null-thread" && workload != "thread-switch" {
		bad("unknown workload '%s' (valid: null-thread, thread-switch)", workload)
	}
	runtime.GOMAXPROCS(p)
	d := time.Duration(duration * 1e9)
	for r := 1; r <= runs; r++ {
		if workload == "null-thread" {
			nullThread(p, d, round, r, runs)
		} else {
			threadSwitch(p, d, r, runs)
		}
	}
}
