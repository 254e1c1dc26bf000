// CompanionCore
