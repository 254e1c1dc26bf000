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
        .library(name: "CompanionAuth", targets: ["CompanionAuth"]),
        .library(name: "CompanionStore", targets: ["CompanionStore"]),
        .library(name: "CompanionSync", targets: ["CompanionSync"]),
        .library(name: "CompanionLinks", targets: ["CompanionLinks"]),
        .library(name: "CompanionBridge", targets: ["CompanionBridge"]),
        .library(name: "CompanionVault", targets: ["CompanionVault"]),
        .library(name: "CompanionScreen", targets: ["CompanionScreen"]),
        .library(name: "CompanionApp", targets: ["CompanionApp"]),
        .library(name: "AllauthAdapter", targets: ["AllauthAdapter"]),
        .library(name: "OmnigentCore", targets: ["OmnigentCore"]),
        .library(name: "CertainCore", targets: ["CertainCore"]),
        .library(name: "MainworthyCore", targets: ["MainworthyCore"]),
        .library(name: "PrompTugalCore", targets: ["PrompTugalCore"]),
        .library(name: "HomeAssistantCore", targets: ["HomeAssistantCore"]),
        .executable(name: "companion", targets: ["companion"]),
    ],
    targets: [
        // C libraries. On Apple platforms CryptoKit replaces OpenSSL and the SDK ships zlib, so both are Linux-only.
        .systemLibrary(
            name: "COpenSSL", path: "Sources/COpenSSL", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // libcurl for the Linux transport; Apple platforms use URLSession.
        .systemLibrary(
            name: "CCurl", path: "Sources/CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // libsodium, only to check the kit's own NaCl secretbox byte for byte (tests and the fuzz target).
        .systemLibrary(
            name: "CSodium", path: "Sources/CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),

        // The kit, lowest first. A module depends only on modules above it in this list.
        .target(name: "CompanionCore", swiftSettings: strict),
        .target(
            name: "CompanionCrypto",
            dependencies: ["CompanionCore", .target(name: "COpenSSL", condition: .when(platforms: [.linux]))],
            swiftSettings: strict),
        .target(
            name: "CompanionHTTP",
            dependencies: [
                "CompanionCore", "CompanionCrypto", .target(name: "CCurl", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict),
        .target(
            name: "CompanionAuth", dependencies: ["CompanionCore", "CompanionCrypto", "CompanionHTTP"],
            swiftSettings: strict),
        .target(
            name: "CompanionStore",
            dependencies: ["CompanionCore", .target(name: "CSQLite", condition: .when(platforms: [.linux]))],
            swiftSettings: strict),
        .target(
            name: "CompanionSync", dependencies: ["CompanionCore", "CompanionHTTP", "CompanionStore"],
            swiftSettings: strict),
        .target(name: "CompanionLinks", dependencies: ["CompanionCore"], swiftSettings: strict),
        .target(name: "CompanionBridge", dependencies: ["CompanionCore"], swiftSettings: strict),
        .target(
            name: "CompanionVault",
            dependencies: [
                "CompanionCore", "CompanionCrypto", "CompanionHTTP",
                .target(name: "CZlib", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict),

        .target(
            name: "CompanionScreen", dependencies: [],
            swiftSettings: strict),

        .target(
            name: "CompanionApp",
            dependencies: [
                "CompanionCore", "CompanionHTTP", "CompanionAuth", "CompanionStore", "CompanionSync", "CompanionScreen",
            ],
            swiftSettings: strict),

        // Adapters for server products that are not one of the apps (django-allauth headless).
        .target(
            name: "AllauthAdapter", dependencies: ["CompanionCore", "CompanionHTTP", "CompanionAuth"],
            path: "Sources/Adapters/Allauth", swiftSettings: strict),

        // The apps' cores, each built only on the kit; an app never imports another app.
        .target(
            name: "OmnigentCore",
            dependencies: [
                "CompanionApp", "CompanionCore", "CompanionHTTP", "CompanionAuth", "CompanionStore", "CompanionSync",
                "CompanionScreen",
                "CompanionLinks", "CompanionBridge",
            ],
            path: "Sources/Apps/Omnigent", swiftSettings: strict),
        .target(
            name: "CertainCore",
            dependencies: [
                "CompanionApp", "CompanionCore", "CompanionHTTP", "CompanionAuth", "CompanionStore", "CompanionSync",
                "CompanionScreen",
            ],
            path: "Sources/Apps/Certain", swiftSettings: strict),
        .target(
            name: "MainworthyCore",
            dependencies: [
                "CompanionApp", "CompanionCore", "CompanionHTTP", "CompanionAuth", "CompanionStore", "CompanionSync",
                "CompanionScreen",
            ],
            path: "Sources/Apps/Mainworthy", swiftSettings: strict),
        .target(
            name: "PrompTugalCore",
            dependencies: [
                "CompanionApp", "CompanionCore", "CompanionHTTP", "CompanionStore", "CompanionSync", "CompanionScreen",
                "CompanionBridge", "CompanionVault",
            ],
            path: "Sources/Apps/PrompTugal", swiftSettings: strict),
        .target(
            name: "HomeAssistantCore",
            dependencies: [
                "CompanionApp", "CompanionCore", "CompanionCrypto", "CompanionHTTP", "CompanionAuth", "CompanionStore",
            ],
            path: "Sources/Apps/HomeAssistant", swiftSettings: strict),

        // The terminal client and the benchmarks.
        .executableTarget(
            name: "companion",
            dependencies: [
                "CompanionApp", "CompanionCore", "CompanionCrypto", "CompanionHTTP", "CompanionAuth", "CompanionStore",
                "CompanionSync", "CompanionLinks", "CompanionVault", "CompanionScreen", "OmnigentCore", "CertainCore",
                "AllauthAdapter", "MainworthyCore", "PrompTugalCore", "HomeAssistantCore",
            ],
            swiftSettings: strict),
        .executableTarget(
            name: "Benchmarks",
            dependencies: [
                "CompanionApp", "CompanionAuth", "CompanionCore", "CompanionHTTP", "CompanionStore", "CompanionVault",
                "HomeAssistantCore", "MainworthyCore", "OmnigentCore",
            ],
            // Peers: the Python and C programs the benchmarks run beside the kit (scripts/bench builds the C one).
            path: "Benchmarks", exclude: ["ColdStartReader", "FirstScreen", "Peers"], swiftSettings: strict),
        // P3 cold's measured process: only the store and the core, as a tool that reads the cache links them.
        .executableTarget(
            name: "ColdStartReader", dependencies: ["CompanionStore", "CompanionCore"],
            path: "Benchmarks/ColdStartReader", swiftSettings: strict),
        // P9's measured process: each app's first screen through its core's screen model, from a cold start.
        .executableTarget(
            name: "FirstScreen",
            dependencies: [
                "CertainCore", "CompanionApp", "CompanionAuth", "CompanionCore", "CompanionHTTP", "CompanionStore",
                "MainworthyCore", "OmnigentCore", "PrompTugalCore",
            ],
            path: "Benchmarks/FirstScreen", swiftSettings: strict),

        .executableTarget(
            name: "StoreCrashWorker", dependencies: ["CompanionStore", "CompanionCore"], path: "Tests/StoreCrashWorker",
            swiftSettings: strict),

        // Tests. `CompanionTestSupport` finds the servers `scripts/test` started; a missing one fails loudly.
        .target(
            name: "CompanionTestSupport",
            dependencies: ["CompanionCore", "CompanionHTTP", "CompanionStore", "CompanionAuth", "CompanionApp"],
            path: "Tests/CompanionTestSupport", swiftSettings: strict),
        .testTarget(
            name: "CompanionCLITests", dependencies: ["CompanionCore", "CompanionHTTP", "CompanionTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "CompanionCoreTests", dependencies: ["CompanionCore", "CompanionTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "CompanionCryptoTests",
            dependencies: [
                "CompanionCrypto", "CompanionCore", .target(name: "CSodium", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CompanionHTTPTests",
            dependencies: ["CompanionHTTP", "CompanionCore", "CompanionCrypto", "CompanionTestSupport"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(
            name: "CompanionAuthTests",
            dependencies: [
                "CompanionAuth", "CompanionCore", "CompanionHTTP", "CompanionTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CompanionStoreTests", dependencies: ["CompanionStore", "CompanionCore", "CompanionTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "CompanionSyncTests",
            dependencies: [
                "CompanionSync", "CompanionStore", "CompanionHTTP", "CompanionCore", "CompanionTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CompanionAppTests",
            dependencies: [
                "CompanionApp", "CompanionAuth", "CompanionCore", "CompanionHTTP", "CompanionScreen", "CompanionStore",
                "CompanionSync", "CompanionTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "CompanionLinksTests", dependencies: ["CompanionLinks", "CompanionCore"], swiftSettings: strict),
        .testTarget(
            name: "CompanionBridgeTests", dependencies: ["CompanionBridge", "CompanionCore", "CompanionTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "CompanionVaultTests", dependencies: ["CompanionVault", "CompanionCore", "CompanionTestSupport"],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(
            name: "OmnigentCoreTests",
            dependencies: [
                "OmnigentCore", "CompanionApp", "CompanionAuth", "CompanionBridge", "CompanionCore", "CompanionHTTP",
                "CompanionLinks", "CompanionStore", "CompanionSync", "CompanionScreen", "CompanionTestSupport",
            ],
            resources: [.copy("Fixtures")], swiftSettings: strict),
        .testTarget(
            name: "CertainCoreTests",
            dependencies: [
                "CertainCore", "CompanionApp", "CompanionAuth", "CompanionCore", "CompanionHTTP", "CompanionScreen",
                "CompanionStore", "CompanionSync", "CompanionTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "MainworthyCoreTests",
            dependencies: [
                "MainworthyCore", "CompanionApp", "CompanionAuth", "CompanionCore", "CompanionHTTP", "CompanionStore",
                "CompanionTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "PrompTugalCoreTests",
            dependencies: [
                "PrompTugalCore", "CompanionApp", "CompanionCore", "CompanionCrypto", "CompanionHTTP",
                "CompanionScreen",
                "CompanionStore", "CompanionSync", "CompanionBridge", "CompanionVault", "CompanionTestSupport",
            ],
            swiftSettings: strict),
        // The Apple glue's tests (docs/apple.md): Apple-only files compile to nothing on Linux; SeamTests runs on both.
        .testTarget(
            name: "AppleGlueTests",
            dependencies: [
                "CompanionAuth", "CompanionBridge", "CompanionCore", "CompanionCrypto", "CompanionHTTP",
                "CompanionTestSupport",
            ],
            swiftSettings: strict),
        // The README's and the DocC articles' adoption snippets, compiled (SwiftUI parts on Apple platforms only) and
        // compared with the documents.
        .testTarget(
            name: "AdoptionSnippetTests",
            dependencies: [
                "CertainCore", "CompanionApp", "CompanionAuth", "CompanionCore", "CompanionStore", "MainworthyCore",
                "OmnigentCore", "PrompTugalCore",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "HomeAssistantCoreTests",
            dependencies: [
                "HomeAssistantCore", "CompanionApp", "CompanionAuth", "CompanionCore", "CompanionCrypto",
                "CompanionHTTP",
                "CompanionStore", "CompanionTestSupport",
            ],
            swiftSettings: strict),
        .testTarget(
            name: "AllauthAdapterTests",
            dependencies: [
                "AllauthAdapter", "CompanionAuth", "CompanionCore", "CompanionHTTP", "CompanionTestSupport",
            ],
            swiftSettings: strict),
    ]
)
