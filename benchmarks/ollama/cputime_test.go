package ollama

import "syscall"

// cpuNanos is the process's CPU time (user + system, every thread: the
// collector's too), so figures compare with the Python column, which is
// CPU time as well, and hold on a machine shared with other jobs.
func cpuNanos() int64 {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		panic(err)
	}
	return usage.Utime.Nano() + usage.Stime.Nano()
}
