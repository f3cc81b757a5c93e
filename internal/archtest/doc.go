// Package archtest holds the tests that enforce the house's layout by
// machine: the import arrows that must never exist (from go list) and the
// rule that every outbound HTTP call goes through netguard (from go/ast).
// It has no code of its own and nothing may import it.
package archtest
