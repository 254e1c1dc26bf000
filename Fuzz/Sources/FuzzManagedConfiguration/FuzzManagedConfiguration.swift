import CompanionBridge
import CompanionCore
import CompanionLinks
import Foundation
import FuzzSupport

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzManagedConfiguration_main`): runs libFuzzer's driver.
@_cdecl("FuzzManagedConfiguration_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
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
