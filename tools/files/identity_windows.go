package files

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// identity is what the file system says of a file beyond os.FileInfo.
type identity struct {
	dev, ino, links uint64
	uid, gid        int
}

// fileIdentity reads the volume serial number, file index and link count of the file at path
// (NTFS has hard links too, so a file with several is written in place as on Unix). Windows
// files have no Unix owner: uid and gid are -1, which leaves the owner to the system.
func fileIdentity(path string, _ os.FileInfo) (identity, bool) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return identity{}, false
	}
	// No access rights are needed to read a file's information; backup semantics lets the
	// call open a folder too.
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return identity{}, false
	}
	defer windows.CloseHandle(h)
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &d); err != nil {
		return identity{}, false
	}
	return identity{
		dev:   uint64(d.VolumeSerialNumber),
		ino:   uint64(d.FileIndexHigh)<<32 | uint64(d.FileIndexLow),
		links: uint64(d.NumberOfLinks),
		uid:   -1, gid: -1,
	}, true
}

// processGone reports whether no process has the id pid.
func processGone(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_INVALID_PARAMETER)
	}
	windows.CloseHandle(h)
	return false
}
