// CompanionCrypto: filled in by the foundation issue.
