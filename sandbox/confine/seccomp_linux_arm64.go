package confine

const (
	auditArch       = 0xc00000b7 // AUDIT_ARCH_AARCH64
	sysSocket       = 198
	sysSeccomp      = 277
	sysIoUringSetup = 425
)
