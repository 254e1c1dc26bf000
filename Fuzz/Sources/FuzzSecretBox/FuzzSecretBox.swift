import CSodiumFuzz
import CompanionCrypto
import Foundation
import FuzzSupport

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzSecretBox_main`): runs libFuzzer's driver.
@_cdecl("FuzzSecretBox_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

/// Differential: the kit's secretbox against Debian's libsodium. The first 32 bytes are the key, the next 24 the
/// nonce, the rest the message: both seal it to the same bytes, and both agree whether the rest, taken as a box,
/// opens, and to what.
func check(_ bytes: Data) {
    guard bytes.count >= 56 else { return }
    let key = [UInt8](bytes.prefix(32))
    let nonce = [UInt8](bytes.dropFirst(32).prefix(24))
    let message = [UInt8](bytes.dropFirst(56))
    var theirs = [UInt8](repeating: 0, count: message.count + 16)
    _ = crypto_secretbox_easy(&theirs, message, UInt64(message.count), nonce, key)
    let ours = try? SecretBox.seal(message, key: key, nonce: nonce)
    require(ours == Data(theirs), "the box differs from libsodium's")
    var opened = [UInt8](repeating: 0, count: max(0, message.count - 16))
    let status =
        message.count >= 16 ? crypto_secretbox_open_easy(&opened, message, UInt64(message.count), nonce, key) : -1
    let ourOpen = try? SecretBox.open(message, key: key, nonce: nonce)
    require((status == 0) == (ourOpen != nil), "libsodium and the kit disagree whether the box opens")
    if status == 0 { require(ourOpen == Data(opened), "the opened message differs from libsodium's") }
    if let ours { require((try? SecretBox.open(ours, key: key, nonce: nonce)) == Data(message), "no round trip") }
}
