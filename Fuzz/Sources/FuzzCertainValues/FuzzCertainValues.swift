import CertainCore
import CompanionHTTP
import Foundation
import FuzzSupport

/// libFuzzer's per-input function: must never crash; every property `check` states is a bug when it fails.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { Fuzz.input(data, size, check) }

/// The program entry (SwiftPM links `main` to `FuzzCertainValues_main`): runs libFuzzer's driver.
@_cdecl("FuzzCertainValues_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    Fuzz.main(argc, argv) { data, size in fuzzOneInput(data, size) }
}

/// Certain's money and calendar values from any text, and a transactions page from any bytes, decoded the way
/// the HTTP client decodes a reply and turned into list rows.
func check(_ bytes: Data) {
    let text = String(decoding: bytes, as: UTF8.self)
    checkAmount(text)
    checkDay(text)
    checkPage(bytes)
}

/// An amount read is written with the digits it was read with (at least two), and the written text reads back
/// to the same value; money formats in both languages and sums without a trap.
func checkAmount(_ text: String) {
    guard let amount = Amount(exactly: text) else { return }
    let written = amount.description
    guard let again = Amount(exactly: written) else {
        require(false, "\(text.debugDescription) was read but its written form \(written) is not an amount")
        return
    }
    require(again == amount, "\(text.debugDescription) moved in a round trip to \(written)")
    require(again.description == written, "writing \(written) is not stable")
    require(amount.magnitude.isNegative == false, "a magnitude below zero")
    for language in [Language.german, .english] {
        for currency in ["EUR", "USD", "CHF", "JPY", "TND"] {
            _ = Money(amount, currency).formatted(language)
            _ = Money(amount, currency).formatted(language, signed: false)
        }
    }
    _ = amount + amount
    _ = amount + Amount(Decimal(string: "-0.01") ?? 0, scale: 2)
    let decoded = try? JSONDecoder().decode([Amount].self, from: Data("[\(jsonString(text))]".utf8))
    require(decoded?.first == amount, "the JSON string \(text.debugDescription) does not decode to the amount")
}

/// A day or a month read prints back to the same text, which reads back to the same value.
func checkDay(_ text: String) {
    if let day = CalendarDate(text) {
        require(day.description == text, "\(text.debugDescription) prints as \(day.description)")
        require(CalendarDate(day.description) == day, "\(day) does not read back")
        for language in [Language.german, .english] { _ = day.formatted(language) }
        _ = day.budgetMonth.formatted(.german)
    }
    if let month = BudgetMonth(text) {
        require(BudgetMonth(month.description) == month, "\(month) does not read back")
        for language in [Language.german, .english] { _ = month.formatted(language) }
    }
}

/// A transactions page decodes or is refused; what decodes becomes rows, and each transaction of a page (ids
/// unique, as a server sends them) is in exactly one row, whatever its transfer links say.
func checkPage(_ bytes: Data) {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom(Client.defaultDateDecoding)
    guard let page = try? decoder.decode(TransactionPage.self, from: bytes) else { return }
    let rows = TransactionRows.rows(page.items)
    let ids = page.items.map(\.id)
    if Set(ids).count == ids.count {
        require(rows.flatMap(\.transactionIDs).sorted() == ids.sorted(), "a transaction is in no row or in two")
    }
    for language in [Language.german, .english] {
        for transaction in page.items { _ = transaction.money.formatted(language) }
    }
}

/// `text` as a JSON string literal.
func jsonString(_ text: String) -> String {
    (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
}
