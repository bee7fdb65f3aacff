package par

import "syscall"

// selfID names the calling goroutine while it is locked to its thread
// (Limited): the thread's id, a system call of a fraction of a
// microsecond. An unlocked goroutine never runs on a locked thread, so it
// never takes a limited goroutine's id.
func selfID() uint64 { return uint64(syscall.Gettid()) }
