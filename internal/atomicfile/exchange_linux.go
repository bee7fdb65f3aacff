package atomicfile

import "golang.org/x/sys/unix"

// exchange swaps the folders a and b in one step (renameat2 with
// RENAME_EXCHANGE), so that b is at no moment missing or half there.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
