// swift-tools-version: 6.1
import PackageDescription

/// libFuzzer targets for CompanionKit's parsers. Kept out of the root package's build: built and run only by
/// `scripts/fuzz`, with `-sanitize=fuzzer` (see that script for the flags that work on Linux).
let targets = [
    "FuzzLinkParser", "FuzzServerAddress", "FuzzManagedConfiguration", "FuzzBridgeEnvelope", "FuzzSSEParser",
    "FuzzVaultObject", "FuzzVaultEnvelope", "FuzzTimestamp", "FuzzScheduleCodec", "FuzzCertainValues",
    "FuzzTeamData", "FuzzCertificate", "FuzzWebSocketDecoder", "FuzzHomeAssistantValues", "FuzzSecretBox",
    "FuzzJSONReader",
]
/// Dependencies only one target needs (an app's module, so the kit's targets do not build every app).
let extra: [String: [Target.Dependency]] = [
    "FuzzBridgeEnvelope": [.product(name: "PrompTugalCore", package: "CompanionKit")],
    "FuzzScheduleCodec": [.product(name: "PrompTugalCore", package: "CompanionKit")],
    "FuzzTeamData": [.product(name: "PrompTugalCore", package: "CompanionKit")],
    "FuzzCertainValues": [.product(name: "CertainCore", package: "CompanionKit")],
    "FuzzHomeAssistantValues": [.product(name: "HomeAssistantCore", package: "CompanionKit")],
    "FuzzSecretBox": ["CSodiumFuzz"],
]

let package = Package(
    name: "CompanionFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "CompanionKit", path: "..")],
    targets: [
        // Declares libFuzzer's `LLVMFuzzerRunDriver`, which each target's entry point calls.
        .target(name: "FuzzDriver"),
        // The entry-point plumbing every target shares.
        .target(name: "FuzzSupport", dependencies: ["FuzzDriver"]),
        // Debian's libsodium, the reference FuzzSecretBox compares the kit's secretbox with.
        .systemLibrary(name: "CSodiumFuzz", providers: [.apt(["libsodium-dev"])]),
    ]
        + targets.map { name in
            .executableTarget(
                name: name,
                dependencies: [
                    "FuzzSupport",
                    .product(name: "CompanionCore", package: "CompanionKit"),
                    .product(name: "CompanionLinks", package: "CompanionKit"),
                    .product(name: "CompanionBridge", package: "CompanionKit"),
                    .product(name: "CompanionHTTP", package: "CompanionKit"),
                    .product(name: "CompanionCrypto", package: "CompanionKit"),
                    .product(name: "CompanionVault", package: "CompanionKit"),
                ] + (extra[name] ?? []))
        }
)
