import Foundation

/// Reads a managed configuration payload from bytes: a property list (XML or binary) or JSON.
///
/// Rule: unreadable bytes, or a root that is not a dictionary, are a typed error and never a crash, so
/// `companion managed-config validate` and the fuzz target can feed it anything.
public enum ManagedPayload {
    /// The formats a payload file may have.
    public enum Format: String, Sendable, Hashable {
        /// An XML or binary property list.
        case propertyList
        /// A JSON object.
        case json
    }

    /// The payload dictionary in `data`, read as `format`; `nil` means: JSON when the first non-blank byte
    /// is `{`, a property list otherwise.
    public static func decode(_ data: Data, format: Format? = nil) throws(ManagedPayloadError) -> [String: ManagedValue]
    {
        let chosen = format ?? sniff(data)
        let object: Any
        do {
            switch chosen {
            case .json:
                object = try JSONSerialization.jsonObject(with: data, options: [])
            case .propertyList:
                object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            }
        } catch {
            throw .unreadable(chosen)
        }
        guard case .dictionary(let dictionary) = ManagedValue(foundation: object) else {
            throw .notADictionary
        }
        return dictionary
    }

    private static func sniff(_ data: Data) -> Format {
        let first = data.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) })
        return first == UInt8(ascii: "{") ? .json : .propertyList
    }
}

/// Why a payload file could not be read at all (before any configuration rule applies).
public enum ManagedPayloadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not a valid document of the format.
    case unreadable(ManagedPayload.Format)
    /// The document's root is not a dictionary.
    case notADictionary

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .unreadable(.json): return "The file is not valid JSON."
        case .unreadable(.propertyList): return "The file is not a valid property list (XML or binary)."
        case .notADictionary: return "The configuration must be a dictionary with a serverUrls key at its root."
        }
    }
}
