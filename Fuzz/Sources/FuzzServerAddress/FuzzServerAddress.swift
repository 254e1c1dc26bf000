import CompanionBridge
import CompanionCore
import CompanionLinks
import Foundation
import FuzzSupport

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzServerAddress_main`): runs libFuzzer's driver.
@_cdecl("FuzzServerAddress_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

func check(_ bytes: Data) {
    let text = String(decoding: bytes, as: UTF8.self)
    for policy in [TransportPolicy.httpsOnly, .allowingInsecureLoopback] {
        guard let address = try? ServerAddress(parsing: text, policy: policy) else { continue }
        // Normalization is idempotent and the identity is stable.
        let again = try? ServerAddress(parsing: address.description, policy: policy)
        require(again == address, "re-parse differs: \(text.debugDescription) -> \(address.description)")
        require(again?.serverKey == address.serverKey, "server key differs: \(text.debugDescription)")
        require(address.sameOrigin(as: address.url), "not same-origin with itself: \(address.description)")
        require(address.scheme == "https" || address.isLoopback, "http to a remote host: \(address.description)")
        _ = address.url(appending: text)
    }
}
