// Package clienttest holds the tests of the Go client (client/, a module of
// its own that needs only the standard library) that run it against a real
// topupd started in-process by internal/testing/topupdtest. They cannot live in
// client/: that module may not import the server. The client's own tests,
// against a stand-in server, stay beside it.
package clienttest
