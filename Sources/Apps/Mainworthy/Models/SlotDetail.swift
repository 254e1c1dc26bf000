import Foundation

/// A slot's page: the slot, its case at the pinned version, and every result, newest first.
public struct SlotDetail: Sendable, Hashable, Codable {
    /// The slot.
    public var slot: Slot
    /// The case as pinned (M-RUN-4).
    public var `case`: SlotCase
    /// The slot's history, newest first; nothing is ever deleted (M-RUN-8, M-RUN-9).
    public var results: [SlotResult]

    /// Creates a slot page.
    public init(slot: Slot, case pinned: SlotCase, results: [SlotResult]) {
        self.slot = slot
        self.case = pinned
        self.results = results
    }
}

/// The case of a slot's page: its number and the version pinned when the run was planned, with that version's
/// document (M-RUN-4).
public struct SlotCase: Sendable, Hashable, Codable {
    /// `C-12`.
    public var number: String
    /// The pinned version.
    public var version: Int
    /// The document at that version.
    public var document: CaseDocument

    /// Creates a slot's case.
    public init(number: String, version: Int, document: CaseDocument) {
        self.number = number
        self.version = version
        self.document = document
    }

    /// The title at the pinned version.
    public var title: String { document.title }
    /// The steps at the pinned version.
    public var steps: [CaseStep] { document.steps }

    enum CodingKeys: String, CodingKey { case number, version }

    /// Decodes `{"number", "version", "title", "preconditions", "steps"}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        number = try container.decode(String.self, forKey: .number)
        version = try container.decode(Int.self, forKey: .version)
        document = try CaseDocument(from: decoder)
    }

    /// Encodes the same flat object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        try container.encode(version, forKey: .version)
        try document.encode(to: encoder)
    }
}
