import Security

/// The crash and power-loss tests' model of the keychain: what every acknowledged operation in
/// the writers' logs implies, checked against what each freshly started process finds.
///
/// The writer logs `B n op account tag` before each call and `A n` (success, synced), `R n
/// status` (refused), `V n label ok|torn` or `N n status` (a read) after it. An operation whose
/// outcome line is missing was in flight when the writer was killed: it may or may not have
/// happened, so the next state may show either; every other operation must be reflected exactly.
struct CrashLogModel {
    /// account → label of the item the acknowledged operations leave.
    private(set) var items: [String: String] = [:]
    /// The operation in flight at the last kill, until a state resolves it.
    private(set) var pending: Operation?
    /// Figures for the report.
    private(set) var acknowledgedWrites = 0
    private(set) var refusedWrites = 0
    private(set) var checkedReads = 0
    private(set) var checkedStates = 0
    private(set) var checkedItems = 0
    private(set) var inFlightApplied = 0
    private(set) var inFlightLost = 0

    struct Operation: Equatable {
        let sequence: Int
        let kind: String
        let account: String
        let tag: String
    }

    /// The items after `operation`, applied to `items`.
    private static func applying(_ operation: Operation, to items: [String: String]) -> [String: String] {
        var result = items
        switch operation.kind {
        case "add": if result[operation.account] == nil { result[operation.account] = operation.tag }
        case "update": if result[operation.account] != nil { result[operation.account] = operation.tag }
        case "delete": result[operation.account] = nil
        default: break
        }
        return result
    }

    /// Checks the state a fresh process found after a kill or power loss, before the next writer's
    /// first operation.
    mutating func check(state: KeychainState) throws {
        if let unsound = state.unsoundness { throw StateError("after a kill or power loss: \(unsound)") }
        if state.items == items {
            if let pending, Self.applying(pending, to: items) != items { inFlightLost += 1 }
        } else if let pending, state.items == Self.applying(pending, to: items) {
            items = state.items
            inFlightApplied += 1
        } else {
            throw StateError(
                "after a kill or power loss the keychain holds \(state.items.sorted { $0.key < $1.key }),"
                    + " but the acknowledged log implies \(items.sorted { $0.key < $1.key })"
                    + (pending.map { " (or that with \($0) applied)" } ?? ""))
        }
        pending = nil
        checkedStates += 1
        checkedItems += state.items.count
    }

    /// Replays one writer's log (written after the state it was checked against).
    mutating func replay(log text: String) throws {
        // Only whole lines count: a kill can cut the last one short.
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()
        var current: Operation?
        for line in lines {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count >= 2, let sequence = Int(fields[1]) else { throw StateError("bad log line \(line)") }
            if fields[0] == "B" {
                guard fields.count == 5, current == nil else { throw StateError("operation without outcome before \(line)") }
                guard pending == nil else { throw StateError("operations logged before the in-flight one was resolved") }
                current = Operation(sequence: sequence, kind: fields[2], account: fields[3], tag: fields[4])
                continue
            }
            guard let operation = current, operation.sequence == sequence else {
                throw StateError("outcome without operation: \(line)")
            }
            try settle(operation, outcome: fields)
            current = nil
        }
        if let current { pending = current }
    }

    private mutating func settle(_ operation: Operation, outcome fields: [String]) throws {
        let present = items[operation.account]
        let expected: [String]
        switch (operation.kind, present) {
        case ("add", nil), ("update", _?), ("delete", _?): expected = ["A"]
        case ("add", _?): expected = ["R", "\(errSecDuplicateItem)"]
        case ("update", nil), ("delete", nil): expected = ["R", "\(errSecItemNotFound)"]
        case ("read", let label?): expected = ["V", label, "ok"]
        case ("read", nil): expected = ["N", "\(errSecItemNotFound)"]
        default: throw StateError("unknown operation \(operation.kind)")
        }
        let outcome = [fields[0]] + fields.dropFirst(2)
        guard outcome == expected else {
            throw StateError(
                "operation \(operation) had outcome \(outcome); the acknowledged log implies \(expected)")
        }
        switch fields[0] {
        case "A":
            items = Self.applying(operation, to: items)
            acknowledgedWrites += 1
        case "R": refusedWrites += 1
        default: checkedReads += 1
        }
    }
}
