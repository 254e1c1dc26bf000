import CompanionApp
import CompanionAuth
import CompanionStore
import Foundation

// The adoption snippets of the README and the app cores' DocC articles, compiled: each `snippet: NAME` region holds
// a document's block of that name, line for line (SnippetCheckTests compares them; lines the documents leave out,
// such as the Linux stand-in for an Apple-only line, may sit between). The SwiftUI views are in *+SwiftUI.swift,
// compiled on Apple platforms only.

// snippet: environment
/// Made once per process: every server bundle takes its transport, stores and secrets from here.
enum Companion {
    static let folder = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
    #if canImport(Security)
        static let secrets = KeychainSecretStore(  // Apple only (on Linux: FileSecretStore)
            service: "com.example.app", accessibility: .afterFirstUnlockThisDeviceOnly)
    #else
        static let secrets = FileSecretStore(folder: folder.appendingPathComponent("secrets"))
    #endif
    static let environment = AppEnvironment(
        transportPolicy: .httpsOnly, stores: StoreRegistry(location: .directory(folder)),
        secrets: secrets)
}
// end snippet
