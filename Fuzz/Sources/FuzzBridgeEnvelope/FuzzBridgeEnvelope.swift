import CompanionBridge
import CompanionCore
import CompanionLinks
import Foundation
import FuzzSupport
import PrompTugalCore

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzBridgeEnvelope_main`): runs libFuzzer's driver.
@_cdecl("FuzzBridgeEnvelope_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

func check(_ bytes: Data) {
    for dialect in [BridgeDialect.request, .method] {
        guard let request = try? BridgeEnvelopeCodec.decode(bytes, dialect: dialect) else { continue }
        require(request.args.semanticallyEquals(request.args), "semantic equality is not reflexive")
        let json = BridgeEnvelopeCodec.json(request, dialect: dialect)
        let again = try? BridgeEnvelopeCodec.decode(Data(json.jsonString().utf8), dialect: dialect)
        require(again.map { $0.semanticallyEquals(request) } == true, "round trip differs")
        _ = JavaScriptLiteral.literal(request.args)
    }
    if let value = JSONValue(data: bytes) { _ = ScheduleSync.interpret(value.jsonString()) }
}
