import CompanionCrypto
import CompanionVault
import Foundation
import FuzzSupport

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzVaultEnvelope_main`): runs libFuzzer's driver.
@_cdecl("FuzzVaultEnvelope_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

let readKey = Data((0..<32).map { UInt8($0) })
let vaultKey: VaultKey? = try? VaultKey(readKey: readKey, vaultID: "fuzzvault01")
let nonce = Data(repeating: 7, count: 12)

/// Envelopes v1 (`IV ‖ ciphertext ‖ tag`) and v2 (`\0sgz1` + v1 of a zlib stream). Random bytes never pass the
/// tag, so the fuzzer's bytes are also sealed under the test key: that drives the v2 inflater (a zlib stream
/// from the fuzzer, with a small inflate limit) and the v1 plaintext path past authentication.
func check(_ bytes: Data) {
    guard let vaultKey else {
        require(false, "the test key is refused")
        return
    }
    // Raw: any bytes are refused with an error, never a trap.
    if (try? VaultFormat.decrypt(bytes, key: vaultKey, inflateLimit: 1 << 16)) != nil {
        require(bytes.count >= 28, "a short object decrypted")
    }
    guard let sealed = try? AESGCM.seal(bytes, key: readKey, nonce: nonce) else {
        require(false, "sealing failed")
        return
    }
    // v1: authentic bytes open to exactly what was sealed.
    let v1 = sealed.combined
    switch Result(catching: { () throws(VaultError) -> Data in try VaultFormat.decrypt(v1, key: vaultKey) }) {
    case .success(let plain): require(plain == bytes, "v1 round trip differs")
    case .failure(let error): require(false, "authentic v1 refused: \(error)")
    }
    // v2: the sealed bytes are the fuzzer's zlib stream; inflate either succeeds within the limit or throws.
    let limit = 1 << 16
    if let plain = try? VaultFormat.decrypt(VaultFormat.deflateMagic + v1, key: vaultKey, inflateLimit: limit) {
        require(plain.count <= limit, "inflated past the limit")
    }
    // A flipped byte anywhere in an authentic envelope is refused.
    if !v1.isEmpty {
        var tampered = v1
        let index = tampered.startIndex + Int(bytes.first ?? 0) % tampered.count
        tampered[index] ^= 0x01
        require((try? VaultFormat.decrypt(tampered, key: vaultKey)) == nil, "a tampered envelope opened")
    }
}
