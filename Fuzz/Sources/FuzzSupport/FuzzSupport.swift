import Foundation
import FuzzDriver

/// What every fuzz target shares: turning libFuzzer's bytes into `Data`, running libFuzzer's driver, and
/// failing loudly. Each target keeps only its two `@_cdecl` entry points (their names must be its own) and
/// its `check`.
public enum Fuzz {
    /// Runs `check` on one input; libFuzzer calls this through the target's `LLVMFuzzerTestOneInput`.
    public static func input(_ data: UnsafePointer<UInt8>?, _ size: Int, _ check: (Data) -> Void) -> CInt {
        guard let data else { return 0 }
        check(Data(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    /// Runs libFuzzer's driver with `testOneInput` (SwiftPM links `main` to `<Target>_main`, which calls this).
    public static func main(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt {
        var count = argc
        var vector = argv
        return LLVMFuzzerRunDriver(&count, &vector, testOneInput)
    }
}

/// Stops the run with a message libFuzzer records as a crash.
public func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}
