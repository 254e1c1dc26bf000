import CompanionBridge
import CompanionCore
import CompanionLinks
import Foundation
import FuzzSupport

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzLinkParser_main`): runs libFuzzer's driver.
@_cdecl("FuzzLinkParser_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

/// A grammar of the shape apps register (`<scheme>://<host[:port]>/c/<id>`); the seeds use this scheme.
let grammar = LinkGrammar(
    scheme: "omnigent", appName: "Fuzz",
    patterns: [LinkPattern(name: "conversation", segments: [.literal("c"), .identifier("id")])])

func check(_ bytes: Data) {
    let text = String(decoding: bytes, as: UTF8.self)
    for policy in [TransportPolicy.httpsOnly, .allowingInsecureLoopback] {
        guard let link = try? LinkParser.parse(text, grammar: grammar, policy: policy) else { continue }
        require(link.server.path.isEmpty && link.server.query == nil, "server carries a path: \(text)")
        require(link.path.hasPrefix("/c/") && link.path.dropFirst(3).firstIndex(of: "/") == nil, "path \(link.path)")
        require(!link.path.contains("?") && !link.path.contains("#") && !link.path.contains("."), "path \(link.path)")
        // The normalized form parses to the same link.
        let again = try? LinkParser.parse(
            "omnigent://" + link.hostDisplay + link.path, grammar: grammar, policy: policy)
        require(again == link, "re-parse differs: \(text)")
        _ = LinkRouter.decide(link, in: LinkContext(current: link.server, pageLoaded: true))
    }
}
