import Foundation

/// `POST P/proposals` → 201.
public struct ProposalReply: Sendable, Hashable, Codable {
    /// Where an overlapping edit collided.
    public struct Overlap: Sendable, Hashable, Codable {
        /// The fields both edits change.
        public var fields: [String]
        /// The other proposal, when the server names one.
        public var with: String?
    }

    /// The proposal.
    public struct Proposal: Sendable, Hashable, Codable {
        /// Its id.
        public var id: String
        /// `adopted`, `waiting` or `overlap`.
        public var state: String
        /// The case, once there is one.
        public var caseID: String?
        /// The case's number, when adopted.
        public var number: String?
        /// The version made, when adopted.
        public var version: Int?
        /// The question in the Queue, when waiting or overlapping.
        public var questionID: String?
        /// The overlap, when overlapping.
        public var overlap: Overlap?

        enum CodingKeys: String, CodingKey {
            case id, state, number, version, overlap
            case caseID = "case_id"
            case questionID = "question_id"
        }
    }

    /// The proposal.
    public var proposal: Proposal
    /// The project's revision after it.
    public var revision: Int?
}
