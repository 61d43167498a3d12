package sandbox

import "errors"

// landlockABI: Landlock is Linux's.
func landlockABI() (int, error) { return 0, errors.New("Landlock is Linux's; macOS uses Seatbelt") }
