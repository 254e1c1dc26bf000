// swift-tools-version: 6.1
import PackageDescription

/// Settings every Swift target shares. Swift 6 language mode (complete strict concurrency) is the
/// tools default; `scripts/test` builds with `-warnings-as-errors` so a warning fails CI, while a
/// downstream build of the library is not broken by a newer compiler's new warning.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "CompanionKit",
    platforms: [.iOS(.v18), .macOS(.v15)],
    products: [
        .library(name: "CompanionCore", targets: ["CompanionCore"]),
        .library(name: "CompanionCrypto", targets: ["CompanionCrypto"]),
        .library(name: "CompanionHTTP", targets: ["CompanionHTTP"]),
        .library(name: "CompanionStore", targets: ["CompanionStore"]),
        .library(name: "CompanionSync", targets: ["CompanionSync"]),
        .executable(name: "companion", targets: ["companion"]),
    ],
    targets: [
        // C libraries. On Apple platforms CryptoKit replaces OpenSSL, so the module is Linux-only.
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // SQLite for the offline store; Apple platforms import their own `SQLite3` module instead.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),

        // The kit, lowest first.
        .target(name: "CompanionCore", swiftSettings: strict),
        .target(
            name: "CompanionCrypto",
            dependencies: [
                "CompanionCore",
                .target(name: "COpenSSL", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict),
        .target(name: "CompanionHTTP", dependencies: ["CompanionCore"], swiftSettings: strict),
        .target(
            name: "CompanionStore",
            dependencies: ["CompanionCore", .target(name: "CSQLite", condition: .when(platforms: [.linux]))],
            swiftSettings: strict),
        .target(
            name: "CompanionSync", dependencies: ["CompanionCore", "CompanionHTTP", "CompanionStore"],
            swiftSettings: strict),
        .executableTarget(
            name: "StoreCrashWorker", dependencies: ["CompanionStore"], path: "Tests/StoreCrashWorker",
            swiftSettings: strict),

        // The terminal client and the benchmarks.
        .executableTarget(
            name: "companion",
            dependencies: ["CompanionCore", "CompanionCrypto", "CompanionHTTP", "CompanionStore", "CompanionSync"],
            swiftSettings: strict),
        .executableTarget(
            name: "Benchmarks", dependencies: ["CompanionCore", "CompanionHTTP", "CompanionStore"],
            path: "Benchmarks",
            swiftSettings: strict),

        // Tests. `CompanionTestSupport` finds the servers `scripts/test` started; a missing one fails loudly.
        .target(
            name: "CompanionTestSupport", dependencies: ["CompanionCore", "CompanionHTTP"],
            path: "Tests/CompanionTestSupport", swiftSettings: strict),
        .testTarget(name: "CompanionCoreTests", dependencies: ["CompanionCore"], swiftSettings: strict),
        .testTarget(name: "CompanionCryptoTests", dependencies: ["CompanionCrypto"], swiftSettings: strict),
        .testTarget(
            name: "CompanionHTTPTests",
            dependencies: ["CompanionHTTP", "CompanionCore", "CompanionTestSupport"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(
            name: "CompanionStoreTests",
            dependencies: [
                "CompanionStore", "CompanionSync", "CompanionHTTP", "CompanionCore", "CompanionTestSupport",
            ],
            swiftSettings: strict),
    ]
)
