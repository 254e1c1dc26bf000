import CompanionBridge
import CompanionCore
import CompanionLinks
import Foundation
import FuzzDriver

/// libFuzzer's per-input function: must never crash; every property below is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Data(UnsafeBufferPointer(start: data, count: size))
    check(bytes)
    return 0
}

/// The program entry (SwiftPM links `main` to `FuzzServerAddress_main`): runs libFuzzer's driver.
@_cdecl("FuzzServerAddress_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var vector = argv
    return LLVMFuzzerRunDriver(&count, &vector) { data, size in fuzzOneInput(data, size) }
}

/// Stops the run with a message libFuzzer records as a crash.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
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
