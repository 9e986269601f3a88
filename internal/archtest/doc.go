// Package archtest holds tests that enforce zenbrain's dependency rules (CONVENTIONS.md §3):
// algorithms/ and pma/ stay pure (no pgx, River, db or I/O-bound zenbrain packages), db/ holds
// only generated code and its doc, and test helpers never reach non-test code.
package archtest
