import Foundation

/// The query of a request: the one way the kit writes one, whether from a dictionary literal, items or a builder.
///
/// Rules:
/// - Items are kept in name order (items of the same name in the order they were added), so the same query always
///   gives the same URL and the same cache key, however it was built.
/// - A dictionary (literal or value) leaves out its `nil` values: `["cursor": cursor]` has no `cursor` when it is
///   `nil`. An item with a `nil` value, given as an item, is written as a bare name (`?flag`).
/// - Setting a name (`query["limit"] = "20"`) replaces every item of that name; setting it to `nil` removes them.
/// - Names and values are percent-encoded when the client writes the URL (`Client.url(for:query:)`), never here.
public struct Query: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral,
    ExpressibleByArrayLiteral
{
    /// The items, in name order.
    public private(set) var items: [URLQueryItem]

    /// An empty query.
    public init() { items = [] }

    /// The query of `items`, every one kept (a `nil` value is a bare name), put in name order.
    public init(_ items: some Sequence<URLQueryItem>) {
        self.items = []
        for item in items { append(item) }
    }

    /// The query of `values`, `nil` values left out.
    public init(_ values: [String: String?]) {
        self.init(values.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } })
    }

    /// A query written as `["q": text, "cursor": cursor]`; `nil` values are left out.
    public init(dictionaryLiteral elements: (String, String?)...) {
        self.init(elements.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } })
    }

    /// A query written as a list of items, every one kept.
    public init(arrayLiteral elements: URLQueryItem...) { self.init(elements) }

    /// The value of the first item called `name`; setting replaces every item of that name, `nil` removes them.
    public subscript(name: String) -> String? {
        get { items.first { $0.name == name }?.value ?? nil }
        set {
            items.removeAll { $0.name == name }
            if let newValue { append(URLQueryItem(name: name, value: newValue)) }
        }
    }

    /// Adds `item` after the items of its name and before those of later names.
    public mutating func append(_ item: URLQueryItem) {
        let index = items.firstIndex { $0.name > item.name } ?? items.endIndex
        items.insert(item, at: index)
    }

    /// This query with `other`'s items added.
    public func merging(_ other: Query) -> Query {
        var merged = self
        for item in other.items { merged.append(item) }
        return merged
    }

    /// The first position.
    public var startIndex: Int { items.startIndex }
    /// The position after the last item.
    public var endIndex: Int { items.endIndex }
    /// The item at `position`.
    public subscript(position: Int) -> URLQueryItem { items[position] }
}
