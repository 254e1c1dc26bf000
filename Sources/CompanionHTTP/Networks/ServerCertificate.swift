import CompanionCrypto
import Foundation

/// A certificate a server presented, as a person checks it before trusting it: fingerprints, names, validity.
///
/// Rules: the SHA-256 fingerprint is of the whole DER certificate (what `openssl x509 -fingerprint -sha256`
/// prints); the public-key pin is the SHA-256 of the DER SubjectPublicKeyInfo in base64, the form libcurl's
/// `CURLOPT_PINNEDPUBLICKEY` and HPKP use (`sha256//<base64>`), so a certificate renewed with the same key keeps
/// its pin. Names read as RFC 4514 writes them (most specific first: `CN=host, O=Org`). Nothing here is secret.
public struct ServerCertificate: Sendable, Hashable, Codable {
    /// The certificate, DER.
    public var der: Data
    /// SHA-256 of `der`, uppercase hex in colon-separated pairs.
    public var fingerprint: String
    /// SHA-256 of the SubjectPublicKeyInfo, base64: the key's pin.
    public var publicKeyPin: String
    /// Who it names (RFC 4514 form).
    public var subject: String
    /// Who signed it (RFC 4514 form); the same as `subject` for a self-signed certificate.
    public var issuer: String
    /// The first moment it is valid.
    public var notBefore: Date
    /// The last moment it is valid.
    public var notAfter: Date
    /// The DNS names and IP addresses of its subjectAltName extension.
    public var alternativeNames: [String]

    /// Parses a DER certificate; anything else is a `CertificateError`, never a crash.
    public init(der: Data) throws(CertificateError) {
        let bytes = [UInt8](der)
        var outer = DERReader(bytes[...])
        var certificate = try outer.read(expecting: 0x30).children
        var tbs = try certificate.read(expecting: 0x30).children
        _ = try tbs.optional(0xA0)  // version
        _ = try tbs.read(expecting: 0x02)  // serial number
        _ = try tbs.read(expecting: 0x30)  // signature algorithm
        let issuer = try Self.name(tbs.read(expecting: 0x30))
        var validity = try tbs.read(expecting: 0x30).children
        let notBefore = try Self.time(validity.read())
        let notAfter = try Self.time(validity.read())
        let subject = try Self.name(tbs.read(expecting: 0x30))
        let publicKeyInfo = try tbs.read(expecting: 0x30)
        var names: [String] = []
        while !tbs.isAtEnd {
            let field = try tbs.read()
            if field.tag == 0xA3 { names = try Self.alternativeNames(field) }
        }
        self.der = der
        self.fingerprint = Self.hexPairs(Hash.sha256(der))
        self.publicKeyPin = Hash.sha256(Data(publicKeyInfo.encoded)).base64EncodedString()
        self.subject = subject
        self.issuer = issuer
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.alternativeNames = names
    }

    /// Whether it names itself as its issuer (a self-signed certificate).
    public var isSelfIssued: Bool { subject == issuer }

    /// Whether `date` lies inside its validity.
    public func isValid(at date: Date) -> Bool { notBefore <= date && date <= notAfter }

    /// The certificates of a PEM bundle (every `CERTIFICATE` block, in order), or one DER certificate as it is.
    /// Text that holds no certificate is an error.
    public static func certificates(in data: Data) throws(CertificateError) -> [Data] {
        let marker = Data("-----BEGIN CERTIFICATE-----".utf8)
        guard data.range(of: marker) != nil else {
            _ = try ServerCertificate(der: data)
            return [data]
        }
        var result: [Data] = []
        let text = String(decoding: data, as: UTF8.self)
        var rest = text[...]
        while let begin = rest.range(of: "-----BEGIN CERTIFICATE-----") {
            guard let end = rest.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<rest.endIndex)
            else { throw .malformed("a PEM block is not closed") }
            let body = rest[begin.upperBound..<end.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(body)) else { throw .malformed("a PEM block is not base64") }
            _ = try ServerCertificate(der: der)
            result.append(der)
            rest = rest[end.upperBound...]
        }
        return result
    }

    /// `der` as one PEM `CERTIFICATE` block.
    public static func pem(_ der: Data) -> String {
        let base64 = der.base64EncodedString()
        var lines: [Substring] = []
        var index = base64.startIndex
        while index < base64.endIndex {
            let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
            lines.append(base64[index..<end])
            index = end
        }
        return "-----BEGIN CERTIFICATE-----\n" + lines.joined(separator: "\n") + "\n-----END CERTIFICATE-----\n"
    }

    static func hexPairs(_ data: Data) -> String {
        let digits = Array("0123456789ABCDEF")
        return data.map { "\(digits[Int($0 >> 4)])\(digits[Int($0 & 0x0F)])" }.joined(separator: ":")
    }

    // MARK: Names, times, alternative names

    private static let attributeNames: [String: String] = [
        "2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O", "2.5.4.11": "OU",
        "2.5.4.5": "serialNumber", "1.2.840.113549.1.9.1": "emailAddress", "0.9.2342.19200300.100.1.25": "DC",
        "0.9.2342.19200300.100.1.1": "UID",
    ]

    /// An X.501 Name as RFC 4514 text: its RDNs last first, `type=value` joined by commas.
    private static func name(_ element: DERReader.Element) throws(CertificateError) -> String {
        var sets = element.children
        var parts: [String] = []
        while !sets.isAtEnd {
            var attributes = try sets.read(expecting: 0x31).children
            var inner: [String] = []
            while !attributes.isAtEnd {
                var pair = try attributes.read(expecting: 0x30).children
                let oid = try objectIdentifier(pair.read(expecting: 0x06))
                let value = try string(pair.read())
                inner.append("\(attributeNames[oid] ?? oid)=\(value)")
            }
            parts.append(inner.joined(separator: "+"))
        }
        return parts.reversed().joined(separator: ", ")
    }

    private static func objectIdentifier(_ element: DERReader.Element) throws(CertificateError) -> String {
        var subidentifiers: [Int] = []
        var value = 0
        for byte in element.contents {
            guard value < Int.max >> 8 else { throw .malformed("an object identifier arc is too large") }
            value = value << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 {
                subidentifiers.append(value)
                value = 0
            }
        }
        guard let first = subidentifiers.first, value == 0, element.contents.last.map({ $0 & 0x80 == 0 }) == true
        else { throw .malformed("an invalid object identifier") }
        // The first subidentifier holds the first two arcs: 40 * x + y, with x at most 2.
        let top = min(2, first / 40)
        return ([top, first - top * 40] + subidentifiers.dropFirst()).map(String.init).joined(separator: ".")
    }

    /// A directory string: UTF8String, PrintableString, IA5String, T61String (as Latin-1), BMPString, UniversalString.
    private static func string(_ element: DERReader.Element) throws(CertificateError) -> String {
        let bytes = Array(element.contents)
        switch element.tag {
        case 0x0C, 0x13, 0x16, 0x1A:
            return String(decoding: bytes, as: UTF8.self)
        case 0x14:
            return String(bytes.map { Character(Unicode.Scalar($0)) })
        case 0x1E:
            guard bytes.count.isMultiple(of: 2) else { throw .malformed("an odd BMPString") }
            let units = stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
            return String(decoding: units, as: UTF16.self)
        case 0x1C:
            guard bytes.count.isMultiple(of: 4) else { throw .malformed("a broken UniversalString") }
            var text = ""
            for index in stride(from: 0, to: bytes.count, by: 4) {
                let value = bytes[index..<(index + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                text.unicodeScalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            }
            return text
        default:
            return bytes.map { String(format: "%02x", $0) }.joined()
        }
    }

    /// UTCTime (`YYMMDDHHMMSSZ`, years 1950–2049) or GeneralizedTime (`YYYYMMDDHHMMSSZ`).
    private static func time(_ element: DERReader.Element) throws(CertificateError) -> Date {
        let text = String(decoding: element.contents, as: UTF8.self)
        let digits: Substring
        var year: Int
        switch element.tag {
        case 0x17:
            guard text.count == 13, text.hasSuffix("Z"), let yy = Int(text.prefix(2)) else {
                throw .malformed("an invalid UTCTime")
            }
            year = yy < 50 ? 2000 + yy : 1900 + yy
            digits = text.dropFirst(2).dropLast()
        case 0x18:
            guard text.count == 15, text.hasSuffix("Z"), let yyyy = Int(text.prefix(4)) else {
                throw .malformed("an invalid GeneralizedTime")
            }
            year = yyyy
            digits = text.dropFirst(4).dropLast()
        default:
            throw .malformed("a validity time of an unknown type")
        }
        let fields = stride(from: 0, to: 10, by: 2).compactMap { offset -> Int? in
            let start = digits.index(digits.startIndex, offsetBy: offset)
            return Int(digits[start..<digits.index(start, offsetBy: 2)])
        }
        guard digits.count == 10, digits.allSatisfy(\.isASCII), fields.count == 5 else {
            throw .malformed("an invalid validity time")
        }
        var components = DateComponents()
        (components.year, components.month, components.day) = (year, fields[0], fields[1])
        (components.hour, components.minute, components.second) = (fields[2], fields[3], fields[4])
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else {
            throw .malformed("an invalid validity time")
        }
        return date
    }

    /// The subjectAltName extension's DNS names and IP addresses, from the `[3]` extensions field.
    private static func alternativeNames(_ field: DERReader.Element) throws(CertificateError) -> [String] {
        var wrapper = field.children
        var extensions = try wrapper.read(expecting: 0x30).children
        while !extensions.isAtEnd {
            var item = try extensions.read(expecting: 0x30).children
            let oid = try objectIdentifier(item.read(expecting: 0x06))
            _ = try item.optional(0x01)  // critical
            let value = try item.read(expecting: 0x04)
            guard oid == "2.5.29.17" else { continue }
            var outer = value.children
            var names = try outer.read(expecting: 0x30).children
            var result: [String] = []
            while !names.isAtEnd {
                let name = try names.read()
                switch name.tag {
                case 0x82: result.append(String(decoding: name.contents, as: UTF8.self))
                case 0x87 where name.contents.count == 4:
                    result.append(name.contents.map(String.init).joined(separator: "."))
                case 0x87 where name.contents.count == 16:
                    let bytes = Array(name.contents)
                    let groups = stride(from: 0, to: 16, by: 2).map {
                        String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16)
                    }
                    result.append(groups.joined(separator: ":"))
                default: continue
                }
            }
            return result
        }
        return []
    }
}

/// Why bytes are not a certificate the kit can read.
public enum CertificateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not a DER X.509 certificate (or a PEM bundle of them); `detail` says where it broke.
    case malformed(String)

    /// A sentence a person can act on.
    public var description: String {
        switch self {
        case .malformed(let detail):
            return "This is not a certificate the app can read (\(detail)). Use a PEM or DER X.509 certificate."
        }
    }
}
