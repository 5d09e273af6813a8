//go:build !unix

package sqlite

// Lock creates the database file if need be; where flock(2) does not exist
// it takes no lock, and one server per file is the operator's to keep.
func Lock(path string) (unlock func() error, err error) {
	if err := createPrivate(path); err != nil {
		return nil, err
	}
	return func() error { return nil }, nil
}
