// The terminal client; commands arrive with the foundation issue.
