import CompanionCore
import Foundation
import FuzzSupport
import PrompTugalCore

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzScheduleCodec_main`): runs libFuzzer's driver.
@_cdecl("FuzzScheduleCodec_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

/// The schedule document the website and the app exchange (`{"v":1,"picks":[…]}`), read from any bytes.
func check(_ bytes: Data) {
    checkDocument(bytes)
    checkTime(String(decoding: bytes, as: UTF8.self))
    if let value = JSONValue(data: bytes) {
        _ = ScheduleSync.interpret(value.jsonString())
        _ = try? ScheduleTime.read(value)
    }
}

/// A document read is written in the website's form, and that text reads back to the same picks: the same ids in
/// the same order, each time within the millisecond the wire keeps, and nothing skipped the second time.
func checkDocument(_ bytes: Data) {
    let document: ScheduleDocument
    do throws(ScheduleDocumentError) {
        document = try ScheduleDocument(data: bytes)
    } catch {
        require(error.description.utf8.count < 400, "an error message that grows with the input")
        return
    }
    require(document.skipped >= 0, "a negative skip count")
    require(Set(document.picks.map(\.id)).count == document.picks.count, "an id listed twice after reading")
    let text = document.jsonText
    let again: ScheduleDocument
    do throws(ScheduleDocumentError) {
        again = try ScheduleDocument(data: Data(text.utf8))
    } catch {
        require(false, "the written document does not read back: \(error)")
        return
    }
    require(again.skipped == 0, "writing produced a pick that cannot be read back: \(text)")
    require(again.picks.map(\.id) == document.picks.map(\.id), "the ids moved in a round trip: \(text)")
    for (first, second) in zip(document.picks, again.picks) {
        require(abs(first.at.timeIntervalSince(second.at)) < 0.001, "a time moved in a round trip: \(text)")
    }
    require(again.jsonText == text, "writing is not stable: \(text)")
    require(ScheduleDocument(picks: document.picks).jsonText == text, "the written form depends on the skip count")
    // The JSONValue form and the text form are the same document.
    require((try? ScheduleDocument(json: document.json))?.picks.map(\.id) == document.picks.map(\.id), "json ≠ text")
}

/// A pick's time: the strict reader either refuses with a short message or reads an instant the writer writes
/// in 24 bytes, which reads back within a millisecond.
func checkTime(_ text: String) {
    let date: Date
    do throws(ScheduleTime.Problem) {
        date = try ScheduleTime.read(text)
    } catch {
        require(error.description.utf8.count < 400, "an error message that grows with the input")
        return
    }
    guard let written = try? ScheduleTime.write(date) else {
        require(false, "read \(text.debugDescription) but cannot write it")
        return
    }
    require(written.utf8.count == 24, "written form \(written) is not 24 bytes")
    guard let again = try? ScheduleTime.read(written) else {
        require(false, "cannot read back \(written)")
        return
    }
    require(abs(again.timeIntervalSince(date)) < 0.001, "round trip of \(text.debugDescription) moved")
}
