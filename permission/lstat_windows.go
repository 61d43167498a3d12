package permission

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

func lstatMode(name string) (fs.FileMode, error) {
	fi, err := os.Lstat(name)
	if err != nil {
		return 0, err
	}
	return fi.Mode().Type(), nil
}

// lstatFile is lstatMode with the identity (volume serial number and file index) and the link
// count of a file or folder, which the hard-link search needs (NTFS has hard links, and
// making one needs no privilege). os.Lstat does not report them; the file is opened without
// following a final link and without asking for any access, and the system is asked
// (GetFileInformationByHandle). Links and other reparse points have no identity here (the
// search never counts them); a file that cannot be opened has none either, and a zero
// count is "not known", which the write check never takes for one link.
func lstatFile(name string) (fileStat, error) {
	m, err := lstatMode(name)
	if err != nil || m&(fs.ModeSymlink|fs.ModeIrregular) != 0 {
		return fileStat{mode: m}, err
	}
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return fileStat{mode: m}, nil
	}
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		nil, windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return fileStat{mode: m}, nil
	}
	defer windows.CloseHandle(h)
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &info); err != nil {
		return fileStat{mode: m}, nil
	}
	return fileStat{mode: m, links: uint64(info.NumberOfLinks), dev: uint64(info.VolumeSerialNumber),
		ino: uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)}, nil
}
