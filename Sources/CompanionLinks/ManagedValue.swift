import Foundation

/// A property-list or JSON value as a plain Sendable tree: what a managed app configuration holds.
///
/// Rule: payloads from MDM (a dictionary from the declarative channel or from the app's defaults) and from
/// files are converted into this one form first, so validation never casts `Any` and cannot crash on an
/// unexpected type; a value of a type neither format defines becomes `.unsupported`.
public indirect enum ManagedValue: Sendable, Hashable {
    /// A string.
    case string(String)
    /// A whole number.
    case integer(Int64)
    /// Any other number.
    case real(Double)
    /// A boolean.
    case bool(Bool)
    /// A property-list date.
    case date(Date)
    /// Property-list data.
    case data(Data)
    /// An array.
    case array([ManagedValue])
    /// A dictionary.
    case dictionary([String: ManagedValue])
    /// JSON `null`.
    case null
    /// Something neither JSON nor a property list holds.
    case unsupported

    /// Converts a Foundation object tree (`PropertyListSerialization`, `JSONSerialization`, `UserDefaults`).
    public init(foundation value: Any) {
        switch value {
        case let text as String:
            self = .string(text)
        case let number as NSNumber:
            self = Self.number(number)
        case let date as Date:
            self = .date(date)
        case let data as Data:
            self = .data(data)
        case let array as [Any]:
            self = .array(array.map(ManagedValue.init(foundation:)))
        case let dictionary as [String: Any]:
            self = .dictionary(dictionary.mapValues(ManagedValue.init(foundation:)))
        case is NSNull:
            self = .null
        default:
            self = .unsupported
        }
    }

    private static func number(_ number: NSNumber) -> ManagedValue {
        // Booleans report the `c` (char) type, on Apple platforms and in swift-corelibs-foundation.
        let type = String(cString: number.objCType)
        if type == "c" || type == "B" { return .bool(number.boolValue) }
        let double = number.doubleValue
        if double.rounded() == double, abs(double) < 9.2e18, type != "d", type != "f" {
            return .integer(number.int64Value)
        }
        return .real(double)
    }
}
