// Benchmarks arrive with the foundation issue.
