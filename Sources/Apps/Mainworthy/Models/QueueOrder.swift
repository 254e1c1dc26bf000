/// The order of the queue on screen.
///
/// Rule: every failure comes before any other kind; within each group the server's order (longest
/// waiting first) is kept (M-QUEUE-1, O-3). Sorting is stable, so a page appended later keeps the rows
/// already shown in place within their group.
public enum QueueOrder {
    /// `items` with failures first, each group in the order given.
    public static func failuresFirst(_ items: [QueueItem]) -> [QueueItem] {
        items.filter { $0.kind == .failure } + items.filter { $0.kind != .failure }
    }
}
