import CompanionCore
import Foundation

/// What a question's page shows as evidence (M-QUEUE-7): what failed and where, what an edit changes, and for
/// every other kind what the server wrote, as labelled text.
///
/// Rule (O-22): §2 defines the evidence of a failure and of a proposal only. Every other member (a review's
/// finding, a link or an overlap, a sign-off, and any kind a server adds later), and a failure or proposal
/// member that does not have §2's shape, decodes into the generic form, `EvidencePart`: its text fields with
/// their labels. So a question always opens, and its answers follow the rules of its kind.
public struct Evidence: Sendable, Hashable, Codable {
    /// A failing test: test, message, job, commit and location.
    public var failure: FailureEvidence?
    /// A proposal's edits.
    public var proposal: ProposalEvidence?
    /// Every other member, as labelled text, by the member's name (`review`, `link`, …).
    public var parts: [EvidencePart]
    /// Every member as sent.
    public var raw: JSONValue?

    /// Creates evidence.
    public init(
        failure: FailureEvidence? = nil, proposal: ProposalEvidence? = nil, parts: [EvidencePart] = [],
        raw: JSONValue? = nil
    ) {
        self.failure = failure
        self.proposal = proposal
        self.parts = parts
        self.raw = raw
    }

    /// The generic part of member `kind` (`review`), if the evidence has one.
    public func part(_ kind: String) -> EvidencePart? { parts.first { $0.kind == kind } }

    /// Decodes the failure and the proposal as §2 shows them, and every other member as labelled text.
    public init(from decoder: any Decoder) throws {
        let whole = try JSONValue(from: decoder)
        raw = whole
        failure = nil
        proposal = nil
        parts = []
        let members = whole.objectValue ?? [:]
        let container = try decoder.container(keyedBy: Member.self)
        for name in members.keys.sorted() {
            guard let value = members[name], !value.isNull else { continue }
            let key = Member(name)
            if name == "failure", let typed = try? container.decode(FailureEvidence.self, forKey: key) {
                failure = typed
            } else if name == "proposal", let typed = try? container.decode(ProposalEvidence.self, forKey: key) {
                proposal = typed
            } else {
                parts.append(EvidencePart(kind: name, value: value))
            }
        }
    }

    /// Encodes the object as it came.
    public func encode(to encoder: any Encoder) throws {
        if let raw {
            try raw.encode(to: encoder)
            return
        }
        var container = encoder.container(keyedBy: Member.self)
        try container.encodeIfPresent(failure, forKey: Member("failure"))
        try container.encodeIfPresent(proposal, forKey: Member("proposal"))
    }

    /// A member of the evidence object, by name.
    struct Member: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
