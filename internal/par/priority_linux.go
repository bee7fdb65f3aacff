package par

import "syscall"

// backgroundSteps is how many nice steps Background's threads run below
// the thread that starts them (at most nice 19, the lowest priority of
// the normal scheduling class). Ten steps weigh a thread a tenth of one
// at the process's priority (the kernel's weights 1024 against 110 from
// nice 0 to 10): a thread of the process that wakes up (a prediction) takes
// its core at once, while the background work still gets its share
// against other processes of the machine at the process's own priority.
const backgroundSteps = 10

// lowerPriority lowers the calling thread's priority backgroundSteps
// below its own (the goroutine is locked to its thread): on Linux
// setpriority with a thread id sets that thread's nice value alone. A
// refusal leaves it as it is.
func lowerPriority() {
	tid := syscall.Gettid()
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, tid)
	if err != nil {
		return
	}
	nice := 20 - prio // the system call's value is 20 - nice
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, min(19, nice+backgroundSteps))
}
