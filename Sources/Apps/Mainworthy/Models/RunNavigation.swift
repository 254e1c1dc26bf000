/// Where the run screen goes: Start, and the next slot after a result.
///
/// Rules: Start opens the first slot in run order with no result, and is unavailable when every slot
/// has one (M-RUN-2). After a result is confirmed and the run read again, the next slot is the first
/// empty one after the current slot, else the first empty one from the top, else the run page (O-10,
/// M-RUN-7). The choice uses the slots just read, so a slot another tester filled meanwhile is skipped.
public enum RunNavigation {
    /// The slot Start opens, or `nil` when Start is unavailable.
    public static func start(_ slots: [Slot]) -> Slot? {
        ordered(slots).first { $0.result == nil }
    }

    /// The slot to open after recording on `currentID`, or `nil` for the run page.
    public static func next(after currentID: String, in slots: [Slot]) -> Slot? {
        let ordered = ordered(slots)
        if let index = ordered.firstIndex(where: { $0.id == currentID }),
            let later = ordered[(index + 1)...].first(where: { $0.result == nil })
        {
            return later
        }
        return ordered.first { $0.result == nil && $0.id != currentID }
    }

    private static func ordered(_ slots: [Slot]) -> [Slot] { slots.sorted { $0.position < $1.position } }
}
