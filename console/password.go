package console

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// argon2id's cost: OWASP's minimum for argon2id (19 MiB, 2 passes, one lane).
const (
	argonMemory  = 19 * 1024
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
)

// MinPasswordLen is the shortest console password taken.
const MinPasswordLen = 12

// hashPassword returns password's argon2id hash in the PHC string format.
func hashPassword(password string) string {
	salt := make([]byte, 16)
	rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// checkPassword reports whether password matches an encoded hash; a hash
// it cannot read never matches.
func checkPassword(encoded, password string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var version int
	var memory, passes uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &passes, &threads); err != nil || threads == 0 || passes == 0 {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, passes, memory, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// dummyHash is checked against when a name has no password, so that a
// login takes as long whether or not the name exists.
var dummyHash = hashPassword("no operator has this password")

// checkNewPassword says what is wrong with a password chosen at setup.
func checkNewPassword(name, password, again string) error {
	switch {
	case password != again:
		return errors.New("the two passwords differ")
	case len([]rune(password)) < MinPasswordLen:
		return fmt.Errorf("a password needs at least %d characters", MinPasswordLen)
	case len(password) > 1024:
		return errors.New("a password may have at most 1,024 bytes")
	case strings.EqualFold(password, name):
		return errors.New("the password may not be the name")
	}
	return nil
}
