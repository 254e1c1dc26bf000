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

/// The program entry (SwiftPM links `main` to `FuzzManagedConfiguration_main`): runs libFuzzer's driver.
@_cdecl("FuzzManagedConfiguration_main")
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
    // The first byte picks the reader: JSON, property list, or sniffing.
    guard let selector = bytes.first else { return }
    let format: ManagedPayload.Format? = selector % 3 == 0 ? .json : selector % 3 == 1 ? .propertyList : nil
    guard let payload = try? ManagedPayload.decode(bytes.dropFirst(), format: format) else { return }
    let outcome = ManagedConfigurationResolver.resolve(declarative: .dictionary(payload), classic: .dictionary(payload))
    require(outcome.servers.count <= ManagedConfiguration.maximumEntries, "too many servers")
    require(outcome.servers.allSatisfy { $0.scheme == "https" }, "a preset is not https")
    require(Set(outcome.servers.map(\.serverKey)).count == outcome.servers.count, "duplicate presets")
    if let error = outcome.reportedError {
        require((100...103).contains(error.code) && outcome.servers.isEmpty, "partly applied: \(error)")
    }
}
