import CompanionCrypto
import CompanionHTTP
import Foundation
import FuzzSupport

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzCertificate_main`): runs libFuzzer's driver.
@_cdecl("FuzzCertificate_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

/// The X.509 reader (DER and PEM bundles) on any bytes: an error or a certificate whose fingerprint is the hash of
/// exactly the bytes read, and whose PEM form reads back to the same certificate.
func check(_ data: Data) {
    if let certificate = try? ServerCertificate(der: data) {
        let hex = Hash.sha256(data).map { String(format: "%02X", $0) }.joined(separator: ":")
        require(certificate.fingerprint == hex, "the fingerprint is not the SHA-256 of the DER")
        require(Data(base64Encoded: certificate.publicKeyPin)?.count == 32, "the pin is not a SHA-256")
        let again = try? ServerCertificate.certificates(in: Data(ServerCertificate.pem(data).utf8))
        require(again == [data], "the PEM form did not read back")
    }
    if let bundle = try? ServerCertificate.certificates(in: data) {
        for der in bundle { require((try? ServerCertificate(der: der)) != nil, "a bundle entry does not parse") }
    }
}
