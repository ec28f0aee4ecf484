package rt

import "fmt"

// Error is what the reference raises, by its Python class name (ValueError,
// KeyError, RuntimeError, TypeError, AttributeError).
type Error struct {
	Type    string
	Message string
}

func (e *Error) Error() string { return e.Type + ": " + e.Message }

// Errorf builds an *Error carrying the Python class name.
func Errorf(pyType, format string, args ...any) error {
	return &Error{Type: pyType, Message: fmt.Sprintf(format, args...)}
}

// PythonType is the Python class name of err ("" when err is not an *Error).
func PythonType(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Type
	}
	return ""
}
