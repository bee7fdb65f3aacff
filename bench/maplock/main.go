//go:build linux

// Command maplock measures how long a thread of normal priority waits to
// map and touch 1 MiB of fresh memory while a thread ten nice steps lower
// allocates 200 MB buffers as a served model's online learning does
// (internal/bigmem), with two busy threads keeping both cores taken:
//
//	go run ./bench/maplock -mode advised     // bigmem's mapping hints given
//	go run ./bench/maplock -mode background  // within par.Background: none
//
// With the hints (MADV_POPULATE_WRITE maps the whole buffer in one call,
// holding the process's memory-map lock throughout) the low-priority
// thread, starved of CPU while it holds the lock, stalls the others' page
// faults: on the project's 2-core machine, under load, the worst wait was
// 9.3 s against 34 ms without the hints (docs/serving.md).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sort"
	"syscall"
	"time"

	"github.com/scn2d/scn/internal/bigmem"
	"github.com/scn2d/scn/internal/par"
)

func main() {
	mode := flag.String("mode", "background", "advised: the learner's thread lowered by hand, bigmem's hints given; background: par.Background, no hints")
	dur := flag.Duration("t", 15*time.Second, "how long to probe")
	flag.Parse()
	if *mode != "advised" && *mode != "background" {
		fmt.Fprintln(os.Stderr, "maplock: -mode advised or background")
		os.Exit(2)
	}
	stop := make(chan struct{})
	learner := func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			b := bigmem.Float64s(25_000_000) // 200 MB: G at L = 5000
			for i := 0; i < len(b); i += 512 {
				b[i] = 1
			}
			runtime.GC()
		}
	}
	go func() {
		if *mode == "background" {
			par.Background(1, learner)
			return
		}
		runtime.LockOSThread()
		tid := syscall.Gettid()
		if prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid); err == nil {
			_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, min(19, 20-prio+10))
		}
		learner()
	}()
	for range 2 { // normal-priority work that keeps the cores busy
		go func() {
			x := 0.0
			for {
				select {
				case <-stop:
					return
				default:
				}
				for j := range 1_000_000 {
					x += float64(j)
				}
			}
		}()
	}
	var lat []time.Duration
	for end := time.Now().Add(*dur); time.Now().Before(end); {
		t0 := time.Now()
		b, err := syscall.Mmap(-1, 0, 1<<20, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
		if err != nil {
			fmt.Fprintln(os.Stderr, "maplock:", err)
			os.Exit(1)
		}
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		_ = syscall.Munmap(b)
		lat = append(lat, time.Since(t0))
		time.Sleep(2 * time.Millisecond)
	}
	close(stop)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	n := len(lat)
	fmt.Printf("%s: %d probes, p50 %v, p99 %v, max %v\n", *mode, n, lat[n/2], lat[n*99/100], lat[n-1])
}
