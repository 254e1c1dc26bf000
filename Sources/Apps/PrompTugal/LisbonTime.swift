import CompanionCore
import Foundation

/// Event times in Lisbon, where the event happens.
///
/// Rule (P-SCHED-18): the agenda writes start times as Lisbon wall time without an offset
/// (`2026-11-08T10:00`), so a stamp without an offset is read in Europe/Lisbon, with its summer time: in winter
/// (WET, UTC+0) `10:00` is 10:00Z, in summer (WEST, UTC+1) it is 09:00Z. A stamp with an offset is taken as
/// written. Reading it in the device's zone instead would move every talk for a visitor from elsewhere.
public enum LisbonTime {
    /// Europe/Lisbon; UTC if the system has no zone data (it always has on the platforms the app ships on).
    public static let zone: TimeZone = TimeZone(identifier: "Europe/Lisbon") ?? .gmt

    /// The instant of an agenda time.
    public static func instant(_ text: String) throws(TimestampError) -> Date {
        try Timestamp.parse(text, zonelessTimeZone: zone)
    }

    /// `date` as Lisbon wall time, `2026-11-08 10:00`, for lists and the terminal.
    public static func wallTime(_ date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        return String(
            format: "%04d-%02d-%02d %02d:%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0,
            parts.minute ?? 0)
    }

    /// The Lisbon calendar day of `date` as `2026-11-08`: days are grouped at Lisbon midnight (P-OPEN-7).
    public static func day(_ date: Date) -> String { String(wallTime(date).prefix(10)) }

    /// The offset from UTC in Lisbon at `date`, such as `+01:00` in summer.
    public static func offset(at date: Date) -> String {
        let seconds = zone.secondsFromGMT(for: date)
        let sign = seconds < 0 ? "-" : "+"
        return String(format: "%@%02d:%02d", sign, abs(seconds) / 3_600, abs(seconds) / 60 % 60)
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }()
}
