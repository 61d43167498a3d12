package permission

import "syscall"

const sysFstatat = syscall.SYS_NEWFSTATAT
